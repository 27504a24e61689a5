"""``manage.py calibrate``: measure the live corpus and store its thresholds (qa.services.calibration_run)."""

from __future__ import annotations

import time
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from qa.services import calibration_run, calibration_up_to_date


class Command(BaseCommand):
    help = (
        "Measure the off-topic floors and the confidence thresholds on the live documents, and store them. "
        "The stored calibration is used from then on (delete it in the admin to return to the settings). "
        "import_documents and load_demo run it when they finish, and the indexing worker after documents "
        "change (RAG_CALIBRATE_AFTER_INDEXING, on by default)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--if-stale",
            action="store_true",
            help="measure only when no calibration was measured on the live documents as they are now, "
            "and with nothing to measure say so instead of failing (import_documents and load_demo run it so)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        if options["if_stale"] and calibration_up_to_date():
            self.stdout.write("calibration: up to date with the live documents")
            return
        # Silent otherwise for a while on a fresh corpus (the sentences of every section are embedded first).
        self.stdout.write("calibration: measuring the confidence thresholds on the live documents…")
        self.stdout.flush()
        try:
            calibration = calibration_run()
        except ValidationError as exc:
            if options["if_stale"]:
                self.stdout.write(f"calibration: not measured ({' '.join(exc.messages)})")
                return
            raise CommandError(" ".join(exc.messages)) from None
        values, measured = calibration.values, calibration.measurements
        self.stdout.write(
            f"calibrated on {calibration.documents} documents "
            f"({len(measured['on_topic'])} heading questions, {len(measured['off_topic'])} off-topic questions, "
            f"{len(measured.get('english_off_topic', []))} English off-topic questions) "
            f"in {time.perf_counter() - started:.1f} s"
        )
        for name in ("off_topic_floor", "confident", "medium", "english_floor", "unknown_word_sentence", "clarify_gap"):
            self.stdout.write(f"  {name}: {values[name]}")
