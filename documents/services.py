"""Document workflows: ingest (upload or replace), index, re-index, delete.

The reader-side guarantee: a document's live version changes only after the
new version is fully indexed in both indexes; any failure before that leaves
the old version live and answering, and marks the document failed with the reason.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import IntegrityError, close_old_connections, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from documents.chunking import ChunkSpan, chunk_document
from documents.embeddings import EMBEDDING_MODEL_NAME
from documents.failures import DenseIndexUnavailableError, failure_reason
from documents.filenames import clean_filename
from documents.indexing import IndexItem, IndexStats, index_items, remove_versions
from documents.keyword_index import live_keyword_index
from documents.models import Chunk, Document, DocumentVersion
from documents.parsing import ParsedDocument, ParseError, parse_file
from documents.selectors import document_named
from documents.vectorstore import DenseIndex, announce_change, live_collection
from ragportal.database_unavailable import DATABASE_UNAVAILABLE_ERRORS, is_database_unavailable

log = logging.getLogger(__name__)


def _dense() -> DenseIndex:
    return DenseIndex(live_collection())


def _parse(filename: str, data: bytes) -> ParsedDocument:
    try:
        return parse_file(
            filename,
            data,
            max_bytes=settings.RAG_MAX_UPLOAD_MB * 1024 * 1024,
            max_chars=settings.RAG_MAX_EXTRACTED_CHARS,
        )
    except ParseError as exc:
        raise ValidationError(exc.user_message, code=exc.code) from exc


def document_ingest(
    *,
    owner,  # noqa: ANN001
    filename: str,
    data: bytes,
    title: str = "",
    groups: Iterable[Group] | None = None,
    document: Document | None = None,
    index: bool = True,
) -> Document:
    """Upload a new document, or (with ``document``) a new version of an existing one.

    With ``index=False`` the new version is stored but not indexed: the caller
    indexes it (with others, in one batch) through :func:`versions_index`.

    Raises ``ValidationError`` with a message for the uploader on bad input
    (empty, unsupported, too large, no text layer, corrupt, undecodable, a file
    name too long or another document already uses); nothing is stored then,
    not even a directory. The name is stored and compared as
    ``documents.filenames.clean_filename`` makes it (NFC), so the NFC and NFD
    spellings of one name are one document. A file byte-identical to the
    latest version creates no new version. Indexing runs through the tasks
    API: with the database backend (the default) the document is returned
    「索引作成中」 and a worker indexes it; with the immediate backend it has
    finished on return.
    """
    filename = clean_filename(filename)
    parsed = _parse(filename, data)
    spans = _chunk(parsed)
    sha256 = hashlib.sha256(data).hexdigest()

    with transaction.atomic():
        if document is None:
            title = title or _title_from(parsed.text, filename)
            document = _document_create(owner=owner, filename=filename, title=title, groups=groups)
        else:
            document = _document_lock(document, groups=groups)
            if _latest_sha256(document) == sha256:
                return document
            if title:
                document.title = title[:255]
        version = _version_add(
            document, owner=owner, filename=filename, data=data, parsed=parsed, spans=spans, sha256=sha256
        )

    if index:
        _enqueue(version.pk)
    document.refresh_from_db()
    return document


def version_queue(*, version: DocumentVersion) -> None:
    """Queue ``version`` for indexing again (after its worker died); the document shows as indexing."""
    Document.objects.filter(pk=version.document_id).update(status=Document.Status.INDEXING, status_message="")
    _enqueue(version.pk)


def version_fail(*, version: DocumentVersion, exc: Exception) -> None:
    """Give up on indexing ``version``: record why in words; the live version (if another) keeps answering."""
    try:
        dense: DenseIndex | None = _dense()
    except DenseIndexUnavailableError:  # its entries are filtered out by version until a check_index --repair
        dense = None
    _index_failed(version, exc, dense=dense, keyword=live_keyword_index())


def _enqueue(version_id: int) -> None:
    """Hand ``version_id`` to the indexing workers (with the immediate backend: index it now)."""
    from documents.tasks import index_version_task

    index_version_task.enqueue(version_id)


def _chunk(parsed: ParsedDocument) -> list[ChunkSpan]:
    """The chunks of a parsed file (sizes from RAG_CHUNK_SIZE and RAG_CHUNK_OVERLAP).

    Raises ``ValidationError`` when the file yields more than
    ``RAG_MAX_CHUNKS_PER_FILE`` chunks: each costs embedding time, so a file
    too long to index in reasonable time is refused before anything is stored.
    """
    spans = chunk_document(parsed, max_chars=settings.RAG_CHUNK_SIZE, overlap=settings.RAG_CHUNK_OVERLAP)
    if len(spans) > settings.RAG_MAX_CHUNKS_PER_FILE:
        raise ValidationError(
            _(
                "文書が長すぎるため登録できません（%(count)s 個の区画に分かれ、上限は %(limit)s 個です）。"
                "ファイルを章ごとなどに分割してアップロードしてください。"
            )
            % {"count": f"{len(spans):,}", "limit": f"{settings.RAG_MAX_CHUNKS_PER_FILE:,}"},
            code="too_many_chunks",
        )
    return spans


def _document_create(*, owner, filename: str, title: str, groups: Iterable[Group] | None) -> Document:  # noqa: ANN001
    """A new document named ``filename``, readable by ``groups``; a ``ValidationError`` when the name is taken.

    The name is checked first, and again by the unique constraint: of two
    uploads of one name at once, the second gets the same message.
    """
    duplicate = ValidationError(
        _("「%(name)s」という名前の文書は既にあります。新しい版として差し替えるか、別の名前にしてください。")
        % {"name": filename},
        code="duplicate_filename",
    )
    if document_named(filename) is not None:
        raise duplicate
    try:
        with transaction.atomic():
            document = Document.objects.create(title=title[:255], filename=filename, owner=owner)
    except IntegrityError:
        raise duplicate from None
    if groups is not None:
        document.groups.set(groups)
    return document


def _document_lock(document: Document, *, groups: Iterable[Group] | None) -> Document:
    """``document`` re-read and locked for a new version, with ``groups`` (when given) as its readers.

    Access changes apply even when the upload turns out to be unchanged.
    """
    document = Document.objects.select_for_update().get(pk=document.pk)
    if groups is not None:
        document.groups.set(groups)
    return document


def _latest_sha256(document: Document) -> str | None:
    """The checksum of ``document``'s latest version (``None`` without one): an identical upload adds no version."""
    latest = document.versions.order_by("-number").first()
    return latest.sha256 if latest is not None else None


def _version_add(
    document: Document,
    *,
    owner,  # noqa: ANN001
    filename: str,
    data: bytes,
    parsed: ParsedDocument,
    spans: list[ChunkSpan],
    sha256: str,
) -> DocumentVersion:
    """Store the next version of ``document`` with its file and chunks; the document (and its title) is saved as indexing.

    The version is not indexed yet: until it is, the live version keeps answering.
    """
    number = (document.versions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    version = DocumentVersion(
        document=document,
        number=number,
        original_name=filename,
        sha256=sha256,
        size=len(data),
        encoding=parsed.encoding,
        text=parsed.text,
        uploaded_by=owner,
    )
    version.file.save(filename, ContentFile(data), save=False)
    version.save()
    _chunks_store(version, spans)
    document.status = Document.Status.INDEXING
    document.status_message = ""
    document.save(update_fields=["title", "status", "status_message", "updated_at"])
    return version


def _chunks_store(version: DocumentVersion, spans: list[ChunkSpan]) -> None:
    """Store the version's chunks."""
    Chunk.objects.bulk_create(
        Chunk(
            version=version,
            document=version.document,
            ordinal=s.ordinal,
            heading_path=s.heading_path[:500],
            text=s.text,
            start=s.start,
            end=s.end,
        )
        for s in spans
    )


def _title_from(text: str, filename: str) -> str:
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:200]
    return filename


def _items(version: DocumentVersion) -> list[IndexItem]:
    return [
        IndexItem(
            chunk_id=c.pk,
            document_id=version.document_id,
            version_id=version.pk,
            heading_path=c.heading_path,
            text=c.text,
            title=version.document.title,
        )
        for c in version.chunks.defer("sentence_vectors").order_by("ordinal")
    ]


def version_index(*, version: DocumentVersion) -> None:
    """Index ``version`` and make it live; on failure keep the old live version and record why."""
    versions_index(versions=[version])


# A database locked past its timeout (or unreachable) while indexing: wait 1 s, 2 s, 4 s ... and run the
# indexing again, until the next wait would be longer than this; then each version fails with the reason.
INDEX_DATABASE_MAX_WAIT_S = 16.0


def versions_index(*, versions: list[DocumentVersion]) -> IndexStats:
    """Index several versions with their embeddings batched together, then make each live.

    Returns where the time went (documents.indexing.IndexStats; empty when
    nothing was embedded, e.g. a failed batch retried version by version).

    Safe against concurrent runs: the live version is re-read before any
    cleanup, an older version never replaces a newer live one, and a document
    deleted meanwhile leaves no entries behind. If the batch fails, each
    version is retried alone so one bad version cannot fail the others. A
    database that stops answering part-way is waited for and the run repeated
    (its half-written entries belong to these versions and are replaced).
    """
    wait = 1.0
    while True:
        try:
            return _versions_index_once(versions)
        except DATABASE_UNAVAILABLE_ERRORS as exc:
            if transaction.get_connection().in_atomic_block:
                raise  # the caller's transaction is broken: only the caller can start again
            if wait > INDEX_DATABASE_MAX_WAIT_S:
                for version in versions:
                    version_fail(version=version, exc=exc)
                return IndexStats()
            log.warning("database unavailable while indexing (%s); indexing again in %.0f s", exc, wait)
            close_old_connections()
            time.sleep(wait)
            wait *= 2


def _versions_index_once(versions: list[DocumentVersion]) -> IndexStats:
    """One run of :func:`versions_index`; a database that cannot be used now raises (nothing recorded)."""
    keyword = live_keyword_index()
    try:
        dense = _dense()
    except DenseIndexUnavailableError as exc:  # nothing was written: each version fails in words
        for version in versions:
            _index_failed(version, exc, dense=None, keyword=keyword)
        return IndexStats()
    Document.objects.filter(pk__in={v.document_id for v in versions}).update(
        status=Document.Status.INDEXING, status_message=""
    )
    DocumentVersion.objects.filter(pk__in=[v.pk for v in versions]).update(chunks_embedded=0)
    items = {v.pk: _items(v) for v in versions}
    for version in versions:
        if not items[version.pk]:
            _index_failed(version, ValidationError(_("索引にする本文がありません。")), dense=dense, keyword=keyword)
    ready = [v for v in versions if items[v.pk]]
    try:
        stats = index_items(
            [item for v in ready for item in items[v.pk]],
            dense=dense,
            keyword=keyword,
            sentences=_store_sentences,
            progress=_progress_recorder([(v.pk, len(items[v.pk])) for v in ready]),
        )
    except Exception as exc:  # any failure: the live versions must keep answering
        if is_database_unavailable(exc):
            raise  # versions_index waits and runs again
        if len(ready) == 1:
            _index_failed(ready[0], exc, dense=dense, keyword=keyword)
        else:
            for version in ready:
                versions_index(versions=[version])
        return IndexStats()
    started = time.perf_counter()
    for version in sorted(ready, key=lambda v: v.number):
        _go_live(version, dense=dense, keyword=keyword)
    stats.go_live_seconds = time.perf_counter() - started
    return stats


def _progress_recorder(sizes: list[tuple[int, int]]) -> Callable[[int, int], None]:
    """A progress callback for one batch of versions: records each version's embedded chunks for its owner's page.

    ``sizes`` lists (version id, chunk count) in the order the batch embeds them.
    """
    recorded: dict[int, int] = {}

    def record(done: int, total: int) -> None:
        start = 0
        for version_id, size in sizes:
            embedded = max(0, min(size, done - start))
            start += size
            if recorded.get(version_id) != embedded:
                DocumentVersion.objects.filter(pk=version_id).update(chunks_embedded=embedded)
                recorded[version_id] = embedded

    return record


def _store_sentences(rows: list[tuple[int, bytes]]) -> None:
    """Keep each chunk's sentence vectors on its row (documents.sentence_vectors)."""
    Chunk.objects.bulk_update([Chunk(pk=pk, sentence_vectors=data) for pk, data in rows], ["sentence_vectors"], batch_size=200)


def _live_version_id(document_id: int) -> int | None:
    return Document.objects.filter(pk=document_id).values_list("live_version_id", flat=True).first()


def _index_failed(version: DocumentVersion, exc: Exception, *, dense: DenseIndex | None, keyword) -> None:  # noqa: ANN001
    """Record why ``version`` failed and drop its entries, unless it is the live one (or the dense index is unreachable)."""
    log.error("indexing %s failed: %s", version, exc, exc_info=exc)
    if dense is not None and _live_version_id(version.document_id) != version.pk:
        try:
            remove_versions([version.pk], dense=dense, keyword=keyword)
        except Exception:  # best effort; entries are filtered out by version anyway
            log.exception("cleanup after indexing %s failed", version)
    # The owner reads this: words, never the raw error (which is in the log above).
    message = _("索引の作成に失敗しました: %(reason)s") % {"reason": failure_reason(exc)}
    DocumentVersion.objects.filter(pk=version.pk).update(error=message)
    Document.objects.filter(pk=version.document_id).update(status=Document.Status.FAILED, status_message=message)


def _go_live(version: DocumentVersion, *, dense: DenseIndex, keyword) -> None:  # noqa: ANN001
    """Make an indexed ``version`` live and drop the version it replaces from both indexes."""
    try:
        with transaction.atomic():
            document = (
                # of=("self",): PostgreSQL cannot lock the nullable side of the join to the live version.
                Document.objects.select_for_update(of=("self",))
                .select_related("live_version")
                .filter(pk=version.document_id)
                .first()
            )
            if document is None:  # deleted while we were indexing
                stale = version.pk
            elif document.live_version is not None and document.live_version.number > version.number:
                stale = version.pk  # a newer version went live meanwhile: this one is obsolete
                Document.objects.filter(pk=document.pk, status=Document.Status.INDEXING).update(
                    status=Document.Status.READY
                )
            else:
                stale = document.live_version_id if document.live_version_id != version.pk else None
                document.live_version = version
                document.status = Document.Status.READY
                document.status_message = ""
                document.save(update_fields=["live_version", "status", "status_message", "updated_at"])
                DocumentVersion.objects.filter(pk=version.pk).update(
                    indexed_at=timezone.now(), embedding_model=EMBEDDING_MODEL_NAME, error=""
                )
    except Exception as exc:  # report, keep the old version
        if is_database_unavailable(exc):
            raise  # the transaction rolled back: versions_index waits and runs again
        _index_failed(version, exc, dense=dense, keyword=keyword)
        return
    if stale:
        remove_versions([stale], dense=dense, keyword=keyword)
    announce_change()


def document_reindex(*, document: Document, background: bool = True) -> None:
    """Re-embed the live version in place (same chunk ids: readers see old or new, never none).

    A document whose latest version failed gets its live version re-embedded
    and the failed version retried. With ``background`` the work goes to the
    indexing workers and the document shows as indexing until it is done;
    without, it is done before this returns (the ``reindex`` command).
    """
    latest = document.versions.order_by("-number").first()
    if latest is None:
        raise ValidationError(_("この文書にはまだ版がありません。"), code="no_version")
    version_ids = [latest.pk]
    if document.live_version_id and document.live_version_id != latest.pk:
        version_ids.insert(0, document.live_version_id)  # re-embed what is answering now
    if not background:
        for version_id in version_ids:
            version_index(version=DocumentVersion.objects.select_related("document").get(pk=version_id))
        return
    Document.objects.filter(pk=document.pk).update(status=Document.Status.INDEXING, status_message="")
    for version_id in version_ids:
        _enqueue(version_id)


def document_delete(*, document: Document) -> None:
    """Remove the document from both indexes, then from the database (with its files)."""
    version_ids = list(document.versions.values_list("pk", flat=True))
    remove_versions(version_ids, dense=_dense(), keyword=live_keyword_index())
    announce_change()
    files = [v.file for v in document.versions.all()]
    document.delete()
    for f in files:
        try:
            f.delete(save=False)
        except OSError:
            log.warning("could not delete file %s", f.name)
