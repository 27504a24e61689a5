from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from documents.services import sentence_vectors_fill, sentence_vectors_pending


class Command(BaseCommand):
    help = (
        "Embed the sentences of every live chunk that has no sentence vectors yet and store them on its row. "
        "A chunk's sentences are otherwise embedded the first time a question retrieves it, which makes the first "
        "questions after an import slow (seconds). Run it after an import, at a quiet moment; it can be stopped "
        "and run again, and picks up where it stopped."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=32, help="chunks embedded per model call (default 32)")

    def handle(self, *args: Any, **options: Any) -> None:
        started, total, last_report = time.perf_counter(), 0, 0.0
        for done, total in sentence_vectors_fill(batch=max(1, int(options["batch"]))):
            if time.perf_counter() - last_report >= 10 or done == total:
                last_report = time.perf_counter()
                self.stdout.write(f"sentences: {done}/{total} chunk(s)")
        # A write skipped while the database was busy (a long import) is left for the next run.
        stored = total - sentence_vectors_pending().count()
        self.stdout.write(
            f"sentence vectors: {stored} of {total} chunk(s) embedded and stored in {time.perf_counter() - started:.1f} s"
        )
