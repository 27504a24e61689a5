"""Document workflows: ingest (upload or replace), index, re-index, delete.

The reader-side guarantee: a document's live version changes only after the
new version is fully indexed in both indexes; any failure before that leaves
the old version live and answering, and marks the document failed with the reason.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import IntegrityError, OperationalError, close_old_connections, transaction
from django.db.models import F, Max, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

import numpy as np

from documents.body_text import body_chars
from documents.bounded_parsing import ParseAbortedError, ParseBudget, parse_file_bounded
from documents.chunking import ChunkSpan, chunk_document
from documents.embeddings import EMBEDDING_MODEL_NAME
from documents.failures import DenseIndexUnavailableError, failure_reason
from documents.filenames import clean_filename, document_name, split_document_name
from documents.indexing import IndexingCancelledError, IndexItem, IndexStats, index_items, remove_versions
from documents.keyword_index import KeywordIndex, live_keyword_index
from documents.models import Chunk, Document, DocumentVersion
from documents.parsing import ParsedDocument, ParseError, check_upload
from documents.selectors import document_named, visible_documents
from documents.sentence_vectors import pack, unpack, vectors_for
from documents.signals import live_documents_changed
from documents.vectorstore import DenseIndex, announce_change, live_collection
from documents.vocabulary_store import vocabulary_record
from ragportal.database_unavailable import DATABASE_UNAVAILABLE_ERRORS, is_database_unavailable

log = logging.getLogger(__name__)


def _dense() -> DenseIndex:
    return DenseIndex(live_collection())


def _parse_in_request(filename: str, data: bytes) -> ParsedDocument | None:
    """The parsed upload, or ``None`` when the indexing worker is to parse it; ``ValidationError`` for a bad file.

    The checks that cost nothing come first, for every upload. A file over
    ``RAG_PARSE_INLINE_MAX_KB``, or one that takes longer than
    ``RAG_PARSE_INLINE_TIMEOUT_S`` to parse, is parsed by the worker: a web
    request never waits longer than that, whatever the file holds.
    """
    try:
        check_upload(filename, data, max_bytes=settings.RAG_MAX_UPLOAD_MB * 1024 * 1024)
        if len(data) > settings.RAG_PARSE_INLINE_MAX_KB * 1024:
            return None
        return _parse_bounded(filename, data, seconds=settings.RAG_PARSE_INLINE_TIMEOUT_S)
    except ParseAbortedError as exc:
        if exc.reason == "time":
            return None  # the worker has more time; the request has waited long enough
        raise _parse_refusal(exc) from exc
    except ParseError as exc:
        raise _parse_refusal(exc) from exc


def _parse_bounded(filename: str, data: bytes, *, seconds: float) -> ParsedDocument:
    return parse_file_bounded(
        filename,
        data,
        budget=ParseBudget(seconds=seconds, memory_bytes=settings.RAG_PARSE_MAX_MEMORY_MB * 1024 * 1024),
        max_bytes=settings.RAG_MAX_UPLOAD_MB * 1024 * 1024,
        max_chars=settings.RAG_MAX_EXTRACTED_CHARS,
    )


def _parse_refusal(exc: ParseError | ParseAbortedError) -> ValidationError:
    """Why a file cannot become a document, in words for the uploader."""
    if isinstance(exc, ParseError):
        return ValidationError(exc.user_message, code=exc.code)
    if exc.reason == "time":
        message = _(
            "ファイルの解析に時間がかかりすぎたため中止しました（上限 %(seconds)s 秒）。"
            "ファイルを分割するか、別の形式で保存し直してください。"
        ) % {"seconds": f"{exc.budget.seconds:g}"}
    elif exc.reason == "memory":
        message = _(
            "ファイルの解析に必要なメモリが上限（%(mb)s MB）を超えたため中止しました。"
            "ファイルを分割するか、別の形式で保存し直してください。"
        ) % {"mb": f"{exc.budget.memory_bytes // (1024 * 1024):,}"}
    else:
        message = _("ファイルの解析中に処理が異常終了したため中止しました。ファイルが壊れていないか確かめてください。")
    return ValidationError(message, code=f"parse_{exc.reason}")


@dataclass(frozen=True)
class IngestResult:
    """What :func:`version_ingest` did: the document, and its new version (``None``: the bytes were unchanged)."""

    document: Document
    version: DocumentVersion | None
    created: bool  # the document itself is new

    @property
    def changed(self) -> bool:
        return self.version is not None


def document_ingest(
    *,
    owner: User,
    filename: str,
    data: bytes,
    title: str = "",
    groups: Iterable[Group] | None = None,
    document: Document | None = None,
    folder: str = "",
    index: bool = True,
) -> Document:
    """:func:`version_ingest`, returning the document only."""
    return version_ingest(
        owner=owner,
        filename=filename,
        data=data,
        title=title,
        groups=groups,
        document=document,
        folder=folder,
        index=index,
    ).document


def version_ingest(
    *,
    owner: User,
    filename: str,
    data: bytes,
    title: str = "",
    groups: Iterable[Group] | None = None,
    document: Document | None = None,
    folder: str = "",
    index: bool = True,
) -> IngestResult:
    """Upload a new document, or (with ``document``) a new version of an existing one.

    A new document is named ``folder/filename`` (``documents.filenames.document_name``:
    only the file name's last component counts, the folder may not climb out);
    with ``document``, ``folder`` is ignored and the name stays. With
    ``index=False`` the new version is stored but not indexed: the caller
    indexes it (with others, in one batch) through :func:`versions_index`.

    Raises ``ValidationError`` with a message for the uploader on bad input
    (empty, unsupported, too large, no text layer, corrupt, undecodable, too
    slow or too costly to parse, a name too long, a bad folder, or a name
    another document already uses compared as ``documents.filenames.name_key``
    does: NFKC, case-folded); nothing is stored then, not even a directory.
    A large file (see ``_parse_in_request``) is stored unparsed and the
    indexing task parses it: its refusal, if any, is the document's failure
    reason, and the live version keeps answering; a new document is titled by
    its file name until then. A file byte-identical to the latest version
    creates no new version (``version`` is ``None``). The title is ``title``,
    else the file's own (front matter, first heading, first line), else the
    file name. Indexing runs through the tasks API:
    with the database backend (the default) the document is returned
    「索引作成中」 and a worker indexes it; with the immediate backend it has
    finished on return.
    """
    name = document_name(filename, folder=folder) if document is None else clean_filename(filename)
    parsed = _parse_in_request(name, data)
    spans = _chunk(parsed) if parsed is not None else []
    sha256 = hashlib.sha256(data).hexdigest()

    with transaction.atomic():
        if document is None:
            title = title or (_title_from(parsed, name) if parsed is not None else split_document_name(name)[1])
            document = _document_create(owner=owner, filename=name, title=title, groups=groups)
            created = True
        else:
            created = False
            document = _document_lock(document, groups=groups)
            if _latest_sha256(document) == sha256:
                return IngestResult(document=document, version=None, created=False)
            if title:
                document.title = title[:255]
        version = _version_add(
            document, owner=owner, filename=name, data=data, parsed=parsed, spans=spans, sha256=sha256
        )

    if index:
        _enqueue(version.pk)
    document.refresh_from_db()
    return IngestResult(document=document, version=version, created=created)


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


def _document_create(*, owner: User, filename: str, title: str, groups: Iterable[Group] | None) -> Document:
    """A new document named ``filename``, readable by ``groups``; a ``ValidationError`` when the name is taken.

    The name is checked first, and again by the unique constraint: of two
    uploads of one name at once, the second is refused too.
    """
    existing = document_named(filename)
    if existing is not None:
        raise _duplicate(filename, visible=visible_documents(owner).filter(pk=existing.pk).exists())
    try:
        with transaction.atomic():
            document = Document.objects.create(title=title[:255], filename=filename, owner=owner)
    except IntegrityError:
        raise _duplicate(filename, visible=False) from None
    if groups is not None:
        document.groups.set(groups)
    return document


def _duplicate(filename: str, *, visible: bool) -> ValidationError:
    """The refusal of a name already taken.

    Only an uploader who may read the document that holds the name is told
    that a document has it (and may replace it). Anyone else gets the words
    for a name that cannot be used, which do not say that a document they
    cannot see exists (README: "Document names").
    """
    if visible:
        message = _("「%(name)s」という名前の文書は既にあります。新しい版として差し替えるか、別の名前にしてください。")
    else:
        message = _("「%(name)s」という名前は使えません。別の名前にするか、フォルダを指定してください。")
    return ValidationError(message % {"name": filename}, code="duplicate_filename")


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
    owner: User,
    filename: str,
    data: bytes,
    parsed: ParsedDocument | None,
    spans: list[ChunkSpan],
    sha256: str,
) -> DocumentVersion:
    """Store the next version of ``document`` with its file and chunks; the document (and its title) is saved as indexing.

    Without ``parsed`` the version is stored to be parsed by the indexing task.
    The version is not indexed yet: until it is, the live version keeps answering.
    """
    number = (document.versions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    version = DocumentVersion(
        document=document,
        number=number,
        original_name=filename,
        sha256=sha256,
        size=len(data),
        encoding=parsed.encoding if parsed is not None else "",
        text=parsed.text if parsed is not None else "",
        body_chars=_body_chars(parsed) if parsed is not None else None,
        needs_parse=parsed is None,
        uploaded_by=owner,
    )
    version.file.save(split_document_name(filename)[1], ContentFile(data), save=False)  # folders are in the name only
    version.save()
    _chunks_store(version, spans)
    document.status = Document.Status.INDEXING
    document.status_message = ""
    document.save(update_fields=["title", "status", "status_message", "updated_at"])
    return version


def _chunks_store(version: DocumentVersion, spans: list[ChunkSpan]) -> None:
    """Store the version's chunks (new rows hold no sentence vectors: see :func:`chunk_sentence_vectors`)."""
    forget_stored_sentence_vectors()
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


def _body_chars(parsed: ParsedDocument) -> int:
    """How much the file says outside headings and links (the near-empty warning's measure)."""
    return body_chars(parsed.text, parsed.headings)


def _title_from(parsed: ParsedDocument, name: str) -> str:
    """The title a file gives itself: its front matter's, (Markdown) its first heading, its first line; else its file name.

    Only Markdown marks its headings reliably; in a .docx or PDF the first
    heading may be a chapter while the first line is the document's title.
    """
    if parsed.title:
        return parsed.title[:200]
    if parsed.kind == "md" and parsed.headings:
        return parsed.headings[0].title[:200]
    for line in parsed.text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:200]
    return split_document_name(name)[1]


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


def versions_index(
    *, versions: list[DocumentVersion], progress: Callable[[int, int], None] | None = None
) -> IndexStats:
    """Index several versions with their embeddings batched together, then make each live.

    ``progress`` (when given) hears ``(chunks done, chunks total)`` after each
    stored batch, besides each version's own count for its owner's page.
    Returns where the time went (documents.indexing.IndexStats; empty when
    nothing was embedded, e.g. a failed batch retried version by version).

    Safe against concurrent runs: the live version is re-read before any
    cleanup, an older version never replaces a newer live one, and a version
    that stops being wanted (its document deleted, or a newer version uploaded
    before it went live) is cancelled between two batches of embeddings and
    leaves nothing behind (:func:`_index_cancelled`). If the batch fails, each
    version is retried alone so one bad version cannot fail the others. A
    database that stops answering part-way is waited for and the run repeated
    (its half-written entries belong to these versions and are replaced).
    Versions stored unparsed are parsed first; one that cannot be fails with the reason.
    """
    versions = _versions_parsed(versions)
    wait = 1.0
    while True:
        try:
            return _versions_index_once(versions, progress=progress)
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


def _versions_parsed(versions: list[DocumentVersion]) -> list[DocumentVersion]:
    """``versions`` ready to be indexed: those stored unparsed are parsed now, and those that fail are left out."""
    ready = []
    for version in versions:
        if version.needs_parse:
            try:
                _version_parse(version)
            except (ValidationError, OSError) as exc:  # a bad file, or its stored copy cannot be read
                version_fail(version=version, exc=exc)
                continue
        ready.append(version)
    return ready


def _version_parse(version: DocumentVersion) -> None:
    """Parse a version's stored file (within ``RAG_PARSE_TIMEOUT_S``) and store its text and chunks.

    Raises ``ValidationError`` with the uploader's reason when the file cannot
    become a document. A new document still titled by its file name takes its
    title from the text, as an upload parsed in the request does.
    """
    with version.file.open("rb") as stored:
        data = stored.read()
    try:
        parsed = _parse_bounded(version.original_name, data, seconds=settings.RAG_PARSE_TIMEOUT_S)
    except (ParseError, ParseAbortedError) as exc:
        raise _parse_refusal(exc) from exc
    spans = _chunk(parsed)
    with transaction.atomic():
        DocumentVersion.objects.filter(pk=version.pk).update(
            text=parsed.text, encoding=parsed.encoding, body_chars=_body_chars(parsed), needs_parse=False
        )
        _chunks_store(version, spans)
        if version.number == 1:
            placeholder = split_document_name(version.original_name)[1]
            Document.objects.filter(pk=version.document_id, title=placeholder[:255]).update(
                title=_title_from(parsed, version.original_name)[:255]
            )
    version.text, version.encoding, version.needs_parse = parsed.text, parsed.encoding, False
    version.body_chars = _body_chars(parsed)
    version.document.refresh_from_db(fields=["title"])  # the title goes into every chunk's embedding


def _versions_index_once(versions: list[DocumentVersion], *, progress: Callable[[int, int], None] | None) -> IndexStats:
    """One run of :func:`versions_index`; a database that cannot be used now raises (nothing recorded)."""
    keyword = live_keyword_index()
    try:
        dense = _dense()
    except DenseIndexUnavailableError as exc:  # nothing was written: each version fails in words
        for version in versions:
            _index_failed(version, exc, dense=None, keyword=keyword)
        return IndexStats()
    versions = _drop_unwanted(versions, dense=dense, keyword=keyword)
    if not versions:
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
            progress=_progress_recorder([(v.pk, len(items[v.pk])) for v in ready], also=progress),
            keep_going=lambda: _wanted({v.pk for v in ready}) == {v.pk for v in ready},
        )
        vocabulary_record(versions=ready)  # the terms the question side expands to (documents.vocabulary_store)
    except IndexingCancelledError as exc:
        # Ids, not names: the document may be gone.
        log.info("indexing version(s) %s: %s", ", ".join(str(v.pk) for v in ready), exc)
        rest = _drop_unwanted(ready, dense=dense, keyword=keyword)
        # Batched with a cancelled version: the rest is indexed again without it.
        return versions_index(versions=rest, progress=progress) if rest else IndexStats()
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


def _wanted(version_ids: set[int]) -> set[int]:
    """Those of ``version_ids`` still worth indexing: not deleted, and the live or the latest version of their document."""
    rows = list(
        DocumentVersion.objects.filter(pk__in=version_ids).values_list(
            "pk", "document_id", "number", "document__live_version_id"
        )
    )
    latest = dict(
        DocumentVersion.objects.filter(document_id__in={row[1] for row in rows})
        .order_by()
        .values("document_id")
        .annotate(latest=Max("number"))
        .values_list("document_id", "latest")
    )
    return {pk for pk, document_id, number, live_id in rows if pk == live_id or number == latest[document_id]}


def _drop_unwanted(
    versions: list[DocumentVersion], *, dense: DenseIndex, keyword: KeywordIndex
) -> list[DocumentVersion]:
    """``versions`` without those no longer wanted (:func:`_wanted`), which are cancelled."""
    wanted = _wanted({v.pk for v in versions})
    for version in versions:
        if version.pk not in wanted:
            _index_cancelled(version, dense=dense, keyword=keyword)
    return [v for v in versions if v.pk in wanted]


def _index_cancelled(version: DocumentVersion, *, dense: DenseIndex, keyword: KeywordIndex) -> None:
    """Leave nothing of ``version``, deleted or replaced while it was queued or being indexed.

    Its entries in both indexes go (this runs after the indexing's last write,
    so entries written while a deletion was under way go too). A version
    replaced before it ever went live goes from the database as well, with its
    chunks and file: nothing will index it again. The document's status is left
    to the indexing of the version that replaced it.
    """
    log.info("indexing version %s cancelled: its document was deleted or a newer version was uploaded", version.pk)
    remove_versions([version.pk], dense=dense, keyword=keyword)
    announce_change()
    with transaction.atomic():
        # Locked as _go_live locks it: a concurrent run cannot make this version live while it is removed.
        document = Document.objects.select_for_update().filter(pk=version.document_id).first()
        if document is None or document.live_version_id == version.pk:
            return
        replaced = DocumentVersion.objects.filter(pk=version.pk, indexed_at__isnull=True).first()
        if replaced is None:
            return
        replaced.delete()
    try:
        replaced.file.delete(save=False)
    except OSError:
        log.warning("could not delete file %s", replaced.file.name)


def _progress_recorder(
    sizes: list[tuple[int, int]], *, also: Callable[[int, int], None] | None = None
) -> Callable[[int, int], None]:
    """A progress callback for one batch of versions: records each version's embedded chunks for its owner's page.

    ``sizes`` lists (version id, chunk count) in the order the batch embeds them;
    ``also`` is called with the same arguments after the records are written.
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
        if also is not None:
            also(done, total)

    return record


# Chunk ids whose sentence vectors this process has written and committed. A chunk's text never
# changes under its id (re-embedding in place keeps the rows and their text, and nothing clears
# the vectors), so writing the row again would store the same matrix: an answer reads the vectors
# of its hits twice (the best-sentence check, then the meaning check) from rows read before the first write.
_vectors_stored: set[int] = set()
_vectors_stored_lock = threading.Lock()
# A bound on the memo (ids are small): past it, it starts again and a row may be written once more.
_VECTORS_STORED_MAX = 200_000


def forget_stored_sentence_vectors() -> None:
    """Forget which rows this process stored vectors on: call it wherever chunk rows are created or cleared.

    New rows may take ids that a rolled-back transaction handed out before (SQLite's
    sequence rolls back with it), and a row whose vectors were cleared needs them again.
    """
    with _vectors_stored_lock:
        _vectors_stored.clear()


def _remember_stored(chunk_ids: list[int]) -> None:
    with _vectors_stored_lock:
        if len(_vectors_stored) + len(chunk_ids) > _VECTORS_STORED_MAX:
            _vectors_stored.clear()
        _vectors_stored.update(chunk_ids)


def chunk_sentence_vectors(
    *, chunk_ids: Sequence[int], texts: Sequence[str], stored: Sequence[np.ndarray | None]
) -> list[np.ndarray]:
    """Sentence matrices of retrieved chunks (documents.sentence_vectors), made on first use and kept on their rows.

    ``stored``: what the rows held when they were read (None where nothing).
    A chunk's matrix is made the first time it is retrieved and written to its
    row once per process: a row this process already stored is not written
    again. Storing is a cache write, so when the database is busy (a long
    import holding SQLite's write lock) it is skipped and the next retrieval
    makes it again; a write rolled back with its transaction counts as never made.
    """

    def keep(positions: list[int], matrices: list[np.ndarray]) -> None:
        with _vectors_stored_lock:
            new = [(chunk_ids[i], m) for i, m in zip(positions, matrices) if chunk_ids[i] not in _vectors_stored]
        if not new:
            return
        try:
            Chunk.objects.bulk_update(
                [Chunk(pk=pk, sentence_vectors=pack(m)) for pk, m in new], ["sentence_vectors"], batch_size=200
            )
        except OperationalError:
            log.info("sentence vectors of %d chunks not stored (database busy)", len(new))
            return
        # At once outside a transaction; inside one, only when it commits.
        transaction.on_commit(lambda: _remember_stored([pk for pk, _m in new]))

    return vectors_for(list(texts), list(stored), keep=keep)


def sentence_vectors_pending() -> QuerySet[Chunk]:
    """Live chunks with no sentence vectors stored yet, oldest first."""
    return Chunk.objects.filter(
        version__document__live_version_id=F("version_id"), sentence_vectors__isnull=True
    ).order_by("pk")


def sentence_vectors_fill(*, batch: int) -> Iterator[tuple[int, int]]:
    """Embed and store the sentences of :func:`sentence_vectors_pending` chunks, ``batch`` chunks at a time.

    Yields (chunks done, chunks pending at the start) after each batch, so the caller can
    report or stop between batches. A row not written (the database busy) stays pending.
    """
    # Ids first: rows are written while the loop runs, so the filtered query would shift under it.
    ids = list(sentence_vectors_pending().values_list("pk", flat=True))
    done, step = 0, max(1, batch)
    for start in range(0, len(ids), step):
        done += len(stored_sentence_vectors(ids[start : start + step]))
        yield done, len(ids)


def stored_sentence_vectors(chunk_ids: Sequence[int]) -> dict[int, np.ndarray]:
    """Sentence matrices of the chunks ``chunk_ids`` by id (:func:`chunk_sentence_vectors`), their rows read in one query.

    Stored ones are read; missing ones are made now and stored. Chunks that are gone are left out.
    """
    rows = {
        pk: (text, data)
        for pk, text, data in Chunk.objects.filter(pk__in=chunk_ids).values_list("pk", "text", "sentence_vectors")
    }
    ids = [pk for pk in chunk_ids if pk in rows]
    texts = [rows[pk][0] for pk in ids]
    matrices = chunk_sentence_vectors(
        chunk_ids=ids, texts=texts, stored=[unpack(rows[pk][1], text) for pk, text in zip(ids, texts, strict=True)]
    )
    return dict(zip(ids, matrices, strict=True))


def _live_version_id(document_id: int) -> int | None:
    return Document.objects.filter(pk=document_id).values_list("live_version_id", flat=True).first()


def _index_failed(version: DocumentVersion, exc: Exception, *, dense: DenseIndex | None, keyword: KeywordIndex) -> None:
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


def _older_versions(version: DocumentVersion) -> list[int]:
    return list(
        DocumentVersion.objects.filter(document_id=version.document_id, number__lt=version.number).values_list(
            "pk", flat=True
        )
    )


def _go_live(version: DocumentVersion, *, dense: DenseIndex, keyword: KeywordIndex) -> None:
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
            stale: int | None
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
                # The older versions' keyword entries go with the switch, in its transaction: a worker
                # stopped or a database locked right after it cannot leave them behind a live version.
                keyword.delete_versions(_older_versions(version))
    except Exception as exc:  # report, keep the old version
        if is_database_unavailable(exc):
            raise  # the transaction rolled back: versions_index waits and runs again
        _index_failed(version, exc, dense=dense, keyword=keyword)
        return
    if stale == version.pk:
        remove_versions([stale], dense=dense, keyword=keyword)
    else:
        # Every older version's dense entries, not only the one just replaced: if a run was interrupted
        # after going live, the run again finds this version live already and must still remove them.
        remove_versions(_older_versions(version), dense=dense, keyword=keyword)
    announce_change()
    if stale != version.pk:  # this version is live (new, or re-embedded in place)
        live_documents_changed.send(sender=Document)


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
    """Remove the document from the database (with its keyword entries and files), then from the dense index.

    Raises ``DenseIndexUnavailableError``, with nothing removed, when the Chroma
    server cannot be reached. The database goes first: a worker indexing one of
    the versions sees it gone after its current batch, stops, and removes what
    it wrote (:func:`_index_cancelled`); what it wrote before is removed here.
    Should the server stop answering between the two steps, the document is
    still gone for every reader (searches only see live versions) and
    ``check_index --repair`` removes the entries left behind.
    """
    dense = _dense()
    dense.count()  # a server that does not answer: refused before anything changes
    keyword = live_keyword_index()
    versions = list(document.versions.defer("text"))
    name = document.filename
    with transaction.atomic():
        keyword.delete_versions([v.pk for v in versions])
        document.delete()
    try:
        remove_versions([v.pk for v in versions], dense=dense, keyword=keyword)
    except DenseIndexUnavailableError:
        log.error("%s deleted, but its dense entries remain until check_index --repair", name)
    announce_change()
    live_documents_changed.send(sender=Document)
    for f in (v.file for v in versions):
        try:
            f.delete(save=False)
        except OSError:
            log.warning("could not delete file %s", f.name)
