from __future__ import annotations

import dataclasses
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.embeddings import embed_passages, embed_query
from documents.indexing import IndexItem
from documents.keyword_index import in_memory_fts5
from qa.engine import ENGINE_STAGES, EngineConfig, HybridEngine
from qa.evaluation.evaluate import Corpus, ThrowawayIndex, build_corpus, progress_printer, read_jsonl
from qa.evaluation.keyword_parity import keyword_hits


class Command(BaseCommand):
    help = (
        "Query latency (expansion excluded; query embedding, dense, keyword, fusion and re-ranking included) over a "
        "throw-away index scaled to N chunks. The corpus is embedded once; copies beyond it reuse those vectors with "
        "a little noise, so the index has N distinct entries without embedding N passages. The keyword index is on "
        "the portal's database engine (SQLite FTS5, or PostgreSQL with DATABASE_URL); on PostgreSQL the sampled "
        "questions' keyword hit@k is compared with SQLite FTS5's over the same N chunks (keyword_parity)."
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
        queries = read_jsonl(queries_path)
        rng = random.Random(int(options["seed"]))
        picked = rng.sample(queries, min(int(options["n"]), len(queries)))
        sample = [q["question"] for q in picked]
        base = corpus.items
        base_vectors = _embed(base)
        noise = np.random.default_rng(int(options["seed"]))
        results: dict[int, dict[str, object]] = {}
        for size in options["chunks"]:
            index = ThrowawayIndex()
            try:
                keyword_fill = _fill(index, base, base_vectors, size=size, noise=noise)
                config = EngineConfig.from_settings()
                engine = HybridEngine(index.dense, index.keyword, config)
                results[size] = {
                    "keyword_backend": index.keyword_backend,
                    "keyword_fill_s": round(keyword_fill, 1),
                    **_time_queries(engine, sample, size=size),
                }
                if index.keyword_backend == "postgresql":
                    scaled = _scaled_corpus(corpus, size)
                    results[size]["keyword_parity"] = _parity(index, scaled, picked, candidates=config.candidates)
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
        items.append(_copy_of(base, n))
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


def _copy_of(base: list[IndexItem], n: int) -> IndexItem:
    """Entry ``n`` (0-based) of the scaled index: a copy of a corpus chunk, under a document of four entries."""
    src = base[n % len(base)]
    return IndexItem(n + 1, n // 4 + 1, n // 4 + 1, src.heading_path, src.text, f"{src.title} #{n // len(base)}")


def _scaled_corpus(corpus: Corpus, size: int) -> Corpus:
    """The corpus as scaled to ``size`` entries: each copy counts for the corpus document it copies."""
    base = corpus.items
    items = [_copy_of(base, n) for n in range(size)]
    chunk_doc = {item.chunk_id: corpus.chunk_doc[base[n % len(base)].chunk_id] for n, item in enumerate(items)}
    return dataclasses.replace(corpus, items=items, chunk_doc=chunk_doc, chunks={i.chunk_id: i for i in items})


def _parity(index: ThrowawayIndex, scaled: Corpus, queries: list[dict], *, candidates: int) -> dict[str, object]:
    """The questions' keyword hit@k on the PostgreSQL index and on SQLite FTS5 filled alike, and the difference."""
    sys.stderr.write(f"keyword parity with SQLite FTS5 at {len(scaled.items)} chunks\n")
    fts5, db = in_memory_fts5()
    try:
        for i in range(0, len(scaled.items), 2000):
            fts5.add(
                (it.chunk_id, it.version_id, f"{it.title} {it.heading_path} {it.text}")
                for it in scaled.items[i : i + 2000]
            )
        lite, lite_rank = keyword_hits(fts5, scaled, queries, candidates=candidates)
    finally:
        db.close()
    pg, pg_rank = keyword_hits(index.keyword, scaled, queries, candidates=candidates)
    return {
        "sqlite-fts5": lite,
        "postgresql": pg,
        "difference": {key: round(pg[key] - lite[key], 4) for key in lite},
        "queries_ranked_differently_top5": sum(a[:5] != b[:5] for a, b in zip(lite_rank, pg_rank)),
    }


def _time_queries(engine: HybridEngine, sample: list[str], *, size: int) -> dict[str, float]:
    """Query latency percentiles, unfiltered and filtered to half the documents (the ACL path), and per stage.

    The two halves of a search run at the same time (``qa.engine``), so the stages
    ``embed`` + ``dense`` and ``keyword`` overlap: the whole is not their sum.
    """
    sys.stderr.write(f"timing {len(sample)} questions at {size} chunks\n")
    engine.search(query=sample[0])  # warm
    totals, filtered = [], []
    stages: dict[str, list[float]] = {name: [] for name in ENGINE_STAGES}
    filtered_keyword: list[float] = []
    allowed = list(range(1, size // 4 + 1, 2))  # half the documents: the ACL filter path
    for q in sample:
        embed_query.cache_clear()  # each search embeds its question, as a new question does
        t0 = time.perf_counter()
        result = engine.search(query=q)
        totals.append((time.perf_counter() - t0) * 1000)
        for name in ENGINE_STAGES:
            stages[name].append(result.timings.get(name, 0.0))
        embed_query.cache_clear()
        t0 = time.perf_counter()
        result = engine.search(query=q, version_ids=allowed)
        filtered.append((time.perf_counter() - t0) * 1000)
        filtered_keyword.append(result.timings["keyword"])
    return {
        "p50_ms": _pct(totals, 50),
        "p95_ms": _pct(totals, 95),
        "acl_filtered_p50_ms": _pct(filtered, 50),
        "acl_filtered_p95_ms": _pct(filtered, 95),
        **{f"{name}_{q}_ms": _pct(values, int(q[1:])) for name, values in stages.items() for q in ("p50", "p95")},
        "keyword_acl_filtered_p50_ms": _pct(filtered_keyword, 50),
        "keyword_acl_filtered_p95_ms": _pct(filtered_keyword, 95),
    }


def _pct(values: list[float], q: int) -> float:
    return round(float(np.percentile(values, q)), 2)
