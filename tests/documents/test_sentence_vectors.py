"""Indexing embeds each chunk once, whole; a chunk's sentence vectors are made when it is
first retrieved, stored on its row and read from there by the next question."""

from __future__ import annotations

import numpy as np
import pytest

from documents.models import Chunk
from documents.sentence_vectors import embed_chunk_sentences, pack, sentence_spans, unpack, vectors_for
from qa.retrieval import search
from tests.qa.conftest import anthropic_server, ingest  # noqa: F401 - the fixtures, used by name


def test_indexing_embeds_no_sentence_and_the_first_search_stores_them_for_its_hits(ingest, employee):
    ingest("attendance.md")
    assert not Chunk.objects.exclude(sentence_vectors=None).exists()

    hits = search(user=employee, query="有給休暇は何日もらえますか？").hits
    from qa.hit_vectors import sentence_matrices

    sentence_matrices(hits)
    for hit in hits:
        chunk = Chunk.objects.get(pk=hit.chunk_id)
        matrix = unpack(chunk.sentence_vectors, chunk.text)
        assert matrix is not None and matrix.shape == (len(sentence_spans(chunk.text)), 384)
    again = search(user=employee, query="有給休暇は何日もらえますか？").hits[0]
    assert again.sentence_vectors is not None  # read from the row, not made again
    assert again.sentence_vectors.shape[0] == len(sentence_spans(again.text))


def test_stored_vectors_match_computed_ones_and_a_mismatch_is_recomputed():
    text = "有給休暇は入社6ヶ月後に10日付与されます。申請は3日前までに行ってください。"
    (computed,) = vectors_for([text])
    assert computed.shape == (2, 384)
    # Exactly what is read back: the question that makes a chunk's vectors scores it as every later one does.
    assert np.array_equal(unpack(pack(computed), text), computed)
    assert unpack(pack(computed[:1]), text) is None  # a stale blob is ignored, never misaligned
    assert unpack(None, text) is None


# One section long enough for two chunks or more of RAG_CHUNK_SIZE (400) characters, repeated as a
# handbook repeats its boilerplate from page to page.
LONG_POLICY = "# 休職規程\n## 休職の手続き\n" + "".join(
    f"休職の第{n}項では、期間中の社会保険料の扱いと復職時の面談の日程を定めています。" for n in range(1, 16)
)


def test_indexing_embeds_each_distinct_chunk_once_and_re_indexing_embeds_nothing_again(
    db, owner, encoder_memory_cleared
):
    from documents.models import DocumentVersion
    from documents.services import versions_index
    from documents.sentence_vectors import forget_recent_texts
    from tests.documents.conftest import ingest

    first = ingest(owner, filename="leave.md", text=LONG_POLICY)
    ingest(owner, filename="leave-copy.md", text=LONG_POLICY)
    versions = list(DocumentVersion.objects.order_by("pk"))
    chunks = Chunk.objects.filter(version__in=versions).count()
    assert chunks >= 4 and chunks % 2 == 0
    distinct = len(set(Chunk.objects.filter(document=first).values_list("text", flat=True)))

    stats = versions_index(versions=versions)  # both again, now with their figures
    assert stats.chunks == chunks
    assert stats.texts_embedded == 0  # the process has just embedded every one of them

    forget_recent_texts()
    stats = versions_index(versions=versions)
    # Each chunk text under its header is one passage; the two copies share theirs.
    assert stats.texts_embedded == distinct


def test_a_new_version_that_keeps_most_of_its_text_embeds_only_what_changed(
    db, owner, monkeypatch, encoder_memory_cleared
):
    from documents import embeddings
    from documents.services import version_ingest
    from tests.documents.conftest import ingest

    document = ingest(owner, filename="leave.md", text=LONG_POLICY)
    embedded: list[str] = []
    real = embeddings.embed_passages
    monkeypatch.setattr(embeddings, "embed_passages", lambda texts, **kw: embedded.extend(texts) or real(texts, **kw))

    added = "\n## 復職の手続き\n復職を希望するときは、主治医の診断書を添えて復職届を人事部に提出してください。\n"
    version_ingest(owner=owner, filename="leave.md", data=(LONG_POLICY + added).encode("utf-8"), document=document)

    document.refresh_from_db()
    assert document.live_version.number == 2
    new_texts = [c.text for c in Chunk.objects.filter(version=document.live_version)]
    assert len(new_texts) >= 3
    # Only the passage with the new section went through the encoder; the unchanged ones were remembered.
    assert len(embedded) == 1 and "復職届" in embedded[0], embedded
    best = search(user=owner, query="復職届はどこに出す？").hits[0]
    assert best.filename == "leave.md" and "復職届" in best.text


def test_stored_sentence_rows_are_what_question_time_would_compute(ingest, employee):
    ingest("attendance.md")
    from qa.hit_vectors import sentence_matrices

    hits = search(user=employee, query="遅刻したときの連絡方法").hits
    sentence_matrices(hits)
    for chunk in Chunk.objects.exclude(sentence_vectors=None)[:3]:
        stored = unpack(chunk.sentence_vectors, chunk.text)
        (fresh,) = embed_chunk_sentences([chunk.text])
        assert np.allclose(stored, fresh, atol=3e-3)  # float16 on disk, the same vectors otherwise


def test_the_stored_chunk_vector_is_the_chunk_embedded_whole_under_its_header(ingest):
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
    assert similarities.min() > 0.999, similarities


def test_a_question_about_a_section_finds_it_by_its_header(ingest, employee):
    """The header carries the section's topic: 「期限」 is in 「申請方法」's header line, not only its text."""
    from documents.embeddings import embed_query
    from documents.vectorstore import live_collection

    ingest("attendance.md")
    ingest("expense.md")
    found = live_collection().query(query_embeddings=[embed_query("経費精算の申請期限はいつまで？")], n_results=1)
    chunk = Chunk.objects.select_related("document").get(pk=int(found["ids"][0][0]))
    assert chunk.document.filename == "expense.md" and "期限" in chunk.text


def test_a_chunk_whose_sentence_vectors_are_missing_or_stored_is_answered_the_same(ingest, employee):
    """The first question makes a chunk's sentence vectors; the second reads them from the row."""
    from qa.services import answer_question

    ingest("attendance.md")
    first = answer_question(user=employee, text="有給休暇は何日もらえますか？").answer
    assert Chunk.objects.exclude(sentence_vectors=None).exists()
    second = answer_question(user=employee, text="有給休暇は何日もらえますか？").answer
    Chunk.objects.update(sentence_vectors=None)
    third = answer_question(user=employee, text="有給休暇は何日もらえますか？").answer

    assert "10日" in first.answer_text
    for later in (second, third):
        assert later.answer_text == first.answer_text
        assert later.confidence == first.confidence
        assert [c.cited_text for c in later.citations.order_by("n")] == [
            c.cited_text for c in first.citations.order_by("n")
        ]


def _chunk_writes(queries: list[dict]) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].startswith('UPDATE "documents_chunk"')]


# A paraphrase the words alone leave unsure (始末書 is not in the text): the meaning check reads the hits' vectors.
LATE_ANSWER = "遅刻・早退する場合は、事前に上長へ連絡し、始末書を提出してください。"
LATE_QUOTE = "遅刻・早退する場合は、事前に上長へ連絡してください"


@pytest.mark.django_db(transaction=True)  # committed, as in the running portal
def test_an_answer_stores_its_hits_sentence_vectors_once_and_the_same_question_again_none(
    ingest, employee, anthropic_server
):
    """The best-sentence check and then the meaning check each wrote the same rows: one write is enough."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from qa.services import answer_question
    from tests.qa.conftest import Reply, anthropic_message, char_location, text_block

    ingest("attendance.md")
    reply = Reply(body=anthropic_message(text_block(LATE_ANSWER, char_location(LATE_QUOTE, 0, 0, 0))))
    anthropic_server.script(*[reply] * 4)  # each answer, and a strict retry should one come
    with CaptureQueriesContext(connection) as first:
        made = answer_question(user=employee, text="遅刻するときはどうすればいいですか？")
    with CaptureQueriesContext(connection) as second:
        again = answer_question(user=employee, text="遅刻するときはどうすればいいですか？")

    assert any(s.reason.startswith("meaning") or s.closest for s in made.verdict.sentences)  # the meaning check ran
    assert len(_chunk_writes(first.captured_queries)) == 1  # one bulk write of the hits' rows
    assert Chunk.objects.exclude(sentence_vectors=None).exists()
    assert _chunk_writes(second.captured_queries) == []
    assert again.answer.answer_text == made.answer.answer_text


def test_embed_sentences_fills_every_live_chunk_so_no_question_embeds_them_later(ingest, employee):
    """After an import, ``embed_sentences`` stores what the first questions would otherwise make (seconds each);
    a second run finds nothing to do, and a question then reads every hit's vectors from its row."""
    from io import StringIO

    from django.core.management import call_command

    from documents.services import forget_stored_sentence_vectors

    ingest("attendance.md")
    ingest("expense.md")
    Chunk.objects.update(sentence_vectors=None)
    forget_stored_sentence_vectors()
    total = Chunk.objects.count()

    out = StringIO()
    call_command("embed_sentences", "--batch", "4", stdout=out)
    assert f"{total} of {total} chunk(s) embedded and stored" in out.getvalue()
    for chunk in Chunk.objects.all():
        matrix = unpack(chunk.sentence_vectors, chunk.text)
        assert matrix is not None and matrix.shape == (len(sentence_spans(chunk.text)), 384)

    again = StringIO()
    call_command("embed_sentences", stdout=again)
    assert "0 of 0 chunk(s)" in again.getvalue()
    hits = search(user=employee, query="経費精算の締め切りはいつ？").hits
    assert hits and all(hit.sentence_vectors is not None for hit in hits)


@pytest.fixture
def background_sentences(settings):
    """As in production: the database queue, the sentences embedded after indexing (the suite turns both off)."""
    settings.RAG_SENTENCE_VECTORS_AFTER_INDEXING = True
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    return settings


def _work() -> None:
    """An indexing worker runs what is queued, then stops."""
    from io import StringIO

    from django.core.management import call_command

    call_command("index_worker", "--batch", "--nice", "0", stdout=StringIO())


def _sentence_runs() -> list[str]:
    from django_tasks_db.models import DBTaskResult

    from documents.tasks import sentence_vectors_task

    return list(
        DBTaskResult.objects.filter(task_path=sentence_vectors_task.module_path)
        .order_by("enqueued_at")
        .values_list("status", flat=True)
    )


@pytest.mark.django_db
def test_the_worker_embeds_the_sentences_of_documents_that_went_live_before_anyone_asks(
    background_sentences, ingest, employee
):
    from django_tasks.base import TaskResultStatus

    from documents.services import sentence_vectors_pending

    ingest("attendance.md")
    ingest("expense.md")  # both queued for the worker, nothing embedded yet
    assert not Chunk.objects.exclude(sentence_vectors=None).exists()

    _work()

    live = Chunk.objects.filter(version__document__live_version__isnull=False)
    assert live.count() >= 2 and not sentence_vectors_pending().exists()
    for chunk in live:
        matrix = unpack(chunk.sentence_vectors, chunk.text)
        assert matrix is not None and matrix.shape == (len(sentence_spans(chunk.text)), 384)
    # Once, after both documents: the second going live found the first run still waiting.
    assert _sentence_runs() == [TaskResultStatus.SUCCESSFUL]
    # The first question reads its hits' vectors from the rows: nothing is embedded but the question.
    hits = search(user=employee, query="有給休暇は何日もらえますか？").hits
    assert hits and all(hit.sentence_vectors is not None for hit in hits)


@pytest.mark.django_db
def test_embedding_sentences_steps_aside_for_a_document_queued_meanwhile(background_sentences, ingest, monkeypatch):
    from django_tasks.base import TaskResultStatus

    from documents.models import Document
    from documents.services import sentence_vectors_pending
    from documents.tasks import sentence_vectors_task

    monkeypatch.setattr("documents.tasks.SENTENCE_VECTORS_BATCH", 1)
    background_sentences.RAG_SENTENCE_VECTORS_AFTER_INDEXING = False  # only the runs below
    ingest(text=LONG_POLICY, filename="leave.md")
    _work()
    pending = sentence_vectors_pending().count()
    assert pending >= 2
    ingest("attendance.md")  # queued, not indexed yet

    sentence_vectors_task.call()

    # One batch (one chunk), then it saw the upload waiting, queued itself behind it and stopped.
    assert sentence_vectors_pending().count() == pending - 1
    assert _sentence_runs() == [TaskResultStatus.READY]
    _work()
    assert set(Document.objects.values_list("status", flat=True)) == {Document.Status.READY}
    assert not sentence_vectors_pending().exists()
    assert _sentence_runs() == [TaskResultStatus.SUCCESSFUL]


@pytest.mark.django_db
def test_uploads_indexed_at_once_do_not_embed_sentences_inside_the_upload(settings, ingest):
    """The immediate backend (tests, evaluation's throw-away portals) would embed inside the upload: it does not."""
    settings.RAG_SENTENCE_VECTORS_AFTER_INDEXING = True
    ingest("attendance.md")
    assert Chunk.objects.exists() and not Chunk.objects.exclude(sentence_vectors=None).exists()
