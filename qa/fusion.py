"""Fusing dense and keyword rankings (weighted reciprocal-rank fusion)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass
class Candidate:
    chunk_id: int
    score: float = 0.0
    similarity: float | None = None
    dense_rank: int | None = None
    keyword_rank: int | None = None
    bm25: float | None = None


def weighted_rrf(
    dense: Sequence[tuple[int, float]],
    keyword: Sequence[tuple[int, float]],
    *,
    dense_weight: float = 1.0,
    keyword_weight: float = 1.0,
    k: int = 60,
) -> list[Candidate]:
    """Fuse ``(chunk_id, similarity)`` and ``(chunk_id, bm25)`` rankings, best first.

    score = w_d / (k + rank_d) + w_k / (k + rank_k), ranks from 1; a list a
    chunk is missing from contributes nothing. Ties break by chunk id so the
    order is deterministic.
    """
    by_id: dict[int, Candidate] = {}
    for rank, (chunk_id, similarity) in enumerate(dense, start=1):
        c = by_id.setdefault(chunk_id, Candidate(chunk_id))
        c.dense_rank, c.similarity = rank, similarity
        c.score += dense_weight / (k + rank)
    for rank, (chunk_id, bm25) in enumerate(keyword, start=1):
        c = by_id.setdefault(chunk_id, Candidate(chunk_id))
        c.keyword_rank, c.bm25 = rank, bm25
        c.score += keyword_weight / (k + rank)
    return sorted(by_id.values(), key=lambda c: (-c.score, c.chunk_id))
