"""Importing a directory of files as documents (used by import_documents and load_demo)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError

from documents.filenames import normalize_filename
from documents.indexing import IndexStats
from documents.models import Document, DocumentVersion
from documents.parsing import SUPPORTED_EXTENSIONS
from documents.selectors import document_named
from documents.services import document_ingest, versions_index


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    ingest_seconds: float = 0.0  # reading, parsing, chunking and storing the new versions
    index_stats: IndexStats = field(default_factory=IndexStats)  # embedding them and making them live


def supported_files(directory: Path) -> list[Path]:
    return sorted(
        p for p in directory.iterdir() if p.is_file() and p.suffix.lower() in SUPPORTED_EXTENSIONS and not p.name.startswith(".")
    )


def import_file(
    path: Path,
    *,
    owner,  # noqa: ANN001
    groups: Iterable[Group] | None,
    report: ImportReport,
    filename: str | None = None,
    index: bool = True,
) -> DocumentVersion | None:
    """Create the document, or add a version when the bytes changed; unchanged files are skipped.

    Returns the new version (None when nothing new was stored). With
    ``index=False`` the caller indexes the new versions in one batch.
    """
    filename = normalize_filename(filename or path.name)  # as stored: a Mac's NFD 「ガ.md」 is 「ガ.md」
    data = path.read_bytes()
    existing = document_named(filename)
    before = existing.versions.count() if existing else 0
    try:
        document = document_ingest(
            owner=owner, filename=filename, data=data, groups=groups, document=existing, index=index
        )
    except ValidationError as exc:
        report.failed.append((filename, " ".join(exc.messages)))
        return None
    if document.versions.count() == before:
        report.unchanged.append(filename)
        return None
    (report.updated if existing else report.created).append(filename)
    return document.versions.order_by("-number").first()


def import_paths(paths: Iterable[Path], *, owner, groups: Iterable[Group] | None = None) -> ImportReport:  # noqa: ANN001
    """Import files, then index all their new versions together (batched embeddings)."""
    report = ImportReport()
    started = time.perf_counter()
    new_versions = [
        version
        for path in paths
        if (version := import_file(path, owner=owner, groups=groups, report=report, index=False)) is not None
    ]
    report.ingest_seconds = time.perf_counter() - started
    if new_versions:
        report.index_stats = versions_index(versions=new_versions)
    for version in new_versions:
        version.document.refresh_from_db()
        if version.document.status == Document.Status.FAILED:
            report.failed.append((version.document.filename, version.document.status_message))
    return report


def import_directory(directory: Path, *, owner, groups: Iterable[Group] | None = None) -> ImportReport:  # noqa: ANN001
    return import_paths(supported_files(directory), owner=owner, groups=groups)
