"""Chat pages: an employee, an outsider (another user's conversation/answer → 404) and the anonymous user."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from qa.models import Answer, Conversation, Feedback
from tests.qa.answer_rows import answer_reads_after_it_was_stored, ingest_demo, make_answer
from verification.flags import WARNING_WEAK

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


# --- anonymous ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "name", "args"),
    [("get", "qa:chat", []), ("get", "qa:conversation", [1]), ("post", "qa:ask", []), ("post", "qa:feedback", [1])],
)
def test_anonymous_is_sent_to_login(client, method, name, args):
    response = getattr(client, method)(reverse(name, args=args), {"text": "有給休暇は？"} if method == "post" else {})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert not Answer.objects.exists()


# --- pages --------------------------------------------------------------------


def test_chat_page_has_question_box_and_only_my_conversations(client, employee, outsider):
    make_answer(employee, question="私の質問です")
    make_answer(outsider, question="他人の質問です")
    client.force_login(employee)
    response = client.get(reverse("qa:chat"))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="text"' in html and 'hx-indicator="#ask-indicator"' in html
    assert "私の質問です" in html
    assert "他人の質問です" not in html


def test_conversation_page_shows_answer_with_footnotes_badge_and_feedback(client, employee):
    answer = make_answer(employee, warnings=[WARNING_WEAK])
    client.force_login(employee)
    response = client.get(reverse("qa:conversation", args=[answer.conversation_id]))
    assert response.status_code == 200
    html = response.content.decode()
    assert re.search(rf'<sup class="fnref"><a href="#fn-{answer.pk}-1"[^>]*>\[1\]</a></sup>', html)
    assert f'id="fn-{answer.pk}-1"' in html and "attendance.md" in html and "<details>" in html
    assert 'data-confidence="high"' in html and "信頼度: 高" in html
    assert WARNING_WEAK in html
    assert reverse("qa:feedback", args=[answer.pk]) in html
    for _value, label in Feedback.Reason.choices:
        assert str(label) in html


def test_outsider_cannot_open_someone_elses_conversation(client, employee, outsider):
    answer = make_answer(employee, question="秘密の質問")
    client.force_login(outsider)
    response = client.get(reverse("qa:conversation", args=[answer.conversation_id]))
    assert response.status_code == 404
    assert "秘密の質問" not in response.content.decode()


def test_document_and_answer_text_are_escaped(client, employee):
    evil = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    answer = make_answer(
        employee,
        question=evil,
        blocks=[{"text": evil, "citations": [1]}],
        citations=[{"n": 1, "filename": "evil<b>.md", "section": evil, "cited_text": evil, "context_before": evil}],
    )
    client.force_login(employee)
    html = client.get(reverse("qa:conversation", args=[answer.conversation_id])).content.decode()
    assert "<script>alert(1)" not in html
    assert "<img src=x" not in html and '<img src="x"' not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_not_found_answer_is_styled_as_abstention(client, employee):
    answer = make_answer(
        employee,
        response_type=Answer.ResponseType.NOT_FOUND,
        blocks=[{"text": "提供された文書からは該当する内容が見つかりませんでした", "citations": []}],
        citations=[],
        confidence=Answer.Confidence.LOW,
    )
    client.force_login(employee)
    html = client.get(reverse("qa:conversation", args=[answer.conversation_id])).content.decode()
    assert "answer card not_found abstention" in html
    assert "該当なし" in html


def test_clarification_offers_one_button_per_document(client, employee):
    answer = make_answer(
        employee,
        response_type=Answer.ResponseType.CLARIFICATION,
        blocks=[],
        citations=[],
        answer_text="どの文書についての質問ですか？",
        clarification={
            "message": "どの文書についての質問ですか？",
            "options": [
                {"document_id": 11, "filename": "expense.md", "title": "経費精算ガイド", "section": "", "score": 0.1},
                {"document_id": 12, "filename": "business_travel.md", "title": "出張規程", "section": "", "score": 0.1},
            ],
        },
    )
    client.force_login(employee)
    html = client.get(reverse("qa:conversation", args=[answer.conversation_id])).content.decode()
    assert html.count('name="document" value="11"') == 1 and html.count('name="document" value="12"') == 1
    assert "経費精算ガイド" in html and "出張規程" in html


# --- asking -------------------------------------------------------------------


def test_empty_question_without_js_rerenders_with_error(client, employee):
    client.force_login(employee)
    response = client.post(reverse("qa:ask"), {"text": "   "})
    assert response.status_code == 400
    assert "質問を入力してください" in response.content.decode()
    assert not Answer.objects.exists()


def test_empty_question_with_htmx_swaps_the_error_into_the_form(client, employee):
    client.force_login(employee)
    response = client.post(reverse("qa:ask"), {"text": ""}, **HTMX)
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#ask-errors"
    assert "質問を入力してください" in response.content.decode()


def test_a_question_while_the_dense_index_is_unreachable_gets_a_message_and_stores_nothing(
    client, employee, monkeypatch
):
    from tests.qa.test_api import _chroma_server_unreachable

    ingest_demo(employee, "attendance.md")
    _chroma_server_unreachable(monkeypatch)
    client.force_login(employee)

    response = client.post(reverse("qa:ask"), {"text": "有給休暇は何日もらえますか？"}, **HTMX)
    assert response.status_code == 200 and response["HX-Retarget"] == "#ask-errors"
    assert "いまは回答できません" in response.content.decode()
    response = client.post(reverse("qa:ask"), {"text": "有給休暇は何日もらえますか？"})
    assert response.status_code == 503 and "いまは回答できません" in response.content.decode()
    assert not Answer.objects.exists() and not Conversation.objects.exists()


def test_cannot_ask_in_someone_elses_conversation(client, employee, outsider):
    answer = make_answer(employee)
    client.force_login(outsider)
    response = client.post(reverse("qa:ask"), {"text": "有給休暇は？", "conversation": answer.conversation_id})
    assert response.status_code == 404
    assert Answer.objects.count() == 1


def test_unknown_document_is_a_form_error(client, employee):
    client.force_login(employee)
    response = client.post(reverse("qa:ask"), {"text": "有給休暇は？", "document": 999999})
    assert response.status_code == 400
    assert "文書が見つかりません" in response.content.decode()


@pytest.fixture
def demo_docs(owner):
    return ingest_demo(owner, "attendance.md", "expense.md")


def test_plain_post_answers_and_redirects_to_the_conversation(client, employee, demo_docs):
    client.force_login(employee)
    response = client.post(reverse("qa:ask"), {"text": "有給休暇は何日もらえますか？"})
    answer = Answer.objects.get(user=employee)
    assert response.status_code == 302
    assert response["Location"] == reverse("qa:conversation", args=[answer.conversation_id]) + f"#answer-{answer.pk}"
    html = client.get(response["Location"]).content.decode()
    assert "10日" in html and "attendance.md" in html


def test_htmx_post_returns_the_fragment_and_continues_the_conversation(client, employee, demo_docs):
    client.force_login(employee)
    first = client.post(reverse("qa:ask"), {"text": "有給休暇は何日もらえますか？"}, **HTMX)
    assert first.status_code == 200
    answer = Answer.objects.get(user=employee)
    html = first.content.decode()
    assert f'id="answer-{answer.pk}"' in html and "<html" not in html
    assert f'value="{answer.conversation_id}" hx-swap-oob="true"' in html
    assert first["HX-Push-Url"] == reverse("qa:conversation", args=[answer.conversation_id])

    follow = client.post(
        reverse("qa:ask"), {"text": "それは何日前までに申請？", "conversation": answer.conversation_id}, **HTMX
    )
    assert follow.status_code == 200
    second = Answer.objects.exclude(pk=answer.pk).get()
    assert second.conversation_id == answer.conversation_id
    assert "有給" in second.search_query  # the follow-up searched with the conversation so far
    assert "検索した内容" in follow.content.decode()


def test_htmx_post_shows_the_answer_it_made_without_reading_it_back(client, employee, demo_docs):
    client.force_login(employee)
    with CaptureQueriesContext(connection) as queries:
        response = client.post(reverse("qa:ask"), {"text": "有給休暇は何日もらえますか？"}, **HTMX)

    assert answer_reads_after_it_was_stored(queries.captured_queries) == []
    answer = Answer.objects.get(user=employee)
    html = response.content.decode()
    assert f'id="answer-{answer.pk}"' in html and "10日" in html
    assert f'href="#fn-{answer.pk}-1"' in html and "attendance.md" in html  # its footnote, from the rows just stored


# --- feedback -----------------------------------------------------------------


def test_thumbs_down_needs_a_reason_then_is_stored_and_changeable(client, employee):
    answer = make_answer(employee)
    client.force_login(employee)
    url = reverse("qa:feedback", args=[answer.pk])

    response = client.post(url, {"rating": "-1"}, **HTMX)
    assert "理由を選んでください" in response.content.decode()
    assert not Feedback.objects.exists()

    response = client.post(url, {"rating": "-1", "reason": "wrong_source", "comment": "別の規程です"}, **HTMX)
    assert response.status_code == 200
    assert "フィードバックを保存しました" in response.content.decode()
    feedback = Feedback.objects.get()
    assert (feedback.rating, feedback.reason, feedback.comment) == (-1, "wrong_source", "別の規程です")

    client.post(url, {"rating": "1"}, **HTMX)
    feedback = Feedback.objects.get()
    assert (feedback.rating, feedback.reason) == (1, "")


def test_feedback_without_js_redirects_back(client, employee):
    answer = make_answer(employee)
    client.force_login(employee)
    response = client.post(reverse("qa:feedback", args=[answer.pk]), {"rating": "1"})
    assert response.status_code == 302
    assert response["Location"].endswith(f"#answer-{answer.pk}")
    assert Feedback.objects.get().rating == 1


def test_outsider_cannot_rate_someone_elses_answer(client, employee, outsider):
    answer = make_answer(employee)
    client.force_login(outsider)
    response = client.post(reverse("qa:feedback", args=[answer.pk]), {"rating": "1"}, **HTMX)
    assert response.status_code == 404
    assert not Feedback.objects.exists()


def test_feedback_page_requires_post(client, employee):
    answer = make_answer(employee)
    client.force_login(employee)
    assert client.get(reverse("qa:feedback", args=[answer.pk])).status_code == 405
    assert Conversation.objects.count() == 1
