"""Reads that enforce who may see which document."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404

from documents.filenames import name_key
from documents.keyword_index import live_keyword_index
from documents.models import Chunk, Document, DocumentVersion, IndexingTask
from documents.roles import is_owner
from documents.segmentation import tokens
from documents.vocabulary import is_katakana, katakana_word_in
from ragportal.text import KANJI


# How many chunks holding a text written_in reads to find it starting a word.
WORD_START_CHUNKS = 50


@dataclass(frozen=True)
class IndexingProgress:
    version_number: int
    embedded: int
    total: int


def visible_documents(user: User | AnonymousUser) -> QuerySet[Document]:
    """Documents ``user`` may read: no groups (everyone signed in), one of their groups, or their own.

    Superusers see everything. Anonymous users see nothing.
    """
    if not user.is_authenticated:
        return Document.objects.none()
    if user.is_superuser:
        return Document.objects.all()
    visible = Q(groups__isnull=True) | Q(groups__in=user.groups.all()) | Q(owner=user)
    return Document.objects.filter(pk__in=Document.objects.filter(visible).values("pk"))


def searchable_version_ids(user: User | AnonymousUser, *, document_id: int | None = None) -> list[int]:
    """Live version ids of the documents ``user`` may read (optionally one document)."""
    qs = visible_documents(user).filter(live_version__isnull=False)
    if document_id is not None:
        qs = qs.filter(pk=document_id)
    return list(qs.values_list("live_version_id", flat=True))


def unreadable_version_ids(user: User | AnonymousUser) -> list[int]:
    """Live version ids of the documents ``user`` may not read (limited to groups ``user`` is not in)."""
    readable = visible_documents(user).values("pk")
    live = Document.objects.filter(live_version__isnull=False).exclude(pk__in=readable)
    return list(live.values_list("live_version_id", flat=True))


def written_as_tokens(text: str, version_ids: Sequence[int]) -> bool:
    """Whether every segmentation token of ``text`` is in a chunk of one of ``version_ids`` (folded: any case).

    A Latin name is written in the documents if its words are (Aoba where they write
    aoba-tech.example), on every keyword backend alike.
    """
    index = live_keyword_index()
    return bool(text and version_ids) and all(
        index.has_token(token, version_ids=version_ids) for token in dict.fromkeys(tokens(text))
    )


def written_in(text: str, version_ids: Sequence[int], *, starting_a_word: bool = False) -> bool:
    """Whether a chunk of one of ``version_ids`` contains ``text`` as written (no folding: kana stays kana).

    ``starting_a_word``: only where no kanji comes right before it (供し in 「提供し」
    is part of another word), or for a katakana word where it is a word (ランチ is none in 「クランチ」,
    ネクタイ one in 「ノーネクタイ」: :func:`documents.vocabulary.katakana_word_in`).
    The keyword index answers first: a text one of whose
    tokens no chunk has is written nowhere, found without reading the chunks' text.
    """
    found = _containing([text], version_ids)
    if found is None:
        return False
    if not starting_a_word:
        return found.exists()
    bodies = found.values_list("text", flat=True)[:WORD_START_CHUNKS]
    if is_katakana(text):
        return any(katakana_word_in(text, body) for body in bodies)
    alone = re.compile(f"(?<![{KANJI}]){re.escape(text)}")
    return any(alone.search(body) for body in bodies)


def chunks_writing(texts: Sequence[str], version_ids: Sequence[int], *, limit: int) -> list[int]:
    """Up to ``limit`` chunks of ``version_ids`` that contain one of ``texts`` as written (ids, in no set order)."""
    found = _containing(texts, version_ids)
    return [] if found is None else list(found.values_list("pk", flat=True)[:limit])


def _containing(texts: Sequence[str], version_ids: Sequence[int]) -> QuerySet[Chunk] | None:
    """The chunks of ``version_ids`` containing one of ``texts`` as written; None when the keyword index
    already says none does (a text one of whose tokens no chunk has), without reading any chunk's text."""
    written = [t for t in texts if t and written_as_tokens(t, version_ids)]
    if not written:
        return None
    contains = Q()
    for text in written:
        contains |= Q(text__contains=text)
    return Chunk.objects.filter(contains, version_id__in=version_ids)


def manageable_documents(user: User | AnonymousUser) -> QuerySet[Document]:
    """Documents ``user`` may change: their own, or all for superusers (staff alone is not enough)."""
    if not is_owner(user):
        return Document.objects.none()
    if user.is_superuser:
        return Document.objects.all()
    return Document.objects.filter(owner_id=user.pk)


def get_document_for_manager(user: User | AnonymousUser, pk: int) -> Document:
    """The document ``pk`` if ``user`` may change it, else 404 (no hint that it exists)."""
    try:
        return manageable_documents(user).get(pk=pk)
    except Document.DoesNotExist:
        raise Http404("No such document") from None


def document_named(name: str) -> Document | None:
    """The document stored under ``name`` (``folder/file``), compared as uniqueness is (``name_key``: NFKC, case-folded).

    Not scoped to a user: a name names one document across the portal (citations use it).
    """
    return Document.objects.filter(name_key=name_key(name.strip())).first()


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


INDEX_TASK_PATH = "documents.tasks.index_version_task"


def indexing_queue(*, statuses: tuple[str, ...] = ("READY",)) -> QuerySet[IndexingTask]:
    """Indexing tasks in ``statuses``, in the order the workers take them (django-tasks-db's own ordering)."""
    return IndexingTask.objects.filter(task_path=INDEX_TASK_PATH, status__in=statuses)


def task_version_id(task: IndexingTask) -> int | None:
    """The version an indexing task is for (its one argument), or ``None`` for a malformed row."""
    return _version_argument(task.args_kwargs)


def _version_argument(args_kwargs: object) -> int | None:
    args = args_kwargs.get("args") if isinstance(args_kwargs, dict) else None
    return args[0] if isinstance(args, list) and args and isinstance(args[0], int) else None


def queue_positions(documents: list[Document]) -> dict[int, int]:
    """For each of ``documents`` waiting to be indexed: its place in the queue (1 = next), by document id.

    The place counts every task a worker would take first: all waiting tasks
    (of any kind) ahead of the document's earliest waiting indexing task.
    Documents being indexed or not queued are left out (with the immediate
    backend nothing ever waits).
    """
    waiting = {d.pk for d in documents if d.status in (Document.Status.PENDING, Document.Status.INDEXING)}
    if not waiting:
        return {}
    ready = IndexingTask.objects.filter(status="READY").values_list("task_path", "args_kwargs")
    version_ids: list[tuple[int, int]] = []  # (place, version id)
    for place, (path, args_kwargs) in enumerate(ready, start=1):
        if path == INDEX_TASK_PATH and (version_id := _version_argument(args_kwargs)) is not None:
            version_ids.append((place, version_id))
    documents_of = dict(
        DocumentVersion.objects.filter(pk__in=[v for _p, v in version_ids], document_id__in=waiting).values_list(
            "pk", "document_id"
        )
    )
    positions: dict[int, int] = {}
    for place, version_id in version_ids:
        document_id = documents_of.get(version_id)
        if document_id is not None:
            positions.setdefault(document_id, place)
    return positions


def chunk_count(*, of: str) -> Coalesce:
    """An annotation: how many chunks point at each row through the chunk field ``of`` ("version" or "document").

    A correlated subquery, never ``Count("chunks")``: counting over a join groups
    by every selected column, so each row (a version with its whole text) is
    copied once per chunk before the count, which grew a 1.6 MB upload's
    request to gigabytes.
    """
    counted = Chunk.objects.filter(**{of: OuterRef("pk")}).order_by().values(of).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)
