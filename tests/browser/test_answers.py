"""Answers in Chromium: a stale answer's warning and badge; an English question answered from Japanese documents."""

from __future__ import annotations

import pytest

from documents.services import document_ingest
from qa.models import Answer
from qa.presenters import STALE_MESSAGE
from qa.services import answer_question
from tests.browser.conftest import screenshot
from tests.qa.answer_rows import ingest_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture(autouse=True)
def _role_groups(transactional_db):
    from django.contrib.auth.models import Group

    from documents.roles import OWNERS_GROUP, REVIEWERS_GROUP

    for name in (OWNERS_GROUP, REVIEWERS_GROUP):
        Group.objects.get_or_create(name=name)


def test_stale_answer_keeps_its_text_warns_and_is_not_high(page, login, employee, owner):
    (document,) = ingest_demo(owner, "attendance.md")
    answer = answer_question(user=employee, text="有給休暇は何日もらえますか？")
    Answer.objects.filter(pk=answer.pk).update(confidence=Answer.Confidence.HIGH)
    login("employee")

    page.goto(f"/c/{answer.conversation_id}/")
    shown = page.locator(".answer").first
    assert shown.locator(".badge.confidence").get_attribute("data-confidence") == "high"
    assert str(STALE_MESSAGE) not in shown.inner_text()

    updated = document.live_version.text + "\n\n## 追記\n特別休暇の規定を追加しました。\n"
    document_ingest(owner=owner, filename="attendance.md", data=updated.encode("utf-8"), document=document)

    page.reload()
    shown = page.locator(".answer").first
    assert str(STALE_MESSAGE) in shown.locator(".warnings").inner_text()
    assert "10日" in shown.locator(".answer-text").inner_text()
    assert shown.locator(".badge.confidence").get_attribute("data-confidence") != "high"
    screenshot(page, "answer-stale")


def test_english_question_gets_japanese_quotes_under_an_english_lead_in(page, login, employee, owner):
    from verification.grounding import ENGLISH_LEAD_IN

    ingest_demo(owner, "attendance.md", "expense.md")
    login("employee")
    page.goto("/")
    page.fill("textarea[name=text]", "How many days of paid leave do I get?")
    page.click("#ask-form button[type=submit]")
    page.locator("article.exchange").first.wait_for()
    shown = page.locator(".answer").first
    text = shown.locator(".answer-text").inner_text()
    assert text.startswith(ENGLISH_LEAD_IN)
    assert "10日" in text
    assert shown.locator("sup.fnref a").first.inner_text() == "[1]"
    screenshot(page, "answer-english")
