from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from qa.engine import EngineConfig
from qa.evaluation.evaluate import build_corpus, read_jsonl
from qa.evaluation.keyword_parity import keyword_parity


class Command(BaseCommand):
    help = (
        "Keyword-search hit@1/3/5 of a corpus on SQLite FTS5 and on PostgreSQL (DATABASE_URL) in one run, without "
        "embeddings: the keyword mode of `evaluate --compare` on both back-ends, and the difference."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--corpus", required=True, help='JSONL of {"doc_id", "title", "text"}')
        parser.add_argument("--queries", required=True, help='JSONL of {"question", "gold_doc_id"}')
        parser.add_argument("--limit", type=int, help="a fixed random sample of N queries (seed --seed), as evaluate")
        parser.add_argument("--seed", type=int, default=13)

    def handle(self, *args: Any, **options: Any) -> None:
        paths = Path(str(options["corpus"])), Path(str(options["queries"]))
        if not all(p.is_file() for p in paths):
            raise CommandError("corpus or queries file not found")
        corpus = build_corpus(
            read_jsonl(paths[0]), max_chars=settings.RAG_CHUNK_SIZE, overlap=settings.RAG_CHUNK_OVERLAP
        )
        queries = [q for q in read_jsonl(paths[1]) if q.get("expect", "answer") == "answer" and q.get("gold_doc_id")]
        if options["limit"]:
            queries = random.Random(options["seed"]).sample(queries, min(int(options["limit"]), len(queries)))
        try:
            report = keyword_parity(
                corpus, queries, candidates=EngineConfig.from_settings().candidates, each=self.stderr.write
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(report, indent=2))
