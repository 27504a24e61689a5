from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from io import StringIO
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser, OutputWrapper

from qa.evaluation.evaluate import progress_printer
from qa.evaluation.golden import GOLDEN_QUERIES, SPLITS, ask_golden, failures_text, load_golden, summarise, summary_text
from qa.evaluation.portal import throwaway_portal
from qa.models import CorpusCalibration, SynonymEntry
from qa.services import current_calibration

# The settings a run depends on most, kept in the JSON so runs can be compared.
REPORTED_SETTINGS = (
    "RAG_PROVIDER",
    "RAG_CONFIDENCE_HIGH",
    "RAG_CONFIDENCE_MEDIUM",
    "RAG_MIN_GROUNDED_RATIO",
    "RAG_CLARIFY_GAP",
    "RAG_MIN_SIMILARITY",
    "RAG_TOP_K",
)


class Command(BaseCommand):
    help = (
        "Ask the golden questions through the answering service as the demo employee and score them: accuracy "
        "per kind and split, the reliability table per confidence level, wrong_high_rate, latency. By default it "
        "builds a throw-away portal first (a fresh test database and a temporary Chroma directory, the demo corpus "
        "and users loaded; about 1-2 minutes of embedding) and leaves the configured data alone. --in-place asks "
        "against the configured database and index instead (they must hold the demo corpus and the `employee` "
        "user, e.g. a data directory prepared once with migrate + load_demo); the answers it creates are deleted."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--queries", default=str(GOLDEN_QUERIES), help="golden JSONL (default: the demo set)")
        parser.add_argument("--split", choices=SPLITS, help="only this split")
        parser.add_argument("--kind", help="only this kind (lexical, paraphrase, table, english, two_fact, ...)")
        parser.add_argument("--json", dest="json_out", help="write the summary and every result to this file")
        parser.add_argument("--failures", action="store_true", help="also print one line per wrong response")
        parser.add_argument("--in-place", action="store_true", help="use the configured database and index as they are")
        parser.add_argument(
            "--no-glossary",
            action="store_true",
            help="build the throw-away portal without the demo glossary (the synonym dictionary stays empty)",
        )
        parser.add_argument("--quiet", action="store_true", help="no progress output")

    def handle(self, *args: object, **options: object) -> None:
        path = Path(str(options["queries"]))
        if not path.is_file():
            raise CommandError(f"{path} not found")
        split, kind = (str(options[name]) if options[name] else None for name in ("split", "kind"))
        queries = load_golden(path, split=split, kind=kind)
        if not queries:
            raise CommandError("no golden query matches --split/--kind")
        quiet, glossary = bool(options["quiet"]), not options["no_glossary"]
        if options["in_place"] and not glossary:
            raise CommandError("--no-glossary builds the throw-away portal: it cannot be combined with --in-place")
        portal = (
            nullcontext() if options["in_place"] else _throwaway_portal(self.stderr, quiet=quiet, glossary=glossary)
        )
        with portal:
            synonyms = SynonymEntry.objects.count()  # the demo glossary's entries; none with --no-glossary
            # What the answers were judged with: the corpus's calibration when one is stored, else the settings'.
            applied, calibrated = current_calibration(), CorpusCalibration.objects.exists()
            try:
                results = ask_golden(queries, progress=None if quiet else progress_printer("questions"))
            except ValueError as exc:
                raise CommandError(str(exc)) from exc
        summary = summarise(results)
        self.stdout.write(
            f"portal evaluation: {len(queries)} golden questions as 'employee', provider {settings.RAG_PROVIDER}, "
            f"confidence thresholds {applied.confident:.4f}/{applied.medium:.4f} "
            f"({'calibrated' if calibrated else 'settings'}), "
            f"{synonyms} synonym dictionary entries\n"
        )
        self.stdout.write(summary_text(summary))
        if options["failures"]:
            self.stdout.write("\nwrong responses:\n" + failures_text(results))
        if options["json_out"]:
            report = {
                "queries_path": str(path),
                "filters": {"split": split, "kind": kind},
                "settings": {name: getattr(settings, name) for name in REPORTED_SETTINGS},
                "synonym_entries": synonyms,
                "summary": summary,
                "results": [r.as_json() for r in results],
            }
            Path(str(options["json_out"])).write_text(json.dumps(report, ensure_ascii=False, indent=2), "utf-8")


@contextmanager
def _throwaway_portal(stderr: OutputWrapper, *, quiet: bool, glossary: bool) -> Iterator[None]:
    """A fresh portal holding only the demo corpus, users and (if ``glossary``) the demo glossary, removed on exit."""
    with throwaway_portal():
        started = time.perf_counter()
        if not quiet:
            stderr.write("indexing the demo corpus into a throw-away portal...")
        call_command("load_demo", no_glossary=not glossary, stdout=StringIO(), stderr=stderr)
        if not quiet:
            stderr.write(f"indexed in {time.perf_counter() - started:.0f} s")
        yield
