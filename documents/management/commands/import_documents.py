from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.importing import import_directory
from documents.progress import ImportProgress


class Command(BaseCommand):
    help = (
        "Import every supported file in DIR and its folders (hidden ones skipped), each named by its path "
        "below DIR; unchanged files are skipped, changed files get a new version. Prints progress while it works."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory")
        parser.add_argument("--owner", help="username of the owner (default: the first superuser)")
        parser.add_argument("--groups", default="", help="comma-separated access groups (created if missing)")

    def handle(self, *args: object, **options: object) -> None:
        directory = Path(str(options["directory"]))
        if not directory.is_dir():
            raise CommandError(f"{directory} is not a directory")
        owner = self._owner(options["owner"])
        names = [g.strip() for g in str(options["groups"]).split(",") if g.strip()]
        groups = [Group.objects.get_or_create(name=n)[0] for n in names] if names else None
        with ImportProgress(self._say, interval=settings.RAG_PROGRESS_INTERVAL_S) as progress:
            report = import_directory(directory, owner=owner, groups=groups, progress=progress)
        if report.created or report.updated:
            self._say(progress.finished())
        for label, names_ in (
            ("created", report.created),
            ("updated", report.updated),
            ("unchanged", report.unchanged),
        ):
            for name in names_:
                self.stdout.write(f"{label:9} {name}")
        for name, reason in report.failed:
            self.stderr.write(f"failed    {name}: {reason}")
        self.stdout.write(
            f"{len(report.created)} created, {len(report.updated)} updated, "
            f"{len(report.unchanged)} unchanged, {len(report.failed)} failed"
        )
        if report.failed:
            raise CommandError(f"{len(report.failed)} file(s) could not be imported")

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
