from __future__ import annotations

from collections.abc import Iterable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.importing import import_directory
from documents.indexer_lock import sole_indexer
from documents.progress import ImportProgress
from documents.services import sentence_vectors_pending


class Command(BaseCommand):
    help = (
        "Import every supported file in DIR and its folders (hidden ones skipped), each named by its path "
        "below DIR; unchanged files are skipped, changed files get a new version. Prints progress while it works."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory")
        parser.add_argument("--owner", help="username of the owner (default: the first superuser)")
        parser.add_argument("--groups", default="", help="comma-separated access groups (created if missing)")
        parser.add_argument(
            "--include",
            action="append",
            default=[],
            help="import only this folder below DIR (names stay relative to DIR); repeat or separate with commas",
        )
        parser.add_argument(
            "--queue",
            action="store_true",
            help="hand each file to the indexing workers (manage.py index_worker, as many as you run) "
            "instead of indexing here, and wait until they are done",
        )
        parser.add_argument(
            "--sentences",
            action="store_true",
            help="embed the imported chunks' sentences before finishing (manage.py embed_sentences), so the first "
            "questions do not wait for them; a running index_worker does it in the background instead",
        )
        parser.add_argument(
            "--no-calibrate",
            action="store_true",
            help="do not measure the confidence thresholds on the documents afterwards (manage.py calibrate)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        directory = Path(str(options["directory"]))
        if not directory.is_dir():
            raise CommandError(f"{directory} is not a directory")
        owner = self._owner(options["owner"])
        names = [g.strip() for g in str(options["groups"]).split(",") if g.strip()]
        groups = [Group.objects.get_or_create(name=n)[0] for n in names] if names else None
        include = self._include(directory, options["include"])
        if options["queue"]:
            self._say("storing the files and queueing them for the indexing workers (manage.py index_worker)")
        # Indexing here, it is the embedded Chroma directory's one indexing process (documents.indexer_lock).
        indexing = nullcontext() if options["queue"] else sole_indexer("an import (manage.py import_documents)")
        with indexing, ImportProgress(self._say, interval=settings.RAG_PROGRESS_INTERVAL_S) as progress:
            report = import_directory(
                directory, owner=owner, groups=groups, progress=progress, include=include, queue=bool(options["queue"])
            )
        if report.created or report.updated or report.resumed:
            self._say(progress.finished())
        for label, names_ in (
            ("created", report.created),
            ("updated", report.updated),
            ("unchanged", report.unchanged),
            ("resumed", report.resumed),
        ):
            for name in names_:
                self.stdout.write(f"{label:9} {name}")
        for name, warning in report.warnings:
            self.stderr.write(f"warning   {name}: {warning}")
        for name, reason in report.failed:
            self.stderr.write(f"failed    {name}: {reason}")
        self.stdout.write(
            f"{len(report.created)} created, {len(report.updated)} updated, "
            f"{len(report.unchanged)} unchanged, "
            + (f"{len(report.resumed)} resumed, " if report.resumed else "")
            + f"{len(report.failed)} failed"
        )
        if options["sentences"] and not options["queue"]:
            call_command("embed_sentences", stdout=self.stdout, stderr=self.stderr)
        if not options["no_calibrate"] and (report.created or report.updated or report.resumed):
            # The confidence thresholds are measured on the documents just made live (qa.calibration).
            call_command("calibrate", if_stale=True, stdout=self.stdout, stderr=self.stderr)
        if not options["sentences"] and not options["queue"]:
            self._sentences_waiting()
        if report.failed:
            raise CommandError(f"{len(report.failed)} file(s) could not be imported")

    def _sentences_waiting(self) -> None:
        """How many live chunks' sentences are not embedded yet, and how to embed them.

        Without a worker they are embedded the first time a question retrieves their chunk,
        which makes the first questions after an import take seconds.
        """
        pending = sentence_vectors_pending().count()
        if not pending:
            return
        worker = (
            "a running index_worker embeds them in the background; without one, "
            if settings.RAG_SENTENCE_VECTORS_AFTER_INDEXING
            else ""
        )
        self._say(
            f"{pending} chunk(s) have no sentence vectors yet: {worker}run manage.py embed_sentences "
            "(or import with --sentences), or the first questions that retrieve them will take seconds"
        )

    def _include(self, directory: Path, values: Iterable[object] | None) -> list[str]:
        """The ``--include`` folders, each checked to be a folder inside DIR."""
        folders = [f.strip().strip("/") for value in values or [] for f in str(value).split(",") if f.strip()]
        for folder in folders:
            path = (directory / folder).resolve()
            if not path.is_dir() or not path.is_relative_to(directory.resolve()):
                raise CommandError(f"--include {folder}: not a folder inside {directory}")
        return folders

    def _owner(self, username: object):  # noqa: ANN202
        User = get_user_model()
        if username:
            owner = User.objects.filter(username=username).first()
            if owner is None:
                raise CommandError(f"no user named {username!r}")
            return owner
        owner = User.objects.filter(is_superuser=True).order_by("pk").first()
        if owner is None:
            raise CommandError("no superuser to own the documents: pass --owner")
        return owner

    def _say(self, line: str) -> None:
        """One progress line, flushed at once: a piped stdout would otherwise hold it back."""
        self.stdout.write(line)
        self.stdout.flush()
