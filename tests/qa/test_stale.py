"""An answer whose quoted document version is no longer live says so and is no longer shown as high.

Real pipeline: the employee asks, the owner then replaces (or deletes) the
document; the old answer keeps its text, warns 「…更新（または削除）されています」
and its confidence badge drops below 高, on the page and in the API.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from documents.services import document_delete
from qa.models import Answer
from qa.results import STALE_MESSAGE
from qa.services import answer_question
from tests.conftest import as_user

QUESTION = "有給休暇は何日もらえますか？"


@pytest.fixture
def answered(ingest, employee):
    document = ingest("attendance.md")
    answer = answer_question(user=employee, text=QUESTION).answer
    assert answer.response_type == Answer.ResponseType.ANSWER and "10日" in answer.answer_text
    Answer.objects.filter(pk=answer.pk).update(confidence=Answer.Confidence.HIGH)
    return document, answer


def _page(employee, answer: Answer) -> str:
    client = Client()
    client.force_login(employee)
    return client.get(reverse("qa:conversation", args=[answer.conversation_id])).content.decode()


def test_a_fresh_answer_is_not_stale(answered, employee, api) -> None:
    _document, answer = answered
    html = _page(employee, answer)
    assert str(STALE_MESSAGE) not in html
    body = as_user(api, employee).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["stale"] is False and body["confidence"] == "high"


def test_a_replaced_document_makes_the_answer_stale(answered, ingest, employee, api) -> None:
    document, answer = answered
    text = (document.live_version.text + "\n\n## 追記\n特別休暇の規定を追加しました。\n").encode("utf-8")
    ingest(text=text.decode("utf-8"), filename="attendance.md", document=document)
    document.refresh_from_db()
    assert document.versions.count() == 2

    html = _page(employee, answer)
    assert str(STALE_MESSAGE) in html
    assert "10日" in html  # the answer text is kept
    assert 'data-confidence="high"' not in html

    body = as_user(api, employee).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["stale"] is True
    assert body["confidence"] != "high"
    assert str(STALE_MESSAGE) in body["verification"]["warnings"]
    assert "10日" in body["answer"]


def test_a_deleted_document_makes_the_answer_stale(answered, employee, api) -> None:
    document, answer = answered
    document_delete(document=document)
    body = as_user(api, employee).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["stale"] is True and body["confidence"] != "high"
