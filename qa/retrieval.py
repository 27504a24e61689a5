"""Search for the portal: expansion, access-controlled hybrid retrieval, top-k, clarification.

A user only ever retrieves chunks of the live versions of documents they may
see (documents.selectors); the restriction is applied inside both indexes, not
after the fact, so a restricted document can never crowd into a result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from django.conf import settings

from documents.keyword_index import live_keyword_index
from documents.models import Chunk
from documents.selectors import searchable_version_ids
from documents.vectorstore import DenseIndex, live_collection
from qa.engine import EngineConfig, HybridEngine, Mode
from qa.expansion import dictionary_rules, expand
from qa.fusion import Candidate
from qa.types import RetrievedChunk


@dataclass
class SearchResult:
    query: str
    expanded_query: str
    added_keywords: list[str]
    hits: list[RetrievedChunk]
    timings: dict[str, float] = field(default_factory=dict)


def live_engine() -> HybridEngine:
    return HybridEngine(DenseIndex(live_collection()), live_keyword_index(), EngineConfig.from_settings())


def apply_floor_and_diversity(
    candidates: list[Candidate],
    document_of: dict[int, int],
    *,
    k: int,
    min_similarity: float,
    per_document: int,
) -> list[Candidate]:
    """Top ``k`` after the relevance floor and at most ``per_document`` chunks per document.

    The floor drops candidates that match nothing: no keyword match and a
    dense similarity below ``min_similarity``.
    """
    kept: list[Candidate] = []
    per_doc: dict[int, int] = {}
    for c in candidates:
        if c.keyword_rank is None and (c.similarity or 0.0) < min_similarity:
            continue
        doc = document_of.get(c.chunk_id)
        if doc is None:
            continue
        if per_doc.get(doc, 0) >= per_document:
            continue
        per_doc[doc] = per_doc.get(doc, 0) + 1
        kept.append(c)
        if len(kept) >= k:
            break
    return kept


def search(
    *,
    user,  # noqa: ANN001
    query: str,
    document_id: int | None = None,
    k: int | None = None,
    mode: Mode = "hybrid",
    llm_expansion="auto",  # noqa: ANN001 - Callable[[str], list[str]] | None | "auto"
) -> SearchResult:
    """The best chunks for ``query`` among what ``user`` may see (optionally one document).

    ``llm_expansion`` "auto" asks the cloud provider for keywords when
    RAG_LLM_EXPANSION is on (any failure falls back to the dictionary).
    """
    k = k or settings.RAG_TOP_K
    llm = _llm_keywords(llm_expansion)
    t0 = time.perf_counter()
    expansion = expand(query, rules=dictionary_rules(), llm=llm)
    timings = {"expansion": (time.perf_counter() - t0) * 1000}

    version_ids = searchable_version_ids(user, document_id=document_id)
    result = live_engine().search(query=expansion.expanded_query, version_ids=version_ids, mode=mode)
    timings.update(result.timings)

    per_document = settings.RAG_MAX_CHUNKS_PER_DOCUMENT if document_id is None else k
    hits = _hits(result.candidates, version_ids, k=k, per_document=per_document)
    timings["total"] = (time.perf_counter() - t0) * 1000
    return SearchResult(
        query=query,
        expanded_query=expansion.expanded_query,
        added_keywords=expansion.added_keywords,
        hits=hits,
        timings=timings,
    )


def _llm_keywords(
    llm_expansion: Callable[[str], list[str]] | Literal["auto"] | None,
) -> Callable[[str], list[str]] | None:
    """The LLM keyword source for expansion: "auto" is the cloud provider when RAG_LLM_EXPANSION is on, else none."""
    if llm_expansion != "auto":
        return llm_expansion
    from qa import llm_expansion as llm

    return llm.llm_keywords if llm.is_enabled() else None


def _hits(candidates: list[Candidate], version_ids: list[int], *, k: int, per_document: int) -> list[RetrievedChunk]:
    """The top ``k`` candidates as chunks, after the relevance floor and the per-document cap.

    Chunks are re-read restricted to ``version_ids``: a candidate whose chunk is
    gone or no longer searchable is dropped, never shown.
    """
    ids = [c.chunk_id for c in candidates]
    chunks = {
        c.pk: c
        for c in Chunk.objects.filter(pk__in=ids, version_id__in=version_ids).select_related("document")
    }
    top = apply_floor_and_diversity(
        candidates,
        {pk: c.document_id for pk, c in chunks.items()},
        k=k,
        min_similarity=settings.RAG_MIN_SIMILARITY,
        per_document=per_document,
    )
    return [_retrieved(c, chunks[c.chunk_id]) for c in top]


def _retrieved(candidate: Candidate, chunk: Chunk) -> RetrievedChunk:
    """One hit: the chunk's text and document with the candidate's (rounded) scores and ranks."""
    return RetrievedChunk(
        chunk_id=candidate.chunk_id,
        document_id=chunk.document_id,
        version_id=chunk.version_id,
        filename=chunk.document.filename,
        title=chunk.document.title,
        section=chunk.heading_path,
        text=chunk.text,
        score=round(candidate.score, 6),
        similarity=round(candidate.similarity or 0.0, 4),
        dense_rank=candidate.dense_rank,
        keyword_rank=candidate.keyword_rank,
    )


def clarification_options(hits: list[RetrievedChunk], *, gap: float, max_options: int = 4) -> list[RetrievedChunk]:
    """Candidate documents to offer when retrieval cannot decide, else [].

    Ambiguous means: the best hit of another document scores within ``gap``
    (relative) of the top hit. One option per document, best first. Measured
    on the demo golden set, gap 0.03 asks back on 4 of 85 questions, in each
    of which the top hit was the wrong document.
    """
    if gap <= 0 or len(hits) < 2:
        return []
    # Per document: its first hit (the one shown) and its best score. The
    # re-ranker may put a document's lower-scored chunk first.
    first: dict[int, RetrievedChunk] = {}
    best: dict[int, float] = {}
    for h in hits:
        first.setdefault(h.document_id, h)
        best[h.document_id] = max(best.get(h.document_id, h.score), h.score)
    top = max(best.values())
    if top <= 0:
        return []
    options = [h for doc, h in first.items() if (top - best[doc]) / top < gap]
    return options[:max_options] if len(options) > 1 else []
