"""``manage.py evaluate_support``: precision, recall and false-alarm curves of sentence support.

The same measurement as ``python -m qa.evaluation.support_calibration`` (see that module),
reachable where the other evaluation commands are.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from qa.evaluation import support_calibration as calibration


class Command(BaseCommand):
    help = "Precision/recall/false-alarm curves of sentence support on the own labelled set, jhars-dev and quotes."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--no-meaning", action="store_true", help="words alone (no embeddings)")
        parser.add_argument("--jhars", type=Path, default=calibration.JHARS, help="JHARS jsonl")
        parser.add_argument("--errors", default=None, help="print the errors of a set (own, jhars, quotes, all)")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: object, **options: object) -> None:
        sets = calibration.load_sets(Path(str(options["jhars"])))
        with_meaning = not options["no_meaning"]
        if with_meaning:
            calibration.attach_similarities([item for items in sets.values() for item in items])
        result = calibration.report(sets, with_meaning=with_meaning)
        if options["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False, indent=1))
        else:
            errors = options["errors"]
            calibration.print_report(result, show_errors=str(errors) if errors else None, write=self.stdout.write)
