"""Putting one version's chunks into both indexes, and taking them out again.

A version's chunks go into the dense index (Chroma) and the keyword index
(FTS5) together; both carry the version id so retrieval can restrict a search
to live versions. Embedding is batched: it is the cost that matters here. Each
chunk is embedded once, whole under its "title > section" header; a chunk text
repeated from page to page is embedded once per run. Sentence vectors are not
made here but when a chunk is first retrieved (documents.sentence_vectors).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields

import numpy as np

from documents.chunking import embedding_header, embedding_text
from documents.keyword_index import KeywordIndex
from documents.sentence_vectors import TextEmbedder
from documents.vectorstore import DenseIndex

EMBED_BATCH = 64
# Chunks stored (and progress reported) per step: small enough that the owner's
# progress moves every few seconds, large enough that the writes stay cheap.
STORE_BATCH = 32


@dataclass(frozen=True)
class IndexItem:
    chunk_id: int
    document_id: int
    version_id: int
    heading_path: str
    text: str
    title: str = ""

    def embedding_input(self) -> str:
        return embedding_text_for(self.heading_path, self.text, self.title)

    def embedding_header(self) -> str:
        return embedding_header(self.heading_path, self.title)


def embedding_text_for(heading_path: str, text: str, title: str = "") -> str:
    from documents.chunking import ChunkSpan

    return embedding_text(ChunkSpan(ordinal=0, heading_path=heading_path, start=0, end=len(text), text=text), title)


class IndexingCancelledError(Exception):
    """What was being indexed is no longer wanted (deleted, or replaced by a newer upload): stop embedding."""

    def __init__(self, stored: int, total: int) -> None:
        super().__init__(f"cancelled after {stored} of {total} chunks")
        self.stored = stored
        self.total = total


@dataclass
class IndexStats:
    """Where an indexing run spent its time (seconds), for benchmark_indexing and evaluate."""

    chunks: int = 0
    embed_seconds: float = 0.0  # the encoder: each distinct chunk text once
    dense_seconds: float = 0.0  # Chroma
    keyword_seconds: float = 0.0  # the keyword index
    total_seconds: float = 0.0  # all of index_items
    go_live_seconds: float = 0.0  # after index_items: the versions made live (documents.services)
    texts_embedded: int = 0  # distinct texts that went through the encoder

    def stages(self) -> dict[str, float]:
        """Seconds per stage, the rest (progress, bookkeeping) as "other"."""
        named = {
            "embed": self.embed_seconds,
            "chroma": self.dense_seconds,
            "keyword_index": self.keyword_seconds,
        }
        return {**named, "other": max(0.0, self.total_seconds - sum(named.values()))}

    def __add__(self, other: IndexStats) -> IndexStats:
        """Two runs' figures together (an import indexed a group of files at a time)."""
        return IndexStats(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})


def index_items(
    items: Sequence[IndexItem],
    *,
    dense: DenseIndex,
    keyword: KeywordIndex,
    progress: Callable[[int, int], None] | None = None,
    keep_going: Callable[[], bool] | None = None,
) -> IndexStats:
    """Embed and store ``items`` in both indexes. Raises on any failure (the caller cleans up).

    With ``keep_going``, it is asked after each stored batch, and ``IndexingCancelledError``
    is raised when it says no: asked after the write, so a batch written while
    its version was being deleted is still the caller's to clean up.
    """
    stats = IndexStats()
    embedder = TextEmbedder()
    started = time.perf_counter()
    for i in range(0, len(items), STORE_BATCH):
        batch = items[i : i + STORE_BATCH]
        t0 = time.perf_counter()
        vectors = np.stack(embedder.embed([item.embedding_input() for item in batch])).astype(np.float32)
        t1 = time.perf_counter()
        dense.add(
            [item.chunk_id for item in batch],
            vectors,
            [{"document_id": item.document_id, "version_id": item.version_id} for item in batch],
        )
        t2 = time.perf_counter()
        keyword.add((item.chunk_id, item.version_id, f"{item.title} {item.heading_path} {item.text}") for item in batch)
        stats.embed_seconds += t1 - t0
        stats.dense_seconds += t2 - t1
        stats.keyword_seconds += time.perf_counter() - t2
        stats.chunks += len(batch)
        if progress:
            progress(stats.chunks, len(items))
        if keep_going is not None and not keep_going():
            raise IndexingCancelledError(stats.chunks, len(items))
    stats.total_seconds = time.perf_counter() - started
    stats.texts_embedded = embedder.embedded
    return stats


def remove_versions(version_ids: Sequence[int], *, dense: DenseIndex, keyword: KeywordIndex) -> None:
    if not version_ids:
        return
    ids = [int(v) for v in version_ids]
    dense.delete(where={"version_id": ids[0]} if len(ids) == 1 else {"version_id": {"$in": ids}})
    keyword.delete_versions(ids)
