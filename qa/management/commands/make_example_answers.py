from __future__ import annotations

import json
from contextlib import contextmanager, nullcontext
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from qa.evaluation.example_answers import example_answers_make
from qa.evaluation.portal import throwaway_portal

DEFAULT_PATH = Path(settings.BASE_DIR) / "documents" / "demo_corpus" / "example_answers.json"


class Command(BaseCommand):
    help = (
        "Write the demo's example answers: each recipe of qa.evaluation.example_answers is asked as the demo "
        "employee through the Anthropic provider against the fake Anthropic server on 127.0.0.1 (no network), "
        "and the answer, verified as any Claude answer, is written to the file `load_demo` loads. By default it "
        "builds a throw-away portal with the demo corpus first (about 1-2 minutes); --in-place asks against the "
        "configured database and index, which must hold the demo (the answers are rolled back). Fails when an "
        "answer lacks the flag its recipe is for."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--out", default=str(DEFAULT_PATH), help="where to write (default: the demo's file)")
        parser.add_argument("--in-place", action="store_true", help="use the configured database and index as they are")

    def handle(self, *args: object, **options: object) -> None:
        with nullcontext() if options["in_place"] else _demo_portal():
            employee = get_user_model().objects.filter(username="employee").first()
            if employee is None:
                raise CommandError("no demo user 'employee': run load_demo first, or drop --in-place")
            try:
                examples = example_answers_make(user=employee)
            except (ValueError, LookupError) as exc:
                raise CommandError(str(exc)) from exc
        out = Path(str(options["out"]))
        out.write_text(json.dumps(examples, ensure_ascii=False, indent=1) + "\n", "utf-8")
        for example in examples:
            flags = example["verification"].get("flags") or []
            self.stdout.write(f"  {example['question']}: {', '.join(flags) or '-'}")
        self.stdout.write(f"{out}: {len(examples)} example answers")


@contextmanager
def _demo_portal() -> Iterator[None]:
    """A throw-away portal holding the demo corpus, users and glossary (no examples), removed on exit."""
    with throwaway_portal():
        call_command("load_demo", no_examples=True, stdout=StringIO())
        yield
