from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from documents.importing import ImportReport, import_file, index_new_versions, supported_files
from documents.models import DocumentVersion
from documents.progress import ImportProgress
from documents.roles import OWNERS_GROUP, REVIEWERS_GROUP
from documents.selectors import document_named

DEMO_DIR = Path(settings.BASE_DIR) / "documents" / "demo_corpus"
NOT_DOCUMENTS = {"ATTRIBUTION.md"}
# The demo's wording pairs (everyday and English words → the demo documents' words): demo data,
# never shipped to an install that does not load the demo.
DEMO_GLOSSARY = DEMO_DIR / "glossary.json"
# Stored answers from the Claude path (made with the fake server: `manage.py make_example_answers`), so the
# review queue shows every kind of flag; demo data like the glossary.
DEMO_EXAMPLES = DEMO_DIR / "example_answers.json"

# Demo logins for a laptop; never used outside `make run`.
DEMO_USERS = [
    # username, password, groups, is_staff, is_superuser, role
    ("employee", "employee-demo-pass", [], False, False, "社員 / employee"),
    ("owner", "owner-demo-pass", [OWNERS_GROUP], True, False, "文書オーナー / document owner"),
    ("reviewer", "reviewer-demo-pass", [REVIEWERS_GROUP], True, False, "レビュアー / reviewer (admin queue)"),
    ("admin", "admin-demo-pass", [], True, True, "管理者 / admin"),
]


class Command(BaseCommand):
    help = (
        "Create the demo users, import the demo corpus and load its glossary into the synonym dictionary "
        "(idempotent: safe to run on every `make run`). "
        "Indexes here and now, not through the workers, so the demo answers as soon as the server starts."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--url",
            default="http://127.0.0.1:8000/",
            help="Where the portal is served, shown with the demo logins (`make run` passes its HOST and PORT).",
        )
        parser.add_argument(
            "--no-glossary",
            action="store_true",
            help="do not load the demo glossary into the synonym dictionary (to see the demo answered without it)",
        )
        parser.add_argument(
            "--no-examples",
            action="store_true",
            help="do not store the example answers in the review queue (make_example_answers makes them)",
        )

    def handle(self, *args: object, **options: object) -> None:
        User = get_user_model()
        for username, password, groups, is_staff, is_superuser, _role in DEMO_USERS:
            user, created = User.objects.get_or_create(username=username)
            if created:
                user.set_password(password)
                user.is_staff, user.is_superuser = is_staff, is_superuser
                user.save()
            for name in groups:
                user.groups.add(Group.objects.get_or_create(name=name)[0])
        owner = User.objects.get(username="owner")

        restricted = (
            json.loads((DEMO_DIR / "groups.json").read_text("utf-8")) if (DEMO_DIR / "groups.json").exists() else {}
        )
        report = ImportReport()
        new_versions: list[DocumentVersion] = []
        with ImportProgress(self._say, interval=settings.RAG_PROGRESS_INTERVAL_S) as progress:
            paths = [p for p in supported_files(DEMO_DIR, recursive=False) if p.name not in NOT_DOCUMENTS]
            for done, path in enumerate(paths, start=1):
                access = [Group.objects.get_or_create(name=n)[0] for n in restricted.get(path.name, [])]
                new_versions += _import_with_history(path, owner=owner, groups=access, report=report)
                progress.reading(done, len(paths))
            # Older versions first, so the current file ends up as the live version.
            index_new_versions(new_versions, report=report, progress=progress)
        if new_versions:
            self._say(progress.finished())

        self.stdout.write(
            f"demo corpus: {len(report.created)} created, {len(report.updated)} updated, "
            f"{len(report.unchanged)} unchanged, {len(report.failed)} failed"
        )
        for name, reason in report.failed:
            self.stderr.write(f"  failed {name}: {reason}")
        if not options["no_glossary"]:
            # documents/ imports nothing from qa: the dictionary is qa's, reached through its command.
            call_command("load_glossary", str(DEMO_GLOSSARY), stdout=self.stdout, stderr=self.stderr)
        if not options["no_examples"] and DEMO_EXAMPLES.is_file():
            call_command("load_example_answers", str(DEMO_EXAMPLES), stdout=self.stdout, stderr=self.stderr)
        # The demo is judged as any company's documents are: by thresholds measured on it, not by the settings'.
        call_command("calibrate", if_stale=True, stdout=self.stdout, stderr=self.stderr)
        self.stdout.write(f"\nDemo logins ({options['url']}):")
        for username, password, _groups, _s, _su, role in DEMO_USERS:
            self.stdout.write(f"  {username:9} / {password:20} {role}")

    def _say(self, line: str) -> None:
        """One progress line, flushed at once (`make run` shows it while the demo is indexed)."""
        self.stdout.write(f"demo corpus: {line}")
        self.stdout.flush()


def _import_with_history(
    path: Path, *, owner: User, groups: list[Group], report: ImportReport
) -> list[DocumentVersion]:
    """Store one demo document (its older versions from history/ first, when it is new); its new versions in order.

    The report counts the document once: created when it did not exist before,
    else updated or unchanged by its current file.
    """
    history = DEMO_DIR / "history" / path.name
    fresh = document_named(path.name) is None
    older = sorted(history.glob("v*")) if fresh and history.is_dir() else []
    mine = ImportReport()
    versions = [
        import_file(p, owner=owner, groups=groups, report=mine, name=path.name, index=False) for p in [*older, path]
    ]
    report.failed.extend(mine.failed)
    if not mine.failed:
        stored = bool(mine.created or mine.updated)
        (report.created if fresh and stored else report.updated if stored else report.unchanged).append(path.name)
    return [v for v in versions if v is not None]
