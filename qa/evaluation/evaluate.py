"""Retrieval and answer evaluation over a throw-away index (the evaluate command).

The corpus is chunked and indexed exactly as uploads are (same chunker, same
embedding text, same keyword segmentation) but into a temporary Chroma
directory and a throw-away keyword index, so the live data is never touched.
Answers are not measured here but in :mod:`qa.evaluation.answers`, through
the answering service itself, so that they are the portal's answers.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from django.db import connection, transaction

from documents.chunking import chunk_document
from documents.indexing import IndexItem, IndexStats, index_items
from documents.keyword_index import KeywordIndex, PostgresKeywordIndex, in_memory_fts5
from documents.parsing import ParseError, parse_file
from documents.sentence_vectors import embed_chunk_sentences
from documents.vectorstore import DenseIndex, open_collection
from qa.engine import ENGINE_STAGES, EngineConfig, HybridEngine, Mode, SentenceSource
from qa.evaluation.scoring import percentile, reliability_lines
from qa.expansion import expand


@dataclass
class Corpus:
    items: list[IndexItem]
    chunk_doc: dict[int, str]  # chunk id → corpus doc_id
    chunks: dict[int, IndexItem]
    doc_numbers: dict[str, int] = field(default_factory=dict)


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def build_corpus(records: Iterable[dict], *, max_chars: int, overlap: int) -> Corpus:
    """Chunk every corpus line; each line is one version, scored by its ``doc_id``.

    Lines that share a title are filed under one document, as the paragraphs of
    an article uploaded whole would be: the re-ranker (qa.rerank) treats them as
    siblings and the answer step's per-document cap applies to them together.
    Lines without a title are documents of their own.
    """
    items: list[IndexItem] = []
    chunk_doc: dict[int, str] = {}
    doc_numbers: dict[str, int] = {}
    documents: dict[tuple[str, str], int] = {}
    next_id = 1
    for record in records:
        doc_id = str(record["doc_id"])
        number = doc_numbers.setdefault(doc_id, len(doc_numbers) + 1)
        title = str(record.get("title") or "")
        document = documents.setdefault(("title", title) if title else ("doc", doc_id), len(documents) + 1)
        try:  # parsed as an uploaded Markdown file would be
            parsed = parse_file("corpus.md", str(record["text"]).encode("utf-8"))
        except ParseError:
            continue
        for span in chunk_document(parsed, max_chars=max_chars, overlap=overlap):
            items.append(
                IndexItem(
                    chunk_id=next_id,
                    document_id=document,
                    version_id=number,
                    heading_path=span.heading_path,
                    text=span.text,
                    title=record.get("title", ""),
                )
            )
            chunk_doc[next_id] = doc_id
            next_id += 1
    return Corpus(items=items, chunk_doc=chunk_doc, chunks={i.chunk_id: i for i in items}, doc_numbers=doc_numbers)


def progress_printer(label: str) -> Callable[[int, int], None]:
    tty = sys.stderr.isatty()
    last = [0.0]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < (0.2 if tty else 10):
            return
        last[0] = now
        end = "\n" if (done >= total or not tty) else ""
        sys.stderr.write(f"\r{label}: {done}/{total}{end}")
        sys.stderr.flush()

    return show


class ThrowawayIndex:
    """A temporary dense + keyword index holding one corpus.

    The keyword half is on the portal's database engine: an in-memory SQLite
    FTS5 table, or on PostgreSQL the keyword tables in a schema of their own,
    dropped afterwards (so ``evaluate`` measures the engine the portal runs on).
    """

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="ragportal-eval-")
        self.dense = DenseIndex(open_collection(path=self._tmp.name, name="eval", cache=False))
        self._db: sqlite3.Connection | None = None
        self.keyword: KeywordIndex
        if connection.vendor == "postgresql":
            schema = f"ragportal_eval_{secrets.token_hex(6)}"
            self.keyword = PostgresKeywordIndex(connection.cursor, transaction.atomic, schema=schema)
            self.keyword.create()
        else:
            self.keyword, self._db = in_memory_fts5()  # created already

    @property
    def keyword_backend(self) -> str:
        return "postgresql" if isinstance(self.keyword, PostgresKeywordIndex) else "sqlite-fts5"

    def settle(self) -> None:
        """After a bulk fill: bring PostgreSQL's planner statistics and visibility map to where autovacuum would."""
        if isinstance(self.keyword, PostgresKeywordIndex):
            self.keyword.vacuum()

    def close(self) -> None:
        if isinstance(self.keyword, PostgresKeywordIndex):
            self.keyword.drop_schema()
        if self._db is not None:
            self._db.close()
        self._tmp.cleanup()


def evaluate(
    *,
    corpus_records: list[dict],
    queries: list[dict],
    modes: list[Mode],
    rules: list[tuple[str, list[str]]] | None = None,
    config: EngineConfig | None = None,
    max_chars: int = 400,
    overlap: int = 60,
    progress: bool = True,
) -> dict:
    """Index the corpus, run every query's retrieval in each mode, return the metrics."""
    corpus = build_corpus(corpus_records, max_chars=max_chars, overlap=overlap)
    index = ThrowawayIndex()
    try:
        stats: IndexStats = index_items(
            corpus.items,
            dense=index.dense,
            keyword=index.keyword,
            progress=progress_printer("indexing") if progress else None,
        )
        engine = HybridEngine(
            index.dense, index.keyword, config or EngineConfig.from_settings(), sentences=_sentences_of(corpus)
        )
        report: dict = {
            "n": len(queries),
            "corpus": {"documents": len(corpus.doc_numbers), "chunks": len(corpus.items)},
            "indexing": _indexing_figures(stats),
            "modes": {},
        }
        for mode in modes:
            show = progress_printer(f"queries ({mode})") if progress else None
            report["modes"][mode] = _run_mode(engine, corpus, queries, mode=mode, rules=rules or [], progress=show)
        return report
    finally:
        index.close()


def _sentences_of(corpus: Corpus) -> SentenceSource:
    """The corpus's chunks' sentence vectors by id, made when first asked for and then kept for the run."""
    made: dict[int, np.ndarray] = {}

    def matrices(chunk_ids: Sequence[int]) -> dict[int, np.ndarray]:
        missing = [i for i in chunk_ids if i not in made and i in corpus.chunks]
        for i, matrix in zip(missing, embed_chunk_sentences([corpus.chunks[i].text for i in missing]), strict=True):
            made[i] = matrix
        return {i: made[i] for i in chunk_ids if i in made}

    return matrices


def _indexing_figures(stats: IndexStats) -> dict:
    seconds = stats.total_seconds
    return {
        "chunks": stats.chunks,
        "seconds": round(seconds, 2),
        "chunks_per_s": round(stats.chunks / seconds, 2) if seconds else None,
        "encoder_seconds": round(stats.embed_seconds, 2),
        "encoder_share": round(stats.embed_seconds / seconds, 3) if seconds else None,
    }


@dataclass
class _Ranks:
    """Where each query's gold document ranked, overall and per query kind."""

    ranks: list[int | None] = field(default_factory=list)
    by_kind: dict[str, list[int | None]] = field(default_factory=dict)

    def add(self, rank: int | None, kind: str | None) -> None:
        self.ranks.append(rank)
        if kind:
            self.by_kind.setdefault(kind, []).append(rank)

    @staticmethod
    def figures(ranks: list[int | None]) -> dict:
        n = len(ranks) or 1
        out: dict = {"n": len(ranks)}
        for cutoff in (1, 3, 5):
            out[f"hit@{cutoff}"] = round(sum(bool(r and r <= cutoff) for r in ranks) / n, 4)
        out["mrr"] = round(sum(1.0 / r for r in ranks if r) / n, 4)
        return out


def _run_mode(
    engine: HybridEngine,
    corpus: Corpus,
    queries: list[dict],
    *,
    mode: Mode,
    rules: list[tuple[str, list[str]]],
    progress: Callable[[int, int], None] | None,
) -> dict:
    """Retrieval figures of one mode: hit@1/3/5 and MRR of the gold document, latency per stage."""
    ranks = _Ranks()
    latencies: list[float] = []
    stage: dict[str, list[float]] = {"expansion": [], **{name: [] for name in ENGINE_STAGES}}
    for i, q in enumerate(queries, start=1):
        t0 = time.perf_counter()
        expansion = expand(q["question"], rules=rules)
        stage["expansion"].append((time.perf_counter() - t0) * 1000)
        result = engine.search(query=expansion.expanded_query, mode=mode)
        for name in ENGINE_STAGES:
            stage[name].append(result.timings.get(name, 0.0))
        latencies.append((time.perf_counter() - t0) * 1000)
        ranking = list(dict.fromkeys(corpus.chunk_doc[c.chunk_id] for c in result.candidates))
        gold = str(q["gold_doc_id"])
        ranks.add(ranking.index(gold) + 1 if gold in ranking else None, q.get("kind"))
        if progress:
            progress(i, len(queries))
    out = _Ranks.figures(ranks.ranks)
    out["latency_ms"] = {
        "p50": percentile(latencies, 0.5),
        "p95": percentile(latencies, 0.95),
        "stages_p50": {name: percentile(v, 0.5) for name, v in stage.items()},
        "stages_p95": {name: percentile(v, 0.95) for name, v in stage.items()},
    }
    if ranks.by_kind:
        out["by_kind"] = {kind: _Ranks.figures(r) for kind, r in ranks.by_kind.items()}
    return out


def summary_table(report: dict) -> str:
    lines = [f"{'mode':8} {'n':>6} {'hit@1':>7} {'hit@3':>7} {'hit@5':>7} {'mrr':>7} {'p50ms':>7} {'p95ms':>7}"]
    for mode, m in report["modes"].items():
        lines.append(
            f"{mode:8} {m['n']:>6} {m['hit@1']:>7.4f} {m['hit@3']:>7.4f} {m['hit@5']:>7.4f} {m['mrr']:>7.4f} "
            f"{m['latency_ms']['p50']:>7.2f} {m['latency_ms']['p95']:>7.2f}"
        )
        for kind, b in m.get("by_kind", {}).items():
            lines.append(
                f"  {kind:6} {b['n']:>6} {b['hit@1']:>7.4f} {b['hit@3']:>7.4f} {b['hit@5']:>7.4f} {b['mrr']:>7.4f}"
            )
    answers = report.get("answers")
    if answers:
        types = ", ".join(f"{name} {n}" for name, n in sorted(answers["response_types"].items()))
        lines += [
            f"answers through the answering service (n={answers['n']}): "
            f"contains_gold={answers['answer_contains_gold']:.4f} citation_hits_gold={answers['citation_hits_gold']:.4f} "
            f"p50={answers['answer_latency_ms']['p50']}ms p95={answers['answer_latency_ms']['p95']}ms",
            f"  response types: {types}",
        ]
        lines.extend(reliability_lines({"answers (shown confidence)": answers["reliability"]}, indent="  "))
    return "\n".join(lines)
