"""Background work through the Django tasks API.

By default the database backend (django-tasks-db): an upload queues a task and a
``manage.py index_worker`` process runs it. The test suite uses the immediate
backend, which runs the task inside the call that queues it.
"""

from __future__ import annotations

from django.db.models import F
from django_tasks import task

from documents.models import DocumentVersion


@task()
def index_version_task(version_id: int) -> None:
    from documents.services import version_index

    version = DocumentVersion.objects.select_related("document").filter(pk=version_id).first()
    if version is None:  # deleted before the worker got to it
        return
    # Counted before the work starts: a run that kills its worker still counts (documents.recovery).
    DocumentVersion.objects.filter(pk=version_id).update(index_attempts=F("index_attempts") + 1)
    version_index(version=version)
