from __future__ import annotations

import json
import random
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from qa.evaluation import evaluate, read_jsonl, summary_table
from qa.engine import EngineConfig


class Command(BaseCommand):
    help = "Measure retrieval (and optionally answers) on a corpus + queries in JSONL, over a throw-away index."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--corpus", required=True, help='JSONL of {"doc_id", "title", "text"}')
        parser.add_argument(
            "--queries",
            required=True,
            help='JSONL of {"qid", "question", "gold_doc_id", "answers"[, "answers_all", "expect"]}',
        )
        parser.add_argument("--k", type=int, default=5)
        parser.add_argument("--limit", type=int, help="evaluate a fixed random sample of N queries (seed --seed)")
        parser.add_argument("--seed", type=int, default=13)
        parser.add_argument("--mode", choices=["hybrid", "dense", "keyword"], default="hybrid")
        parser.add_argument("--compare", action="store_true", help="run dense, keyword and hybrid in one run")
        parser.add_argument("--answers", action="store_true", help="also run the extractive provider")
        parser.add_argument("--no-expansion", action="store_true", help="skip the synonym dictionary")
        parser.add_argument(
            "--glossary",
            help="also expand with this glossary file's pairs (the demo golden set: documents/demo_corpus/glossary.json)",
        )
        parser.add_argument("--json", dest="json_out", help="write the metrics to this file")
        parser.add_argument("--quiet", action="store_true", help="no progress output")

    def handle(self, *args: object, **options: object) -> None:
        corpus_path, queries_path = Path(str(options["corpus"])), Path(str(options["queries"]))
        for path in (corpus_path, queries_path):
            if not path.is_file():
                raise CommandError(f"{path} not found")
        try:
            corpus = read_jsonl(corpus_path)
            queries = read_jsonl(queries_path)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CommandError(f"bad JSONL: {exc}") from exc
        # Off-topic, restricted and ambiguous golden questions have no gold document
        # to retrieve: they are scored by evaluate_portal.
        answerable = [q for q in queries if q.get("expect", "answer") == "answer"]
        skipped, queries = len(queries) - len(answerable), answerable
        missing = [q.get("qid") for q in queries if "question" not in q or "gold_doc_id" not in q]
        if missing:
            raise CommandError(f"queries without question/gold_doc_id: {missing[:5]}")
        if options["limit"]:
            queries = random.Random(options["seed"]).sample(queries, min(int(options["limit"]), len(queries)))
        glossary = Path(str(options["glossary"])) if options["glossary"] else None
        try:
            rules = [] if options["no_expansion"] else _rules(glossary)
        except (OSError, ValueError) as exc:
            raise CommandError(f"glossary: {exc}") from exc
        modes = ["dense", "keyword", "hybrid"] if options["compare"] else [options["mode"]]
        report = evaluate(
            corpus_records=corpus,
            queries=queries,
            modes=modes,
            k=int(options["k"]),
            answers=bool(options["answers"]),
            rules=rules,
            config=EngineConfig.from_settings(),
            max_chars=settings.RAG_CHUNK_SIZE,
            overlap=settings.RAG_CHUNK_OVERLAP,
            min_similarity=settings.RAG_MIN_SIMILARITY,
            per_document=settings.RAG_MAX_CHUNKS_PER_DOCUMENT,
            progress=not options["quiet"],
        )
        report["corpus_path"], report["queries_path"] = str(corpus_path), str(queries_path)
        report["glossary_path"], report["expansion_rules"] = str(glossary) if glossary else None, len(rules)
        report["limit"], report["seed"] = options["limit"], options["seed"]
        report["skipped_expect_no_answer"] = skipped
        if skipped:
            self.stdout.write(
                f"skipped {skipped} queries that expect no answer (not_found / clarify): see evaluate_portal"
            )
        self.stdout.write(summary_table(report))
        ix = report["indexing"]
        self.stdout.write(
            f"indexing: {ix['chunks']} chunks in {ix['seconds']}s = {ix['chunks_per_s']} chunks/s "
            f"(encoder {ix['encoder_seconds']}s, {ix['encoder_share']:.1%} of the time)"
        )
        if options["json_out"]:
            Path(str(options["json_out"])).write_text(json.dumps(report, ensure_ascii=False, indent=2), "utf-8")


def _rules(glossary: Path | None) -> list[tuple[str, list[str]]]:
    """The synonym dictionary (read only; none if the database is not migrated), and ``glossary``'s pairs over it.

    Sorted by term as the dictionary is, so the demo glossary gives the same
    rules whether it comes from this file or from a database `load_demo` filled.
    """
    from django.db import DatabaseError

    from qa.expansion import dictionary_rules
    from qa.glossary import glossary_read
    from qa.models import SynonymEntry

    try:
        rules = dict(dictionary_rules())
    except DatabaseError:
        rules = {}
    if glossary is not None:
        for term, expansions in glossary_read(glossary).items():
            rules[term] = SynonymEntry(term=term, expansions=expansions).expansion_list()
    return sorted(rules.items())
