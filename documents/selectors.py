"""Reads that enforce who may see which document."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404

from documents.filenames import normalize_filename
from documents.models import Chunk, Document, DocumentVersion
from documents.roles import is_owner


@dataclass(frozen=True)
class IndexingProgress:
    version_number: int
    embedded: int
    total: int


def visible_documents(user) -> QuerySet[Document]:  # noqa: ANN001
    """Documents ``user`` may read: no groups (everyone signed in), one of their groups, or their own.

    Superusers see everything. Anonymous users see nothing.
    """
    if not user.is_authenticated:
        return Document.objects.none()
    if user.is_superuser:
        return Document.objects.all()
    visible = Q(groups__isnull=True) | Q(groups__in=user.groups.all()) | Q(owner=user)
    return Document.objects.filter(pk__in=Document.objects.filter(visible).values("pk"))


def searchable_version_ids(user, *, document_id: int | None = None) -> list[int]:  # noqa: ANN001
    """Live version ids of the documents ``user`` may read (optionally one document)."""
    qs = visible_documents(user).filter(live_version__isnull=False)
    if document_id is not None:
        qs = qs.filter(pk=document_id)
    return list(qs.values_list("live_version_id", flat=True))


def manageable_documents(user) -> QuerySet[Document]:  # noqa: ANN001
    """Documents ``user`` may change: their own, or all for superusers (staff alone is not enough)."""
    if not is_owner(user):
        return Document.objects.none()
    if user.is_superuser:
        return Document.objects.all()
    return Document.objects.filter(owner=user)


def get_document_for_manager(user, pk: int) -> Document:  # noqa: ANN001
    """The document ``pk`` if ``user`` may change it, else 404 (no hint that it exists)."""
    try:
        return manageable_documents(user).get(pk=pk)
    except Document.DoesNotExist:
        raise Http404("No such document") from None


def document_named(filename: str) -> Document | None:
    """The document stored under ``filename``, compared as uniqueness is: NFC, case-insensitively.

    Not scoped to a user: a file name names one document across the portal (citations use it).
    """
    return Document.objects.filter(filename__iexact=normalize_filename(filename)).first()


def indexing_progress(document: Document) -> IndexingProgress | None:
    """How far indexing of ``document``'s latest version has got, while the document is indexing (else None)."""
    if document.status not in (Document.Status.PENDING, Document.Status.INDEXING):
        return None
    latest = (
        DocumentVersion.objects.filter(document=document)
        .order_by("-number")
        .values("pk", "number", "chunks_embedded")
        .first()
    )
    if latest is None:
        return None
    total = document.chunks.filter(version_id=latest["pk"]).count()
    return IndexingProgress(
        version_number=latest["number"], embedded=min(latest["chunks_embedded"], total), total=total
    )


def chunk_count(*, of: str) -> Coalesce:
    """An annotation: how many chunks point at each row through the chunk field ``of`` ("version" or "document").

    A correlated subquery, never ``Count("chunks")``: counting over a join groups
    by every selected column, so each row (a version with its whole text) is
    copied once per chunk before the count, which grew a 1.6 MB upload's
    request to gigabytes.
    """
    counted = Chunk.objects.filter(**{of: OuterRef("pk")}).order_by().values(of).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)
