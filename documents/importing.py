"""Importing a folder tree of files as documents (used by import_documents and load_demo).

A document is named by its path within the import (``people-group/leave/_index.md``;
a file at the top keeps its bare name, ``attendance.md``), so equal file names in
different folders are different documents. Importing the same tree again adds a
version only for files whose bytes changed (the ingest service compares checksums).
Hidden files and folders (``.git``, ``.DS_Store``) are skipped.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.db.models import Count

from documents.filenames import document_name, split_document_name
from documents.indexing import IndexStats
from documents.models import Chunk, Document, DocumentVersion
from documents.parsing import SUPPORTED_EXTENSIONS
from documents.progress import ImportProgress
from documents.recovery import indexing_requeue
from documents.selectors import document_named
from documents.services import version_ingest, versions_index


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    resumed: list[str] = field(default_factory=list)  # stored by an interrupted run, not indexed yet: indexed now
    failed: list[tuple[str, str]] = field(default_factory=list)
    # Imported and live, but with a warning for the owner (document name, words).
    warnings: list[tuple[str, str]] = field(default_factory=list)
    ingest_seconds: float = 0.0  # reading, parsing, chunking and storing the new versions
    index_stats: IndexStats = field(default_factory=IndexStats)  # embedding them and making them live


def supported_files(directory: Path, *, recursive: bool = True, include: Sequence[str] = ()) -> list[Path]:
    """The importable files under ``directory`` (its subfolders too, unless not ``recursive``), sorted by path.

    Names starting with a dot, files and folders alike, are skipped. ``include``
    (folder paths below ``directory``) limits the walk to those folders.
    """
    found: list[Path] = []
    starts = [directory / folder for folder in include] if include else [directory]
    for folder, subfolders, files in (step for start in starts for step in os.walk(start)):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith(".")) if recursive else []
        found.extend(
            Path(folder) / name
            for name in files
            if not name.startswith(".") and Path(name).suffix.lower() in SUPPORTED_EXTENSIONS
        )
    return sorted(found, key=lambda p: p.relative_to(directory).parts)


def name_in_import(path: Path, root: Path) -> str:
    """The document name of ``path`` imported from ``root``: its path below ``root``, with forward slashes."""
    return path.relative_to(root).as_posix()


def import_file(
    path: Path,
    *,
    owner: User,
    groups: Iterable[Group] | None,
    report: ImportReport,
    name: str | None = None,
    index: bool = True,
) -> DocumentVersion | None:
    """Create the document ``name`` (default: the file's name), or add a version when the bytes changed.

    ``name`` may hold folders (``leave/_index.md``). Returns the new version
    (``None`` when nothing new was stored; refusals go to ``report.failed``).
    With ``index=False`` the caller indexes the new versions in one batch.
    """
    raw = name or path.name
    folder, filename = split_document_name(raw)
    try:
        existing = document_named(
            document_name(filename, folder=folder)
        )  # as stored: a Mac's NFD 「ガ.md」 is 「ガ.md」
        result = version_ingest(
            owner=owner,
            filename=filename,
            folder=folder,
            data=path.read_bytes(),
            groups=groups,
            document=existing,
            index=index,
        )
    except ValidationError as exc:
        report.failed.append((raw, " ".join(exc.messages)))
        return None
    if result.version is None:
        unfinished = _unfinished_version(result.document)
        if unfinished is not None:
            report.resumed.append(result.document.filename)
            return unfinished
        report.unchanged.append(result.document.filename)
    else:
        (report.created if result.created else report.updated).append(result.document.filename)
    return result.version


def _unfinished_version(document: Document) -> DocumentVersion | None:
    """``document``'s latest version if a run stored it and stopped before indexing it (else ``None``).

    A failed version is not retried here: its reason stands until the file changes.
    """
    if document.status not in (Document.Status.PENDING, Document.Status.INDEXING):
        return None
    latest = document.versions.order_by("-number").first()
    return latest if latest is not None and latest.indexed_at is None else None


def import_paths(
    paths: Iterable[Path],
    *,
    owner: User,
    groups: Iterable[Group] | None = None,
    root: Path | None = None,
    progress: ImportProgress | None = None,
    queue: bool = False,
) -> ImportReport:
    """Import files (named by their path below ``root``, or their bare name), then index the new versions.

    By default they are indexed here, a group of files at a time
    (:func:`index_new_versions`). With ``queue`` each is handed to the indexing
    workers as it is stored (a task per document: N workers index one import in
    parallel), what an interrupted run left is queued again, and the call
    returns once the workers have indexed (or failed) them all.
    """
    report = ImportReport()
    paths = list(paths)
    started = time.perf_counter()
    new_versions = []
    for done, path in enumerate(paths, start=1):
        name = name_in_import(path, root) if root is not None else path.name
        version = import_file(path, owner=owner, groups=groups, report=report, name=name, index=queue)
        if version is not None:
            new_versions.append(version)
        if progress is not None:
            progress.reading(done, len(paths))
    report.ingest_seconds = time.perf_counter() - started
    if queue:
        indexing_requeue()  # the resumed versions whose task died with its worker
        wait_for_indexing(new_versions, report=report, progress=progress)
    else:
        index_new_versions(new_versions, report=report, progress=progress)
    return report


def index_new_versions(
    versions: list[DocumentVersion], *, report: ImportReport, progress: ImportProgress | None = None
) -> None:
    """Index ``versions`` (in this order), a group at a time; the documents that failed go to ``report.failed``."""
    if not versions:
        return
    counts = _chunk_counts(versions)
    if progress is not None:
        progress.indexing([counts.get(v.pk, 0) for v in versions])
    total, done = sum(counts.values()), 0
    for group in _groups(versions, counts):
        offset = done

        def embedded(n: int, _total: int, offset: int = offset) -> None:
            if progress is not None:
                progress.embedded(offset + n, total)

        report.index_stats += versions_index(versions=group, progress=embedded)
        done += sum(counts.get(v.pk, 0) for v in group)
    _report_failed(versions, report)


def _chunk_counts(versions: list[DocumentVersion]) -> dict[int, int]:
    return dict(
        Chunk.objects.filter(version__in=versions).values("version").annotate(n=Count("pk")).values_list("version", "n")
    )


def _groups(versions: list[DocumentVersion], counts: dict[int, int]) -> Iterator[list[DocumentVersion]]:
    """``versions`` in consecutive groups of about ``RAG_IMPORT_GROUP_CHUNKS`` chunks (a larger file alone).

    Embeddings are still batched across the files of a group, and a run killed
    part-way loses at most one group's work.
    """
    group: list[DocumentVersion] = []
    size = 0
    for version in versions:
        group.append(version)
        size += counts.get(version.pk, 0)
        if size >= settings.RAG_IMPORT_GROUP_CHUNKS:
            yield group
            group, size = [], 0
    if group:
        yield group


def _report_failed(versions: list[DocumentVersion], report: ImportReport) -> None:
    failed: dict[str, str] = {}
    for version in versions:
        version.document.refresh_from_db()
        if version.document.status == Document.Status.FAILED:
            failed[version.document.filename] = version.document.status_message
            continue
        try:
            version.refresh_from_db(fields=["body_chars"])  # a large file was parsed by the indexing
        except DocumentVersion.DoesNotExist:
            continue  # replaced by a newer version of the same import (its indexing was cancelled)
        if version.near_empty_warning:
            report.warnings.append((version.document.filename, version.near_empty_warning))
    report.failed.extend(failed.items())


def wait_for_indexing(
    versions: list[DocumentVersion],
    *,
    report: ImportReport,
    progress: ImportProgress | None = None,
    poll_s: float = 2.0,
) -> None:
    """Until the workers have indexed or failed each of ``versions`` (progress: chunks embedded, read every ``poll_s``)."""
    if not versions:
        return
    ids = [v.pk for v in versions]
    if progress is not None:
        counts = _chunk_counts(versions)
        progress.indexing([counts.get(pk, 0) for pk in ids])
    pending = [Document.Status.PENDING, Document.Status.INDEXING]
    while True:
        rows = (
            DocumentVersion.objects.filter(pk__in=ids)
            .annotate(n=Count("chunks"))
            .values_list("n", "chunks_embedded", "indexed_at", "document__status")
        )
        done = sum(n if indexed_at is not None else embedded for n, embedded, indexed_at, _ in rows)
        if progress is not None:
            progress.embedded(done, sum(n for n, *_ in rows))  # a file parsed by its worker adds its chunks late
        if not any(status in pending for *_, status in rows):
            break
        time.sleep(poll_s)
    _report_failed(versions, report)


def import_directory(
    directory: Path,
    *,
    owner: User,
    groups: Iterable[Group] | None = None,
    progress: ImportProgress | None = None,
    include: Sequence[str] = (),
    queue: bool = False,
) -> ImportReport:
    """Import the tree below ``directory`` (only its folders ``include``, if given; see the module docstring)."""
    return import_paths(
        supported_files(directory, include=include),
        owner=owner,
        groups=groups,
        root=directory,
        progress=progress,
        queue=queue,
    )
