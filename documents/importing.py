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
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.db.models import Count

from documents.filenames import document_name, split_document_name
from documents.indexing import IndexStats
from documents.models import Chunk, Document, DocumentVersion
from documents.parsing import SUPPORTED_EXTENSIONS
from documents.progress import ImportProgress
from documents.selectors import document_named
from documents.services import version_ingest, versions_index


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    # Imported and live, but with a warning for the owner (document name, words).
    warnings: list[tuple[str, str]] = field(default_factory=list)
    ingest_seconds: float = 0.0  # reading, parsing, chunking and storing the new versions
    index_stats: IndexStats = field(default_factory=IndexStats)  # embedding them and making them live


def supported_files(directory: Path, *, recursive: bool = True) -> list[Path]:
    """The importable files under ``directory`` (its subfolders too, unless not ``recursive``), sorted by path.

    Names starting with a dot, files and folders alike, are skipped.
    """
    found: list[Path] = []
    for folder, subfolders, files in os.walk(directory):
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
        report.unchanged.append(result.document.filename)
    else:
        (report.created if result.created else report.updated).append(result.document.filename)
    return result.version


def import_paths(
    paths: Iterable[Path],
    *,
    owner: User,
    groups: Iterable[Group] | None = None,
    root: Path | None = None,
    progress: ImportProgress | None = None,
) -> ImportReport:
    """Import files (named by their path below ``root``, or their bare name), then index all new versions together."""
    report = ImportReport()
    paths = list(paths)
    started = time.perf_counter()
    new_versions = []
    for done, path in enumerate(paths, start=1):
        name = name_in_import(path, root) if root is not None else path.name
        version = import_file(path, owner=owner, groups=groups, report=report, name=name, index=False)
        if version is not None:
            new_versions.append(version)
        if progress is not None:
            progress.reading(done, len(paths))
    report.ingest_seconds = time.perf_counter() - started
    index_new_versions(new_versions, report=report, progress=progress)
    return report


def index_new_versions(
    versions: list[DocumentVersion], *, report: ImportReport, progress: ImportProgress | None = None
) -> None:
    """Index ``versions`` in one batch (in this order); the documents that failed go to ``report.failed``."""
    if not versions:
        return
    if progress is not None:
        counts = dict(
            Chunk.objects.filter(version__in=versions)
            .values("version")
            .annotate(n=Count("pk"))
            .values_list("version", "n")
        )
        progress.indexing([counts.get(v.pk, 0) for v in versions])
    report.index_stats = versions_index(versions=versions, progress=progress.embedded if progress is not None else None)
    failed: dict[str, str] = {}
    for version in versions:
        version.document.refresh_from_db()
        if version.document.status == Document.Status.FAILED:
            failed[version.document.filename] = version.document.status_message
            continue
        version.refresh_from_db(fields=["body_chars"])  # a large file was parsed by the indexing
        if version.near_empty_warning:
            report.warnings.append((version.document.filename, version.near_empty_warning))
    report.failed.extend(failed.items())


def import_directory(
    directory: Path,
    *,
    owner: User,
    groups: Iterable[Group] | None = None,
    progress: ImportProgress | None = None,
) -> ImportReport:
    """Import the tree below ``directory`` (see the module docstring)."""
    return import_paths(supported_files(directory), owner=owner, groups=groups, root=directory, progress=progress)
