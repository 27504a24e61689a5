from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from qa.evaluation.search_hits import search_hits


class Command(BaseCommand):
    help = (
        "Hit@1/3/5 and search p50/p95 of questions (JSONL with question and gold_doc_id, the gold document's "
        "name in the portal) against the documents loaded now, through the portal's search as one user."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("questions", help="JSONL file: question, gold_doc_id (lines without one are skipped)")
        parser.add_argument("--user", default="", help="search as this user (default: the first superuser)")
        parser.add_argument("--json", default="", help="also write each question's rank and documents found here")

    def handle(self, *args: object, **options: object) -> None:
        path = Path(str(options["questions"]))
        if not path.is_file():
            raise CommandError(f"{path} is not a file")
        questions = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        report = search_hits(user=self._user(str(options["user"])), questions=questions)
        summary = report.summary()
        self.stdout.write(json.dumps(summary))
        if options["json"]:
            Path(str(options["json"])).write_text(
                json.dumps(
                    {"summary": summary, "questions": [asdict(r) for r in report.ranks]}, ensure_ascii=False, indent=1
                ),
                encoding="utf-8",
            )

    def _user(self, username: str):  # noqa: ANN202
        User = get_user_model()
        user = (
            User.objects.filter(username=username).first()
            if username
            else User.objects.filter(is_superuser=True).order_by("pk").first()
        )
        if user is None:
            raise CommandError(f"no user named {username!r}" if username else "no superuser: pass --user")
        return user
