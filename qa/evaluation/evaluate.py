"""Retrieval and answer evaluation over a throw-away index (the evaluate command).

The corpus is chunked and indexed exactly as uploads are (same chunker, same
embedding text, same keyword segmentation) but into a temporary Chroma
directory and a throw-away keyword index, so the live data is never touched.
With answers, each one also gets the verdict the portal would give it, and the
reliability table (``qa.evaluation.scoring``) says how often each confidence level was right.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection, transaction

from documents.chunking import chunk_document
from documents.indexing import IndexItem, IndexStats, index_items
from documents.keyword_index import KeywordIndex, PostgresKeywordIndex, in_memory_fts5
from documents.parsing import ParseError, parse_file
from documents.vectorstore import DenseIndex, open_collection
from qa.engine import ENGINE_STAGES, EngineConfig, HybridEngine, Mode
from qa.expansion import expand
from qa.retrieval import apply_floor_and_diversity
from qa.evaluation.scoring import contains_answer, reliability, reliability_lines
from qa.services import verify_answer as portal_verdict
from qa.types import RetrievedChunk


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


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile of ``values``, rounded to 2 places (0 for an empty list)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 2)


def evaluate(
    *,
    corpus_records: list[dict],
    queries: list[dict],
    modes: list[Mode],
    k: int = 5,
    answers: bool = False,
    rules: list[tuple[str, list[str]]] | None = None,
    config: EngineConfig | None = None,
    max_chars: int = 400,
    overlap: int = 60,
    min_similarity: float = 0.0,
    per_document: int = 2,
    progress: bool = True,
) -> dict:
    """Index the corpus, run every query in each mode, return the metrics."""
    corpus = build_corpus(corpus_records, max_chars=max_chars, overlap=overlap)
    index = ThrowawayIndex()
    try:
        stats: IndexStats = index_items(
            corpus.items,
            dense=index.dense,
            keyword=index.keyword,
            progress=progress_printer("indexing") if progress else None,
        )
        engine = HybridEngine(index.dense, index.keyword, config or EngineConfig.from_settings())
        report: dict = {
            "n": len(queries),
            "corpus": {"documents": len(corpus.doc_numbers), "chunks": len(corpus.items)},
            "indexing": {
                "chunks": stats.chunks,
                "seconds": round(stats.total_seconds, 2),
                "chunks_per_s": round(stats.chunks / stats.total_seconds, 2) if stats.total_seconds else None,
                "encoder_seconds": round(stats.embed_seconds, 2),
                "encoder_share": round(stats.embed_seconds / stats.total_seconds, 3) if stats.total_seconds else None,
            },
            "modes": {},
        }
        provider = None
        if answers:
            from qa.providers.extractive import ExtractiveProvider

            provider = ExtractiveProvider()
        for mode in modes:
            report["modes"][mode] = _run_mode(
                engine,
                corpus,
                queries,
                mode=mode,
                k=k,
                rules=rules or [],
                provider=provider,
                min_similarity=min_similarity,
                per_document=per_document,
                progress=progress,
            )
        return report
    finally:
        index.close()


def _run_mode(
    engine: HybridEngine,
    corpus: Corpus,
    queries: list[dict],
    *,
    mode: Mode,
    k: int,
    rules: list[tuple[str, list[str]]],
    provider,  # noqa: ANN001
    min_similarity: float,
    per_document: int,
    progress: bool,
) -> dict:
    hits_at = {1: 0, 3: 0, 5: 0}
    reciprocal = 0.0
    latencies: list[float] = []
    stage: dict[str, list[float]] = {"expansion": [], **{name: [] for name in ENGINE_STAGES}}
    answer_latencies: list[float] = []
    contains_gold = cites_gold = 0
    judged: list[tuple[str, bool]] = []  # (verdict confidence, answer contains gold)
    by_kind: dict[str, dict[str, float]] = {}
    show = progress_printer(f"queries ({mode})") if progress else None
    for i, q in enumerate(queries, start=1):
        t0 = time.perf_counter()
        expansion = expand(q["question"], rules=rules)
        stage["expansion"].append((time.perf_counter() - t0) * 1000)
        result = engine.search(query=expansion.expanded_query, mode=mode)
        for name in ENGINE_STAGES:
            stage[name].append(result.timings.get(name, 0.0))
        latencies.append((time.perf_counter() - t0) * 1000)

        ranking: list[str] = []
        for c in result.candidates:
            doc = corpus.chunk_doc[c.chunk_id]
            if doc not in ranking:
                ranking.append(doc)
        gold = str(q["gold_doc_id"])
        rank = ranking.index(gold) + 1 if gold in ranking else None
        for cutoff in hits_at:
            hits_at[cutoff] += bool(rank and rank <= cutoff)
        reciprocal += 1.0 / rank if rank else 0.0
        kind = q.get("kind")
        if kind:
            bucket = by_kind.setdefault(kind, {"n": 0, "hit@1": 0, "hit@3": 0, "hit@5": 0, "mrr": 0.0})
            bucket["n"] += 1
            for cutoff in (1, 3, 5):
                bucket[f"hit@{cutoff}"] += bool(rank and rank <= cutoff)
            bucket["mrr"] += 1.0 / rank if rank else 0.0

        if provider is not None:
            top = apply_floor_and_diversity(
                result.candidates,
                {cid: corpus.chunks[cid].document_id for cid in corpus.chunks},
                k=k,
                min_similarity=min_similarity,
                per_document=per_document,
            )
            chunks = [
                RetrievedChunk(
                    chunk_id=c.chunk_id,
                    document_id=corpus.chunks[c.chunk_id].document_id,
                    version_id=corpus.chunks[c.chunk_id].version_id,
                    filename=corpus.chunk_doc[c.chunk_id],
                    section=corpus.chunks[c.chunk_id].heading_path,
                    text=corpus.chunks[c.chunk_id].text,
                    score=c.score,
                    similarity=c.similarity or 0.0,
                )
                for c in top
            ]
            t1 = time.perf_counter()
            generated = provider.generate(q["question"], chunks, expanded_terms=expansion.added_keywords)
            answer_latencies.append((time.perf_counter() - t1) * 1000)
            correct = contains_answer(generated.text, any_of=q.get("answers", []), all_of=q.get("answers_all", []))
            contains_gold += correct
            # The confidence the portal would show: the answering service's own verify() call.
            judged.append((portal_verdict(q["question"], generated, chunks).confidence, correct))
            first = next((c for b in generated.blocks for c in b.citations if c.chunk_index is not None), None)
            cites_gold += bool(first and chunks[first.chunk_index].filename == gold)
        if show:
            show(i, len(queries))

    n = len(queries) or 1
    out: dict = {
        "n": len(queries),
        "hit@1": round(hits_at[1] / n, 4),
        "hit@3": round(hits_at[3] / n, 4),
        "hit@5": round(hits_at[5] / n, 4),
        "mrr": round(reciprocal / n, 4),
        "latency_ms": {
            "p50": percentile(latencies, 0.5),
            "p95": percentile(latencies, 0.95),
            "stages_p50": {name: percentile(v, 0.5) for name, v in stage.items()},
            "stages_p95": {name: percentile(v, 0.95) for name, v in stage.items()},
        },
    }
    if by_kind:
        out["by_kind"] = {
            kind: {key: (round(v / b["n"], 4) if key != "n" else v) for key, v in b.items()}
            for kind, b in by_kind.items()
        }
    if provider is not None:
        out["answer_contains_gold"] = round(contains_gold / n, 4)
        out["citation_hits_gold"] = round(cites_gold / n, 4)
        out["answer_latency_ms"] = {"p50": percentile(answer_latencies, 0.5), "p95": percentile(answer_latencies, 0.95)}
        out["reliability"] = reliability(judged)
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
        if "answer_contains_gold" in m:
            lines.append(
                f"  answers: contains_gold={m['answer_contains_gold']:.4f} citation_hits_gold={m['citation_hits_gold']:.4f} "
                f"answer p50={m['answer_latency_ms']['p50']}ms p95={m['answer_latency_ms']['p95']}ms"
            )
        if "reliability" in m:
            lines.extend(reliability_lines({"answers (verdict)": m["reliability"]}, indent="  "))
    return "\n".join(lines)
