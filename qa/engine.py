"""The hybrid retrieval engine over a dense index and a keyword index.

Independent of the ORM and of who is asking: the portal's search restricts it
to the versions a user may see; the evaluate command runs it over a throw-away
index. Modes ``dense`` and ``keyword`` run one half alone, for measurement.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from documents.embeddings import embed_queries
from documents.keyword_index import KeywordIndex
from documents.segmentation import tokens
from documents.vectorstore import DenseIndex
from qa.fusion import Candidate, score_fusion, weighted_rrf
from qa.rerank import rerank

Mode = Literal["hybrid", "dense", "keyword"]
# The timings a search reports, in order (milliseconds).
ENGINE_STAGES = ("dense", "keyword", "fusion", "rerank")


@dataclass
class EngineConfig:
    candidates: int = 50
    fusion: Literal["score", "rrf"] = "score"
    dense_weight: float = 0.7
    dense_weight_keyword_led: float = 0.4
    keyword_lead_ratio: float = 1.2
    rrf_k: int = 60
    # Lexical re-ranking of sibling chunks among the top fused candidates
    # (qa.rerank); weight 0 turns it off.
    rerank_weight: float = 0.1
    rerank_depth: int = 20


@dataclass
class EngineResult:
    candidates: list[Candidate]
    timings: dict[str, float] = field(default_factory=dict)


class HybridEngine:
    def __init__(self, dense: DenseIndex, keyword: KeywordIndex, config: EngineConfig | None = None) -> None:
        self.dense = dense
        self.keyword = keyword
        self.config = config or EngineConfig()

    def search(
        self,
        *,
        question: str,
        expanded_query: str,
        version_ids: list[int] | None = None,
        mode: Mode = "hybrid",
    ) -> EngineResult:
        """Fused candidates, best first, each with its dense similarity to the question.

        The dense half embeds the expanded query; the keyword half searches it too.
        ``version_ids`` None searches everything; an empty list finds nothing.
        """
        cfg = self.config
        timings: dict[str, float] = {}
        if version_ids is not None and not version_ids:
            return EngineResult([], timings)
        where = None
        if version_ids is not None:
            where = {"version_id": {"$in": list(version_ids)}} if len(version_ids) > 1 else {"version_id": version_ids[0]}

        t0 = time.perf_counter()
        query_vector = embed_queries([expanded_query])[0]
        dense_hits = []
        if mode != "keyword":
            dense_hits = [(h.chunk_id, h.similarity) for h in self.dense.search(query_vector, n=cfg.candidates, where=where)]
        timings["dense"] = (time.perf_counter() - t0) * 1000

        t0 = time.perf_counter()
        keyword_hits = []
        if mode != "dense":
            keyword_hits = [
                (h.chunk_id, h.bm25) for h in self.keyword.search(expanded_query, n=cfg.candidates, version_ids=version_ids)
            ]
        timings["keyword"] = (time.perf_counter() - t0) * 1000

        t0 = time.perf_counter()
        if mode != "hybrid":
            # One half alone: its own ranking (the other list is empty).
            fused = weighted_rrf(dense_hits, keyword_hits, k=cfg.rrf_k)
        elif cfg.fusion == "rrf":
            fused = weighted_rrf(
                dense_hits, keyword_hits, dense_weight=cfg.dense_weight, keyword_weight=1 - cfg.dense_weight, k=cfg.rrf_k
            )
        else:
            fused = score_fusion(
                dense_hits,
                keyword_hits,
                dense_weight=cfg.dense_weight,
                dense_weight_keyword_led=cfg.dense_weight_keyword_led,
                lead_ratio=cfg.keyword_lead_ratio,
            )
        self._fill_similarity(fused, query_vector)
        timings["fusion"] = (time.perf_counter() - t0) * 1000

        t0 = time.perf_counter()
        if mode == "hybrid" and cfg.rerank_weight > 0:
            head = [c.chunk_id for c in fused[: cfg.rerank_depth]]
            bodies = {cid: body.split() for cid, body in self.keyword.bodies(head).items()}
            fused = rerank(
                fused,
                tokens(expanded_query),
                bodies,
                self.dense.documents_of(head),
                depth=cfg.rerank_depth,
                weight=cfg.rerank_weight,
            )
        timings["rerank"] = (time.perf_counter() - t0) * 1000
        return EngineResult(fused, timings)

    def _fill_similarity(self, candidates: list[Candidate], query_vector: np.ndarray) -> None:
        """Keyword-only candidates get their dense similarity too (scores and the relevance floor use it)."""
        missing = [c for c in candidates if c.similarity is None]
        if not missing:
            return
        got = self.dense.collection.get(ids=[str(c.chunk_id) for c in missing], include=["embeddings"])
        vectors = {int(i): np.asarray(e, dtype=np.float32) for i, e in zip(got["ids"], got["embeddings"], strict=True)}
        for c in missing:
            vector = vectors.get(c.chunk_id)
            c.similarity = float(vector @ query_vector) if vector is not None else 0.0
