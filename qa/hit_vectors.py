"""The sentence vectors of retrieved chunks, for the re-ranker, the provider and the verifier alike.

Its own module so that a provider reaches them without importing retrieval (and,
through it, the verifier's rules): see tests/test_architecture.py.

The re-ranker is the first to need them (documents.services.stored_sentence_vectors,
which qa.retrieval hands the engine): it makes and stores those of the top candidates,
so the hits read them from their rows (or this process's cache) when the provider and
the answer checks score sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from documents.services import chunk_sentence_vectors
from qa.types import RetrievedChunk


def sentence_matrices(hits: Sequence[RetrievedChunk]) -> list[np.ndarray]:
    """Each hit's sentence vectors (a row per sentence of ``sentence_spans``): stored, or made now and stored once."""
    return chunk_sentence_vectors(
        chunk_ids=[h.chunk_id for h in hits], texts=[h.text for h in hits], stored=[h.sentence_vectors for h in hits]
    )
