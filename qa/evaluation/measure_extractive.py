"""Measure the extractive provider on JSQuAD (a script, not a test).

Usage (from the project root):

    .venv/bin/python -m qa.evaluation.measure_extractive [--data ../shared/data/jsquad-valid] [-n 1000] [--seed 13]

For each sampled question the provider gets five chunks: the gold paragraph
plus four distractors, ordered best first by a character-bigram BM25 score
against the question (standing in for retrieval, so the gold paragraph is not
always first). Two distractor sets are measured:

- ``random``: four paragraphs drawn at random from other articles;
- ``same-article``: up to four other paragraphs of the gold paragraph's own
  article (topically close, much harder), topped up at random.

Printed per set: answer_contains_gold (the answer text contains one of the
gold answer strings), citation_hits_gold (the first citation points into the
gold paragraph), abstention rate and p50/p95 provider latency (no retrieval).
Also the false-answer rate on unanswerable questions: the same question with
five random paragraphs none of which is gold (lower is better; the provider
should abstain).

The real end-to-end number comes from the project's evaluate command with
real retrieval; this isolates the provider.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from qa.providers.extractive import ExtractiveProvider
from qa.types import RetrievedChunk


def _bigrams(text: str) -> list[str]:
    return [text[i : i + 2] for i in range(len(text) - 1)]


def _bm25_order(
    question: str, paragraphs: list[dict], corpus_df: Counter, corpus_size: int, avg_len: float
) -> list[dict]:
    """Paragraphs sorted by a char-bigram BM25 score against the question (best first)."""
    query = set(_bigrams(question))
    scored = []
    for para in paragraphs:
        counts = Counter(_bigrams(para["text"]))
        length = sum(counts.values())
        score = 0.0
        for term in query:
            tf = counts.get(term, 0)
            if not tf:
                continue
            idf = math.log(1 + (corpus_size - corpus_df[term] + 0.5) / (corpus_df[term] + 0.5))
            score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avg_len))
        scored.append((score, para["doc_id"], para))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [para for _, _, para in scored]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


@dataclass
class _Data:
    """The JSQuAD corpus and queries, with what the distractor choice and the BM25 order need."""

    corpus: list[dict]
    queries: list[dict]
    by_id: dict[str, dict]
    by_title: dict[str, list[dict]]
    corpus_df: Counter
    avg_len: float

    @classmethod
    def load(cls, data: Path) -> _Data:
        corpus = [json.loads(line) for line in (data / "jsquad-valid-corpus.jsonl").open(encoding="utf-8")]
        queries = [json.loads(line) for line in (data / "jsquad-valid-queries.jsonl").open(encoding="utf-8")]
        by_title: dict[str, list[dict]] = {}
        for para in corpus:
            by_title.setdefault(para["title"], []).append(para)
        corpus_df: Counter = Counter()
        for para in corpus:
            corpus_df.update(set(_bigrams(para["text"])))
        avg_len = sum(len(p["text"]) for p in corpus) / len(corpus)
        return cls(corpus, queries, {para["doc_id"]: para for para in corpus}, by_title, corpus_df, avg_len)

    def others(self, gold: dict) -> list[dict]:
        return [p for p in self.corpus if p["title"] != gold["title"]]

    def distractors(self, gold: dict, setting: str, rng: random.Random) -> list[dict]:
        if setting == "random":
            return rng.sample(self.others(gold), 4)
        siblings = [p for p in self.by_title[gold["title"]] if p["doc_id"] != gold["doc_id"]]
        chosen = rng.sample(siblings, min(4, len(siblings)))
        return chosen + rng.sample(self.others(gold), 4 - len(chosen))


def _as_chunks(paragraphs: list[dict]) -> list[RetrievedChunk]:
    return [
        RetrievedChunk(
            chunk_id=i, document_id=i, version_id=i, filename=p["doc_id"], section=p["title"], text=p["text"]
        )
        for i, p in enumerate(paragraphs)
    ]


def _measure(
    data: _Data, sample: list[dict], setting: str, *, provider: ExtractiveProvider, rng: random.Random, show_misses: int
) -> str:
    """One distractor setting's line: answer contains gold, first citation on gold, abstentions, latency."""
    contains = hits = abstained = 0
    latencies: list[float] = []
    misses_shown = 0
    for query in sample:
        gold = data.by_id[query["gold_doc_id"]]
        candidates = [gold, *data.distractors(gold, setting, rng)]
        ordered = _bm25_order(query["question"], candidates, data.corpus_df, len(data.corpus), data.avg_len)
        answer = provider.generate(query["question"], _as_chunks(ordered))
        latencies.append(answer.latency_ms)
        gold_index = ordered.index(gold)
        abstained += answer.abstained
        got = any(a in answer.text for a in query["answers"])
        contains += got
        first = next((c for b in answer.blocks for c in b.citations), None)
        hit = first is not None and first.chunk_index == gold_index
        hits += hit
        if (not got or not hit) and misses_shown < show_misses:
            misses_shown += 1
            print(
                f"  MISS q={query['question']!r} gold={query['answers'][0]!r} rank={gold_index} ans={answer.text[:120]!r}"
            )
    total = len(sample)
    return (
        f"[{setting}] n={total} answer_contains_gold={contains / total:.3f} "
        f"citation_hits_gold={hits / total:.3f} abstained={abstained / total:.3f} "
        f"latency_ms p50={_percentile(latencies, 0.5):.2f} p95={_percentile(latencies, 0.95):.2f} "
        f"mean={statistics.fmean(latencies):.2f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", default="../shared/data/jsquad-valid")
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threshold", type=float, default=None)
    parser.add_argument("--show-misses", type=int, default=0)
    args = parser.parse_args(argv)

    data = _Data.load(Path(args.data))
    rng = random.Random(args.seed)
    sample = rng.sample(data.queries, min(args.n, len(data.queries)))
    provider = ExtractiveProvider() if args.threshold is None else ExtractiveProvider(threshold=args.threshold)
    for setting in ("random", "same-article"):
        print(_measure(data, sample, setting, provider=provider, rng=rng, show_misses=args.show_misses))
    false_answers = 0
    for query in sample:
        gold = data.by_id[query["gold_doc_id"]]
        answer = provider.generate(query["question"], _as_chunks(rng.sample(data.others(gold), 5)))
        false_answers += not answer.abstained
    print(f"[unanswerable] n={len(sample)} answered_anyway={false_answers / len(sample):.3f} (lower is better)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
