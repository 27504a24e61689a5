"""The sentence vectors of retrieved chunks, for the re-ranker, the provider and the verifier alike.

Its own module so that a provider reaches them without importing retrieval (and,
through it, the verifier's rules): see tests/test_architecture.py.

The re-ranker (:func:`candidate_matrices`) is the first to need them: it makes
and stores those of the top candidates, so the hits read them from their rows
(or this process's cache) when the provider and the answer checks score sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from documents.models import Chunk
from documents.sentence_vectors import unpack
from documents.services import chunk_sentence_vectors
from qa.types import RetrievedChunk


def sentence_matrices(hits: Sequence[RetrievedChunk]) -> list[np.ndarray]:
    """Each hit's sentence vectors (a row per sentence of ``sentence_spans``): stored, or made now and stored once."""
    return chunk_sentence_vectors(
        chunk_ids=[h.chunk_id for h in hits], texts=[h.text for h in hits], stored=[h.sentence_vectors for h in hits]
    )


def candidate_matrices(chunk_ids: Sequence[int]) -> dict[int, np.ndarray]:
    """Sentence vectors of the chunks ``chunk_ids`` by id (qa.engine.SentenceSource): stored, or made now and stored.

    One query reads the rows' texts and stored vectors; chunks that are gone are left out.
    """
    rows = {
        pk: (text, data)
        for pk, text, data in Chunk.objects.filter(pk__in=chunk_ids).values_list("pk", "text", "sentence_vectors")
    }
    ids = [pk for pk in chunk_ids if pk in rows]
    texts = [rows[pk][0] for pk in ids]
    matrices = chunk_sentence_vectors(
        chunk_ids=ids, texts=texts, stored=[unpack(rows[pk][1], text) for pk, text in zip(ids, texts, strict=True)]
    )
    return dict(zip(ids, matrices, strict=True))
