"""A question whose subject is in nothing the employee may read is off-topic (qa.retrieval.unknown_subject)."""

from __future__ import annotations

from qa.retrieval import unknown_subject
from qa.types import RetrievedChunk

TRAVEL = RetrievedChunk(
    chunk_id=1, document_id=1, version_id=1, filename="business_travel.md", section="出張旅費規程 > 3. 交通手段",
    text="有料道路・駐車場代は実費精算です。人事部との面談は年2回です。",
)


def test_a_subject_no_retrieved_text_mentions_is_unknown() -> None:
    assert unknown_subject("退職金はいくらですか？", [TRAVEL])
    assert not unknown_subject("駐車場代は精算できますか？", [TRAVEL])


def test_the_subject_of_a_later_clause_counts() -> None:
    # 「…とき、」 is a condition; 異議申し立て is what the question is about.
    assert unknown_subject("評価に納得できないとき、異議申し立ては面談から何日以内にできる？", [TRAVEL])
    assert not unknown_subject("出張のとき、駐車場代は精算できる？", [TRAVEL])


def test_an_english_question_is_judged_by_its_glossary_words_found_in_the_documents() -> None:
    assert not unknown_subject("Can I claim parking fees?", [TRAVEL], expansions=["駐車場代"])
    assert unknown_subject("Is there a severance payment?", [TRAVEL], expansions=["退職金"])
    # No glossary word: nothing to judge by (cross-lingual retrieval may still find the answer).
    assert not unknown_subject("What are the core hours?", [TRAVEL], expansions=[])
