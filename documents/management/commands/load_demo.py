from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from documents.models import Document
from documents.importing import ImportReport, import_file, supported_files
from documents.roles import OWNERS_GROUP, REVIEWERS_GROUP
from documents.services import versions_index

DEMO_DIR = Path(settings.BASE_DIR) / "documents" / "demo_corpus"
NOT_DOCUMENTS = {"ATTRIBUTION.md"}
# The demo's wording pairs (everyday and English words → the demo documents' words): demo data,
# never shipped to an install that does not load the demo.
DEMO_GLOSSARY = DEMO_DIR / "glossary.json"

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

        restricted = json.loads((DEMO_DIR / "groups.json").read_text("utf-8")) if (DEMO_DIR / "groups.json").exists() else {}
        report = ImportReport()
        # Older versions first, so the current file ends up as the live version.
        history = DEMO_DIR / "history"
        new_versions = []
        for path in supported_files(DEMO_DIR):
            if path.name in NOT_DOCUMENTS:
                continue
            groups = [Group.objects.get_or_create(name=n)[0] for n in restricted.get(path.name, [])]
            older = sorted((history / path.name).glob("v*")) if (history / path.name).is_dir() else []
            if not Document.objects.filter(filename=path.name).exists():
                for old in older:
                    new_versions.append(
                        import_file(old, owner=owner, groups=groups, report=ImportReport(), filename=path.name, index=False)
                    )
            new_versions.append(import_file(path, owner=owner, groups=groups, report=report, index=False))
        new_versions = [v for v in new_versions if v is not None]
        if new_versions:
            versions_index(versions=new_versions)  # older versions go live first, the current file last
            for version in new_versions:
                version.document.refresh_from_db()
            failed = {v.document.filename: v.document.status_message for v in new_versions if v.document.status == Document.Status.FAILED}
            report.failed.extend(failed.items())

        self.stdout.write(
            f"demo corpus: {len(report.created)} created, {len(report.updated)} updated, "
            f"{len(report.unchanged)} unchanged, {len(report.failed)} failed"
        )
        for name, reason in report.failed:
            self.stderr.write(f"  failed {name}: {reason}")
        if not options["no_glossary"]:
            # documents/ imports nothing from qa: the dictionary is qa's, reached through its command.
            call_command("load_glossary", str(DEMO_GLOSSARY), stdout=self.stdout, stderr=self.stderr)
        self.stdout.write(f"\nDemo logins ({options['url']}):")
        for username, password, _groups, _s, _su, role in DEMO_USERS:
            self.stdout.write(f"  {username:9} / {password:20} {role}")
