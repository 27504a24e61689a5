"""Putting one version's chunks into both indexes, and taking them out again.

A version's chunks go into the dense index (Chroma) and the keyword index
(FTS5) together; both carry the version id so retrieval can restrict a search
to live versions. Embedding is batched: it is the cost that matters here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from documents.chunking import embedding_text
from documents.embeddings import embed_passages
from documents.keyword_index import KeywordIndex
from documents.sentence_vectors import embed_chunk_sentences, pack
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
    chunks: int = 0
    embed_seconds: float = 0.0
    sentence_seconds: float = 0.0
    total_seconds: float = 0.0


# Receives (chunk id, packed sentence vectors) for each indexed chunk.
SentenceSink = Callable[[list[tuple[int, bytes]]], None]


def index_items(
    items: Sequence[IndexItem],
    *,
    dense: DenseIndex,
    keyword: KeywordIndex,
    progress: Callable[[int, int], None] | None = None,
    sentences: SentenceSink | None = None,
    keep_going: Callable[[], bool] | None = None,
) -> IndexStats:
    """Embed and store ``items`` in both indexes. Raises on any failure (the caller cleans up).

    With ``sentences``, each chunk's sentences are embedded too and handed to it
    (stored with the chunk, for sentence scoring at question time). With
    ``keep_going``, it is asked after each stored batch, and ``IndexingCancelledError``
    is raised when it says no: asked after the write, so a batch written while
    its version was being deleted is still the caller's to clean up.
    """
    stats = IndexStats()
    started = time.perf_counter()
    for i in range(0, len(items), STORE_BATCH):
        batch = items[i : i + STORE_BATCH]
        t0 = time.perf_counter()
        vectors = embed_passages([item.embedding_input() for item in batch])
        stats.embed_seconds += time.perf_counter() - t0
        dense.add(
            [item.chunk_id for item in batch],
            vectors,
            [{"document_id": item.document_id, "version_id": item.version_id} for item in batch],
        )
        keyword.add((item.chunk_id, item.version_id, f"{item.title} {item.heading_path} {item.text}") for item in batch)
        if sentences is not None:
            t0 = time.perf_counter()
            matrices = embed_chunk_sentences([item.text for item in batch])
            stats.sentence_seconds += time.perf_counter() - t0
            sentences([(item.chunk_id, pack(m)) for item, m in zip(batch, matrices, strict=True)])
        stats.chunks += len(batch)
        if progress:
            progress(stats.chunks, len(items))
        if keep_going is not None and not keep_going():
            raise IndexingCancelledError(stats.chunks, len(items))
    stats.total_seconds = time.perf_counter() - started
    return stats


def remove_versions(version_ids: Sequence[int], *, dense: DenseIndex, keyword: KeywordIndex) -> None:
    for version_id in version_ids:
        dense.delete(where={"version_id": version_id})
    keyword.delete_versions(list(version_ids))
