from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.embeddings import embed_passages
from documents.indexing import IndexItem
from qa.engine import EngineConfig, HybridEngine
from qa.evaluation.evaluate import ThrowawayIndex, build_corpus, progress_printer, read_jsonl


class Command(BaseCommand):
    help = (
        "Query latency (expansion excluded; query embedding, dense, keyword, fusion and re-ranking included) over a "
        "throw-away index scaled to N chunks. The corpus is embedded once; copies beyond it reuse those vectors with "
        "a little noise, so the index has N distinct entries without embedding N passages. The keyword index is on "
        "the portal's database engine (SQLite FTS5, or PostgreSQL with DATABASE_URL)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--queries", required=True)
        parser.add_argument("--chunks", type=int, nargs="+", default=[1000, 10000])
        parser.add_argument("--n", type=int, default=200, help="queries to time per size")
        parser.add_argument("--seed", type=int, default=13)

    def handle(self, *args: Any, **options: Any) -> None:
        corpus_path, queries_path = Path(str(options["corpus"])), Path(str(options["queries"]))
        if not corpus_path.is_file() or not queries_path.is_file():
            raise CommandError("corpus or queries file not found")
        corpus = build_corpus(read_jsonl(corpus_path), max_chars=400, overlap=60)
        questions = [q["question"] for q in read_jsonl(queries_path)]
        rng = random.Random(int(options["seed"]))
        sample = rng.sample(questions, min(int(options["n"]), len(questions)))
        base = corpus.items
        base_vectors = _embed(base)
        noise = np.random.default_rng(int(options["seed"]))
        results: dict[int, dict[str, object]] = {}
        for size in options["chunks"]:
            index = ThrowawayIndex()
            try:
                keyword_fill = _fill(index, base, base_vectors, size=size, noise=noise)
                engine = HybridEngine(index.dense, index.keyword, EngineConfig.from_settings())
                results[size] = {
                    "keyword_backend": index.keyword_backend,
                    "keyword_fill_s": round(keyword_fill, 1),
                    **_time_queries(engine, sample, size=size),
                }
            finally:
                index.close()
        self.stdout.write(json.dumps({"queries": len(sample), "sizes": results}, indent=2))


def _embed(base: list[IndexItem]) -> np.ndarray:
    """The corpus's passage vectors, embedded once."""
    show = progress_printer("embedding corpus")
    vectors = []
    for i in range(0, len(base), 256):
        vectors.append(embed_passages([item.embedding_input() for item in base[i : i + 256]]))
        show(min(i + 256, len(base)), len(base))
    return np.vstack(vectors)


def _fill(
    index: ThrowawayIndex, base: list[IndexItem], base_vectors: np.ndarray, *, size: int, noise: np.random.Generator
) -> float:
    """Fill ``index`` with ``size`` entries (copies beyond the corpus get noisy vectors); the keyword fill's seconds."""
    items, vecs = [], []
    for n in range(size):
        src = base[n % len(base)]
        items.append(
            IndexItem(n + 1, n // 4 + 1, n // 4 + 1, src.heading_path, src.text, f"{src.title} #{n // len(base)}")
        )
        v = base_vectors[n % len(base)] + (noise.normal(0, 0.01, base_vectors.shape[1]) if n >= len(base) else 0)
        vecs.append(v / np.linalg.norm(v))
    for i in range(0, size, 2000):
        index.dense.add(
            [it.chunk_id for it in items[i : i + 2000]],
            np.asarray(vecs[i : i + 2000], dtype=np.float32),
            [{"document_id": it.document_id, "version_id": it.version_id} for it in items[i : i + 2000]],
        )
    t0 = time.perf_counter()
    for i in range(0, size, 2000):  # as indexing does: a transaction per batch
        index.keyword.add(
            (it.chunk_id, it.version_id, f"{it.title} {it.heading_path} {it.text}") for it in items[i : i + 2000]
        )
    keyword_fill = time.perf_counter() - t0
    index.settle()
    return keyword_fill


def _time_queries(engine: HybridEngine, sample: list[str], *, size: int) -> dict[str, float]:
    """Query latency percentiles, unfiltered and filtered to half the documents (the ACL path)."""
    engine.search(query=sample[0])  # warm
    totals, filtered, keyword, keyword_filtered = [], [], [], []
    allowed = list(range(1, size // 4 + 1, 2))  # half the documents: the ACL filter path
    for q in sample:
        t0 = time.perf_counter()
        result = engine.search(query=q)
        totals.append((time.perf_counter() - t0) * 1000)
        keyword.append(result.timings["keyword"])
        t0 = time.perf_counter()
        result = engine.search(query=q, version_ids=allowed)
        filtered.append((time.perf_counter() - t0) * 1000)
        keyword_filtered.append(result.timings["keyword"])
    return {
        "p50_ms": _pct(totals, 50),
        "p95_ms": _pct(totals, 95),
        "acl_filtered_p50_ms": _pct(filtered, 50),
        "acl_filtered_p95_ms": _pct(filtered, 95),
        "keyword_p50_ms": _pct(keyword, 50),
        "keyword_p95_ms": _pct(keyword, 95),
        "keyword_acl_filtered_p50_ms": _pct(keyword_filtered, 50),
        "keyword_acl_filtered_p95_ms": _pct(keyword_filtered, 95),
    }


def _pct(values: list[float], q: int) -> float:
    return round(float(np.percentile(values, q)), 2)
