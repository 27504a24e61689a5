"""Sentence vectors are computed at indexing time, stored with each chunk and reach retrieval."""

from __future__ import annotations

import numpy as np

from documents.models import Chunk
from documents.sentence_vectors import pack, sentence_spans, unpack, vectors_for
from qa.retrieval import search
from tests.qa.conftest import ingest  # noqa: F401 - the fixture, used by name


def test_indexing_stores_one_vector_per_sentence_and_search_hands_them_on(ingest, employee):
    ingest("attendance.md")
    chunks = list(Chunk.objects.all())
    assert chunks
    for chunk in chunks:
        matrix = unpack(chunk.sentence_vectors, chunk.text)
        assert matrix is not None and matrix.shape == (len(sentence_spans(chunk.text)), 384)
    hit = search(user=employee, query="有給休暇は何日もらえますか？").hits[0]
    assert hit.sentence_vectors is not None
    assert hit.sentence_vectors.shape[0] == len(sentence_spans(hit.text))


def test_stored_vectors_match_computed_ones_and_a_mismatch_is_recomputed():
    text = "有給休暇は入社6ヶ月後に10日付与されます。申請は3日前までに行ってください。"
    (computed,) = vectors_for([text])
    assert computed.shape == (2, 384)
    assert np.allclose(unpack(pack(computed), text), computed, atol=2e-3)
    assert unpack(pack(computed[:1]), text) is None  # a stale blob is ignored, never misaligned
    assert unpack(None, text) is None
