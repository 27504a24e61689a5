"""Getting back to a consistent state after a crash: re-queue interrupted indexing, check and repair the indexes.

- :func:`indexing_requeue` runs when an indexing worker starts (``index_worker``):
  a document left 「索引作成中」 by a killed worker is queued again, up to
  ``RAG_INDEX_MAX_ATTEMPTS`` runs per version, then marked failed.
- :func:`index_check` compares the live chunks with both indexes
  (``documents.consistency``); :func:`index_repair` re-indexes what is missing
  or stale and removes what is extra (``manage.py check_index [--repair]``).
- :func:`dense_count_check` is the cheap comparison behind ``/api/v1/health``.
"""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass, field
from datetime import timedelta

from pathlib import Path

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from documents.consistency import DenseEntry, DocumentDrift, KeywordEntry, LiveChunk, compare
from documents.embeddings import EMBEDDING_MODEL_NAME
from documents.failures import IndexingInterruptedError
from documents.keyword_index import live_keyword_index
from documents.models import Chunk, Document, DocumentVersion
from documents.segmentation import segment
from documents.vectorstore import DenseIndex, announce_change, live_collection

log = logging.getLogger(__name__)

INDEX_TASK_PATH = "documents.tasks.index_version_task"


# --- re-queueing after a crash ------------------------------------------------------


@dataclass
class RequeueReport:
    abandoned_tasks: int = 0  # task rows left running by a dead worker, now marked failed
    requeued: list[str] = field(default_factory=list)  # "file vN"
    failed: list[str] = field(default_factory=list)  # gave up after RAG_INDEX_MAX_ATTEMPTS runs


def _uses_task_table() -> bool:
    return settings.TASKS["default"]["BACKEND"].startswith("django_tasks_db")


def worker_id() -> str:
    """This indexing worker's id in the task table: its host and process id, so that
    :func:`indexing_requeue` on the same host can tell when it has died (kill -9, a crash)."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}"


def _worker_gone(worker_ids: list[str]) -> bool:
    """Whether the worker that last claimed a task is known to be dead: it ran on this host and its process is gone.

    A worker on another host (or with an id of another form) is not known dead:
    its task is given up only after ``RAG_INDEX_TASK_TIMEOUT_S``.
    """
    host, _, pid = (worker_ids[-1] if worker_ids else "").rpartition(":")
    if host != worker_id().rpartition(":")[0] or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    cmdline = Path(f"/proc/{pid}/cmdline")  # the id may have been reused by another program since
    try:
        return b"index_worker" not in cmdline.read_bytes()
    except OSError:  # no /proc: alive is all we know
        return False


def _abandon_running_tasks(*, sole_worker: bool) -> tuple[int, set[int]]:
    """Mark indexing tasks whose worker is gone as failed; return (how many, versions still queued or running).

    A running task is gone when this is the only worker (``sole_worker``: any
    running task was left by a previous, dead run), when the worker that
    claimed it ran on this host and its process is gone (:func:`_worker_gone`),
    or when it has run longer than ``RAG_INDEX_TASK_TIMEOUT_S``.
    """
    from django_tasks_db.models import DBTaskResult

    cutoff = timezone.now() - timedelta(seconds=settings.RAG_INDEX_TASK_TIMEOUT_S)
    abandoned, busy = 0, set()
    for task in DBTaskResult.objects.filter(task_path=INDEX_TASK_PATH, status__in=["READY", "RUNNING"]):
        version_id = (task.args_kwargs.get("args") or [None])[0]
        timed_out = task.started_at is not None and task.started_at < cutoff
        if task.status == "RUNNING" and (sole_worker or timed_out or _worker_gone(task.worker_ids)):
            task.set_failed(IndexingInterruptedError(f"worker stopped while indexing version {version_id}"))
            abandoned += 1
        elif isinstance(version_id, int):
            busy.add(version_id)
    return abandoned, busy


def _versions_to_finish(document: Document) -> list[DocumentVersion]:
    """What an interrupted run of ``document`` was doing: its latest version, and the live one if that is being re-embedded."""
    latest = document.versions.order_by("-number").first()
    if latest is None:
        return []
    # Live: an in-place re-embed was interrupted. Never indexed: a new version (or a retry of a failed one) was.
    if latest.pk == document.live_version_id or latest.indexed_at is None:
        return [latest]
    return []


def indexing_requeue(*, sole_worker: bool = False) -> RequeueReport:
    """Queue again the documents left 「索引作成中」 (or 待機中) with nothing queued or running for them.

    Safe to run while other workers run: a version with a queued or running
    task is left alone (unless ``sole_worker`` says no other worker exists).
    A version already tried ``RAG_INDEX_MAX_ATTEMPTS`` times is marked failed
    instead, so a file that kills its worker cannot loop forever.
    """
    from documents.services import version_fail, version_queue

    report = RequeueReport()
    busy: set[int] = set()
    if _uses_task_table():
        report.abandoned_tasks, busy = _abandon_running_tasks(sole_worker=sole_worker)
    stuck = Document.objects.filter(status__in=[Document.Status.INDEXING, Document.Status.PENDING]).order_by("pk")
    for document in stuck:
        versions = _versions_to_finish(document)
        if not versions:  # nothing left to do: the status outlived its run
            Document.objects.filter(pk=document.pk).update(
                status=Document.Status.READY if document.live_version_id else Document.Status.FAILED
            )
            continue
        for version in versions:
            if version.pk in busy:
                continue
            if version.index_attempts >= settings.RAG_INDEX_MAX_ATTEMPTS:
                version_fail(version=version, exc=IndexingInterruptedError())
                report.failed.append(str(version))
            else:
                version_queue(version=version)
                report.requeued.append(str(version))
    return report


# --- checking and repairing the indexes ------------------------------------------


@dataclass
class IndexCheck:
    drifts: list[DocumentDrift]
    filenames: dict[int, str]
    live_chunks: int
    dense_entries: int
    keyword_entries: int

    @property
    def clean(self) -> bool:
        return not self.drifts


def _live_chunks() -> dict[int, LiveChunk]:
    rows = (
        Chunk.objects.filter(document__live_version=F("version"))
        .values_list("pk", "document_id", "version_id", "heading_path", "text", "document__title")
        .iterator(chunk_size=2000)
    )
    return {
        pk: LiveChunk(document_id=doc, version_id=ver, keyword_body=segment(f"{title} {heading} {text}"))
        for pk, doc, ver, heading, text, title in rows
    }


def _in_flight_versions() -> set[int]:
    """Versions being indexed now: their entries are expected to be partial."""
    return set(
        DocumentVersion.objects.filter(
            document__status__in=[Document.Status.INDEXING, Document.Status.PENDING], indexed_at__isnull=True
        ).values_list("pk", flat=True)
    )


def index_check() -> IndexCheck:
    """Compare the live chunks with the keyword and dense indexes (reads only)."""
    live = _live_chunks()
    dense_index = DenseIndex(live_collection())
    dense = {cid: DenseEntry(document_id=doc, version_id=ver) for cid, doc, ver in dense_index.entries()}
    keyword = {cid: KeywordEntry(version_id=ver, body=body) for cid, ver, body in live_keyword_index().entries()}
    version_documents = dict(DocumentVersion.objects.values_list("pk", "document_id"))
    outdated = set(
        DocumentVersion.objects.filter(pk__in={c.version_id for c in live.values()})
        .exclude(embedding_model=EMBEDDING_MODEL_NAME)
        .values_list("pk", flat=True)
    )
    drifts = compare(
        live=live,
        dense=dense,
        keyword=keyword,
        in_flight_versions=_in_flight_versions(),
        version_documents=version_documents,
        outdated_versions=outdated,
    )
    filenames = dict(
        Document.objects.filter(pk__in=[d.document_id for d in drifts if d.document_id]).values_list("pk", "filename")
    )
    return IndexCheck(
        drifts=drifts,
        filenames=filenames,
        live_chunks=len(live),
        dense_entries=len(dense),
        keyword_entries=len(keyword),
    )


@dataclass
class IndexRepair:
    reindexed: list[str] = field(default_factory=list)
    removed_dense: int = 0
    removed_keyword: int = 0
    failed: list[str] = field(default_factory=list)


def index_repair(check: IndexCheck) -> IndexRepair:
    """Fix what ``check`` found: re-index live versions with missing or stale entries, drop extra entries.

    Re-indexing runs here and now (not through the workers) and keeps chunk
    ids, so readers see the old entries or the new ones throughout.
    """
    from documents.services import versions_index

    repair = IndexRepair()
    dense, keyword = DenseIndex(live_collection()), live_keyword_index()
    extra_dense = [cid for d in check.drifts for cid in d.dense_extra]
    extra_keyword = [cid for d in check.drifts for cid in d.keyword_extra]
    for i in range(0, len(extra_dense), 500):
        dense.delete(ids=extra_dense[i : i + 500])
    for i in range(0, len(extra_keyword), 500):
        keyword.delete_chunks(extra_keyword[i : i + 500])
    repair.removed_dense, repair.removed_keyword = len(extra_dense), len(extra_keyword)
    document_ids = [d.document_id for d in check.drifts if d.needs_reindex and d.document_id]
    for document in Document.objects.filter(pk__in=document_ids).select_related("live_version__document"):
        if document.live_version is None:
            continue
        versions_index(versions=[document.live_version])
        document.refresh_from_db()
        (repair.failed if document.status == Document.Status.FAILED else repair.reindexed).append(document.filename)
    announce_change()
    return repair


# --- the health check --------------------------------------------------------------


@dataclass(frozen=True)
class DenseCount:
    ok: bool
    dense_entries: int
    live_chunks: int
    in_flight_chunks: int


def dense_count_check() -> DenseCount:
    """Does the dense index hold about as many vectors as there are live chunks? (two counts: cheap)

    Between the live count and the live count plus the chunks of versions being
    indexed is fine; fewer means lost vectors (a deleted Chroma directory), more
    means entries nobody cleaned up.
    """
    live = Chunk.objects.filter(document__live_version=F("version")).count()
    in_flight = Chunk.objects.filter(version_id__in=_in_flight_versions()).count()
    entries = DenseIndex(live_collection()).count()
    return DenseCount(
        ok=live <= entries <= live + in_flight, dense_entries=entries, live_chunks=live, in_flight_chunks=in_flight
    )
