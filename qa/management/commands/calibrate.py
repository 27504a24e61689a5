"""``manage.py calibrate``: measure the live corpus and store its thresholds (qa.services.calibration_run)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from qa.services import calibration_run


class Command(BaseCommand):
    help = "Measure the off-topic floor and the confidence thresholds on the live documents, and store them."

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            calibration = calibration_run()
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        values = calibration.values
        self.stdout.write(
            f"calibrated on {calibration.documents} documents "
            f"({len(calibration.measurements['on_topic'])} heading questions, "
            f"{len(calibration.measurements['off_topic'])} off-topic questions)"
        )
        for name in ("off_topic_floor", "confident", "medium", "english_floor", "clarify_gap"):
            self.stdout.write(f"  {name}: {values[name]}")
