"""The hybrid retrieval engine over a dense index and a keyword index.

Independent of the ORM and of who is asking: the portal's search restricts it
to the versions a user may see; the evaluate command runs it over a throw-away
index. Modes ``dense`` and ``keyword`` run one half alone, for measurement.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

import numpy as np

from documents.embeddings import embed_query
from documents.keyword_index import KeywordHit, KeywordIndex
from documents.segmentation import tokens
from documents.vectorstore import DenseHit, DenseIndex
from qa.fusion import Candidate, keyword_led, score_fusion, weighted_rrf
from qa.rerank import rerank, reorder, sentence_keys

Mode = Literal["hybrid", "dense", "keyword"]
# The access filter runs after the search when that is exact: an unfiltered search for this many
# times the candidates keeps the hits of the versions the user may read, and when at least the
# candidates remain they are the best visible ones (nothing visible ranks between them). A filtered
# search costs every question a lot on a large index (Chroma's ``$in`` over thousands of versions,
# the PostgreSQL postings joined with them), and most users may read most of it. A user who may read
# little of the index gets too few visible hits that way, and then the filtered search runs.
POST_FILTER_FACTOR = 3


class _Hit(Protocol):
    @property
    def version_id(self) -> int | None: ...


_HitT = TypeVar("_HitT", bound=_Hit)

# The dense search (Chroma, with the question already embedded) runs in this thread while the
# calling thread runs the keyword half: both mostly wait (on Chroma's engine, on the database), so
# they overlap and a question waits for the slower one. The embedding itself runs before, on the
# caller's thread: the encoder's OpenMP threads take every core, and measured on two cores a
# keyword search run beside them made the question slower (benchmark_api p50 131 → 104 ms once
# moved out). The keyword half stays on the caller's thread, and so on its database connection.
_DENSE_HALF = ThreadPoolExecutor(max_workers=4, thread_name_prefix="dense-search")


def visible_hits(
    search: Callable[[int, list[int] | None], Sequence[_HitT]], *, n: int, version_ids: list[int] | None
) -> list[_HitT]:
    """The best ``n`` hits of ``search(n, version_ids)``, found by an unfiltered search when that is exact.

    ``search(k, ids)`` returns the best ``k`` hits among versions ``ids`` (None: all), each with its version.
    """
    if version_ids is not None and len(version_ids) > 1:
        wide = n * POST_FILTER_FACTOR
        hits = search(wide, None)
        allowed = set(version_ids)
        kept = [h for h in hits if h.version_id in allowed]
        if len(kept) >= n or len(hits) < wide:  # fewer than asked: the search returned every match
            return kept[:n]
    return list(search(n, version_ids))


# The timings a search reports, in order (milliseconds).
ENGINE_STAGES = ("embed", "dense", "keyword", "fusion", "sentences", "rerank")

# Chunk ids → each chunk's sentence vectors (documents.sentence_vectors: a row per sentence,
# L2-normalised); a chunk it cannot find is left out. The portal reads them from the chunk rows
# (made and stored on first use), the evaluate command from its own corpus.
SentenceSource = Callable[[Sequence[int]], Mapping[int, np.ndarray]]


@dataclass(frozen=True)
class EngineConfig:
    """How the engine ranks. Built by :meth:`from_settings`, the one place its defaults come from."""

    candidates: int
    fusion: Literal["score", "rrf"]
    dense_weight: float
    dense_weight_keyword_led: float
    keyword_lead_ratio: float
    rrf_k: int
    # Lexical re-ranking of sibling chunks among the top fused candidates
    # (qa.rerank); weight 0 turns it off.
    rerank_weight: float
    rerank_depth: int
    # Re-ranking of the top fused candidates by their best sentence's similarity to the
    # query (qa.rerank.sentence_keys); 0 turns it off, as does an engine without sentences.
    sentence_depth: int

    @classmethod
    def from_settings(cls, **overrides: Any) -> EngineConfig:
        """The ``RAG_*`` settings (see ragportal/settings.py), with ``overrides`` by field name."""
        from django.conf import settings

        values = {
            "candidates": settings.RAG_CANDIDATES,
            "fusion": settings.RAG_FUSION,
            "dense_weight": settings.RAG_DENSE_WEIGHT,
            "dense_weight_keyword_led": settings.RAG_DENSE_WEIGHT_KEYWORD_LED,
            "keyword_lead_ratio": settings.RAG_KEYWORD_LEAD_RATIO,
            "rrf_k": settings.RAG_RRF_K,
            "rerank_weight": settings.RAG_RERANK_WEIGHT,
            "rerank_depth": settings.RAG_RERANK_DEPTH,
            "sentence_depth": settings.RAG_SENTENCE_RERANK_DEPTH,
        }
        return cls(**{**values, **overrides})


@dataclass
class EngineResult:
    candidates: list[Candidate]
    timings: dict[str, float] = field(default_factory=dict)


@contextmanager
def _timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    """Record the milliseconds spent in the block under ``stage``."""
    started = time.perf_counter()
    try:
        yield
    finally:
        timings[stage] = (time.perf_counter() - started) * 1000


class HybridEngine:
    def __init__(
        self,
        dense: DenseIndex,
        keyword: KeywordIndex,
        config: EngineConfig | None = None,
        *,
        sentences: SentenceSource | None = None,
    ) -> None:
        self.dense = dense
        self.keyword = keyword
        self.config = config or EngineConfig.from_settings()
        self.sentences = sentences

    def search(
        self,
        *,
        query: str,
        version_ids: list[int] | None = None,
        mode: Mode = "hybrid",
        dense_query: str | None = None,
        keyword_query: str | None = None,
        keyword_ranks: bool = True,
    ) -> EngineResult:
        """Fused candidates for ``query`` (the expanded query), best first, each with its dense similarity.

        Both halves search ``query``, unless ``dense_query`` is given: then the dense half
        embeds that instead (and similarities are to it). ``keyword_ranks`` False: the
        keyword half adds candidates but the dense half alone orders them (hybrid mode). ``keyword_query``
        given, the keyword half searches that instead, and where it singles out passages
        (qa.fusion.keyword_led) it leads the order as in a keyword-led fusion.
        ``version_ids`` None searches everything; an empty list finds nothing. Modes
        ``dense`` and ``keyword`` rank by one half alone.
        """
        timings: dict[str, float] = {}
        if version_ids is not None and not version_ids:
            return EngineResult([], timings)

        with _timed(timings, "embed"):
            query_vector = embed_query(query if dense_query is None else dense_query)

        def dense_half() -> list[tuple[int, float]]:
            with _timed(timings, "dense"):
                return [] if mode == "keyword" else self._dense_hits(query_vector, version_ids)

        dense_future = _DENSE_HALF.submit(dense_half)
        try:
            with _timed(timings, "keyword"):
                keyword_hits = [] if mode == "dense" else self._keyword_hits(keyword_query or query, version_ids)
                # Keyword-only candidates get their dense similarity too (scores and the relevance
                # floor use it): their vectors are read while the dense half still runs.
                vectors = self.dense.vectors([chunk_id for chunk_id, _ in keyword_hits])
        finally:
            dense_hits = dense_future.result()
        with _timed(timings, "fusion"):
            fused = self._fuse(
                dense_hits, keyword_hits, mode, keyword_ranks=keyword_ranks, keyword_leads=keyword_query is not None
            )
            for c in fused:
                if c.similarity is None:
                    vector = vectors.get(c.chunk_id)
                    c.similarity = float(vector @ query_vector) if vector is not None else 0.0
        keys: dict[int, float] = {}
        with _timed(timings, "sentences"):
            if self._by_meaning(mode, keyword_hits):
                keys = self._sentence_keys(fused, query_vector)
                fused = reorder(fused, keys)
        with _timed(timings, "rerank"):
            if mode == "hybrid" and self.config.rerank_weight > 0:
                fused = self._rerank(fused, query, keys)
        return EngineResult(fused, timings)

    def _dense_hits(self, query_vector: Any, version_ids: list[int] | None) -> list[tuple[int, float]]:
        def search(n: int, ids: list[int] | None) -> list[DenseHit]:
            where = None
            if ids is not None:
                where = {"version_id": {"$in": list(ids)}} if len(ids) > 1 else {"version_id": ids[0]}
            return self.dense.search(query_vector, n=n, where=where)

        hits = visible_hits(search, n=self.config.candidates, version_ids=version_ids)
        return [(h.chunk_id, h.similarity) for h in hits]

    def _keyword_hits(self, query: str, version_ids: list[int] | None) -> list[tuple[int, float]]:
        def search(n: int, ids: list[int] | None) -> list[KeywordHit]:
            return self.keyword.search(query, n=n, version_ids=ids)

        hits = visible_hits(search, n=self.config.candidates, version_ids=version_ids)
        return [(h.chunk_id, h.bm25) for h in hits]

    def _fuse(
        self,
        dense_hits: list[tuple[int, float]],
        keyword_hits: list[tuple[int, float]],
        mode: Mode,
        *,
        keyword_ranks: bool = True,
        keyword_leads: bool = False,
    ) -> list[Candidate]:
        cfg = self.config
        if mode == "hybrid" and not keyword_ranks:
            led = cfg.dense_weight_keyword_led if keyword_leads else 1.0
            return score_fusion(
                dense_hits,
                keyword_hits,
                dense_weight=1.0,
                dense_weight_keyword_led=led,
                lead_ratio=cfg.keyword_lead_ratio,
            )
        if mode != "hybrid":
            # One half alone: its own ranking (the other list is empty).
            return weighted_rrf(dense_hits, keyword_hits, k=cfg.rrf_k)
        if cfg.fusion == "rrf":
            return weighted_rrf(
                dense_hits,
                keyword_hits,
                dense_weight=cfg.dense_weight,
                keyword_weight=1 - cfg.dense_weight,
                k=cfg.rrf_k,
            )
        return score_fusion(
            dense_hits,
            keyword_hits,
            dense_weight=cfg.dense_weight,
            dense_weight_keyword_led=cfg.dense_weight_keyword_led,
            lead_ratio=cfg.keyword_lead_ratio,
        )

    def _by_meaning(self, mode: Mode, keyword_hits: list[tuple[int, float]]) -> bool:
        """Whether to re-rank by sentence meaning: in hybrid mode with sentences, unless the words decide.

        When BM25's best hit stands clearly above its fifth (qa.fusion.keyword_led), the
        question shares distinctive words with one passage and the fusion already lets
        them lead; a sentence that echoes the question's form (「いつまでに」) would only
        pull a passage about something else past it. Everyday wording leaves the keyword
        ranking flat, and there meaning decides. The same test as the fusion's, so no new
        threshold.
        """
        cfg = self.config
        return (
            mode == "hybrid"
            and self.sentences is not None
            and cfg.sentence_depth >= 2
            and not keyword_led(keyword_hits, lead_ratio=cfg.keyword_lead_ratio)
        )

    def _sentence_keys(self, fused: list[Candidate], query_vector: np.ndarray) -> dict[int, float]:
        """The re-ranking keys of the top candidates by meaning (qa.rerank.sentence_keys)."""
        assert self.sentences is not None
        depth = self.config.sentence_depth
        matrices = self.sentences([c.chunk_id for c in fused[:depth]])
        return sentence_keys(fused, matrices, query_vector, depth=depth)

    def _rerank(self, fused: list[Candidate], query: str, keys: Mapping[int, float]) -> list[Candidate]:
        depth = self.config.rerank_depth
        head = [c.chunk_id for c in fused[:depth]]
        bodies = {cid: body.split() for cid, body in self.keyword.bodies(head).items()}
        return rerank(
            fused,
            tokens(query),
            bodies,
            self.dense.documents_of(head),
            depth=depth,
            weight=self.config.rerank_weight,
            base=keys,
        )
