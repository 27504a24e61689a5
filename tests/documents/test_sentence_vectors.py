"""Sentence vectors are computed at indexing time, stored with each chunk and reach retrieval;
the chunk's own vector is made from them, each distinct sentence embedded once."""

from __future__ import annotations

import numpy as np

from documents.models import Chunk
from documents.sentence_vectors import (
    chunk_pieces,
    embed_chunk_sentences,
    embed_chunks,
    pack,
    sentence_spans,
    unpack,
    vectors_for,
)
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


# One section long enough for three chunks of RAG_CHUNK_SIZE (400) characters, in which one
# sentence recurs word for word, as a handbook's boilerplate does.
_RULE = "申請書は所属長の承認を得てから人事部へ提出してください。"
LONG_POLICY = "# 休職規程\n## 休職の手続き\n" + "".join(
    f"休職の第{n}項では、期間中の社会保険料の扱いと復職時の面談の日程を定めています。{_RULE if n % 3 == 0 else ''}"
    for n in range(1, 16)
)


def test_indexing_embeds_each_distinct_sentence_once_and_stores_every_chunks_rows(db, owner):
    from documents.chunking import embedding_header
    from documents.models import DocumentVersion
    from documents.indexing import embedding_text_for
    from documents.services import versions_index
    from tests.documents.conftest import ingest

    document = ingest(owner, filename="leave.md", text=LONG_POLICY)
    version = DocumentVersion.objects.get(document=document)
    chunks = list(version.chunks.order_by("ordinal"))
    assert len(chunks) >= 3

    stats = versions_index(versions=[version])  # the same version again, now with its figures

    pieces = [
        text for c in chunks for text in chunk_pieces(embedding_header(c.heading_path, document.title), c.text).texts
    ]
    whole = {embedding_text_for(c.heading_path, c.text, document.title) for c in chunks}
    # Shared sentences went through the model once; each chunk also went whole (its vector).
    assert stats.texts_embedded == len(set(pieces) | whole) < len(pieces) + len(whole)
    for chunk in Chunk.objects.filter(version=version):
        matrix = unpack(chunk.sentence_vectors, chunk.text)
        assert matrix is not None and matrix.shape == (len(sentence_spans(chunk.text)), 384)


def test_stored_sentence_rows_are_what_question_time_would_compute(ingest):
    ingest("attendance.md")
    for chunk in Chunk.objects.all()[:3]:
        stored = unpack(chunk.sentence_vectors, chunk.text)
        (fresh,) = embed_chunk_sentences([chunk.text])
        assert np.allclose(stored, fresh, atol=3e-3)  # float16 on disk, the same vectors otherwise


def test_a_chunk_vector_made_from_its_sentences_stays_close_to_embedding_the_chunk_whole(ingest):
    from documents.embeddings import embed_passages
    from documents.indexing import embedding_text_for
    from documents.vectorstore import live_collection

    document = ingest("attendance.md")
    chunks = {str(c.pk): c for c in Chunk.objects.filter(document=document)}
    stored = live_collection().get(ids=list(chunks), include=["embeddings"])
    whole = embed_passages(
        [embedding_text_for(chunks[i].heading_path, chunks[i].text, document.title) for i in stored["ids"]]
    )
    similarities = np.sum(np.asarray(stored["embeddings"]) * whole, axis=1)
    assert similarities.min() > 0.9, similarities


def test_a_question_finds_its_chunk_by_the_derived_vector_alone(ingest, employee):
    from documents.embeddings import embed_query
    from documents.vectorstore import live_collection

    ingest("attendance.md")
    ingest("expense.md")
    found = live_collection().query(query_embeddings=[embed_query("経費精算の申請期限はいつまで？")], n_results=1)
    chunk = Chunk.objects.select_related("document").get(pk=int(found["ids"][0][0]))
    assert chunk.document.filename == "expense.md" and "期限" in chunk.text


def test_a_chunk_without_sentences_is_embedded_whole_under_its_header():
    pieces = chunk_pieces("経費精算ガイド > 申請方法", "- ")
    assert pieces.texts == ["経費精算ガイド > 申請方法\n- "] and pieces.sentences == 0
    embedded = embed_chunks([("経費精算ガイド > 申請方法", "- "), ("", "申請は月末までです。")])
    assert embedded.vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(embedded.vectors, axis=1), 1.0, atol=1e-4)
    assert [m.shape for m in embedded.sentences] == [(0, 384), (1, 384)]


def test_a_chunk_whose_sentence_vectors_are_missing_is_answered_the_same(ingest, employee):
    """A chunk indexed before sentence vectors were stored (or whose row lost them) gets them at question time."""
    from qa.services import answer_question

    ingest("attendance.md")
    stored = answer_question(user=employee, text="有給休暇は何日もらえますか？")
    Chunk.objects.update(sentence_vectors=None)
    computed = answer_question(user=employee, text="有給休暇は何日もらえますか？")

    assert "10日" in computed.answer_text
    assert computed.answer_text == stored.answer_text
    assert computed.confidence == stored.confidence
    assert [c.cited_text for c in computed.citations.order_by("n")] == [
        c.cited_text for c in stored.citations.order_by("n")
    ]
