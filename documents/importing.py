"""Importing a directory of files as documents (used by import_documents and load_demo)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError

from documents.models import Document
from documents.parsing import SUPPORTED_EXTENSIONS
from documents.services import document_ingest


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


def supported_files(directory: Path) -> list[Path]:
    return sorted(
        p for p in directory.iterdir() if p.is_file() and p.suffix.lower() in SUPPORTED_EXTENSIONS and not p.name.startswith(".")
    )


def import_file(
    path: Path, *, owner, groups: Iterable[Group] | None, report: ImportReport, filename: str | None = None  # noqa: ANN001
) -> Document | None:
    """Create the document, or add a version when the bytes changed; unchanged files are skipped."""
    filename = filename or path.name
    data = path.read_bytes()
    existing = Document.objects.filter(filename__iexact=filename).first()
    try:
        if existing is None:
            document = document_ingest(owner=owner, filename=filename, data=data, groups=groups)
            report.created.append(filename)
            return document
        before = existing.versions.count()
        document = document_ingest(owner=owner, filename=filename, data=data, groups=groups, document=existing)
        (report.updated if document.versions.count() > before else report.unchanged).append(filename)
        return document
    except ValidationError as exc:
        report.failed.append((filename, " ".join(exc.messages)))
        return None


def import_directory(directory: Path, *, owner, groups: Iterable[Group] | None = None) -> ImportReport:  # noqa: ANN001
    report = ImportReport()
    for path in supported_files(directory):
        import_file(path, owner=owner, groups=groups, report=report)
    return report
