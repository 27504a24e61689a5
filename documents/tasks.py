"""Background work through the Django tasks API (immediate backend by default)."""

from __future__ import annotations

from django_tasks import task

from documents.models import DocumentVersion


@task()
def index_version_task(version_id: int) -> None:
    from documents.services import version_index

    version = DocumentVersion.objects.select_related("document").filter(pk=version_id).first()
    if version is None:  # deleted before the worker got to it
        return
    version_index(version=version)
