"""Answers in Chromium: a stale answer's warning and badge; an answer withheld after its document was restricted;
an English question answered from Japanese documents."""

from __future__ import annotations

import pytest

from documents.services import document_ingest
from qa.models import Answer
from qa.results import STALE_MESSAGE
from qa.services import answer_question
from tests.browser.conftest import screenshot
from tests.conftest import load_demo_glossary
from tests.qa.answer_rows import ingest_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture(autouse=True)
def _role_groups(transactional_db):
    from django.contrib.auth.models import Group

    from documents.roles import OWNERS_GROUP, REVIEWERS_GROUP

    for name in (OWNERS_GROUP, REVIEWERS_GROUP):
        Group.objects.get_or_create(name=name)


@pytest.fixture(autouse=True)
def _glossary(transactional_db):
    """The demo glossary, as `load_demo` loads it: these questions are the demo's."""
    load_demo_glossary()


def test_stale_answer_keeps_its_text_warns_and_is_not_high(page, login, employee, owner):
    (document,) = ingest_demo(owner, "attendance.md")
    answer = answer_question(user=employee, text="有給休暇は何日もらえますか？").answer
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


def test_an_answer_restricted_later_is_withheld_until_its_reader_may_read_it(page, login, employee, owner):
    from django.contrib.auth.models import Group

    from qa.selectors import WITHHELD_MESSAGE

    (document,) = ingest_demo(owner, "attendance.md")
    login("employee")
    page.goto("/")
    shown = _ask_in_chat(page, "有給休暇は何日もらえますか？")
    assert "10日" in shown.locator(".answer-text").inner_text()
    quote = shown.locator(".footnotes mark.cited").first.text_content()
    assert quote

    managers = Group.objects.create(name="managers")
    same_file = document.live_version.file.open("rb").read()
    document_ingest(owner=owner, filename="attendance.md", data=same_file, document=document, groups=[managers])
    page.reload()
    shown = page.locator(".answer").first
    assert shown.locator(".answer-text").inner_text() == str(WITHHELD_MESSAGE)
    body = page.locator("body").inner_text()
    html = page.content()
    for leaked in ("10日", quote, "attendance.md"):
        assert leaked not in body and leaked not in html, leaked
    assert shown.locator(".footnotes").count() == 0
    screenshot(page, "answer-withheld")

    employee.groups.add(managers)
    page.reload()
    shown = page.locator(".answer").first
    assert "10日" in shown.locator(".answer-text").inner_text()
    assert shown.locator(".footnotes mark.cited").first.text_content() == quote


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


def _ask_in_chat(page, text: str):
    before = page.locator("article.exchange").count()
    page.fill("textarea[name=text]", text)
    page.click("#ask-form button[type=submit]")
    exchange = page.locator("article.exchange").nth(before)
    exchange.wait_for()
    return exchange.locator(".answer")


def test_everyday_questions_get_the_answer_they_ask_for(page, login, employee, owner):
    ingest_demo(
        owner, "attendance.md", "leave_childcare.md", "expense.md", "it_support.md", "equipment.md", "overtime.md"
    )
    login("employee")
    page.goto("/")

    deadline = _ask_in_chat(page, "経費精算の締め切りはいつ？")
    assert "1ヶ月以内" in deadline.locator(".answer-text").inner_text()

    reset = _ask_in_chat(page, "パスワードを忘れたらどうすればいい？")
    assert "パスワードリセット" in reset.locator(".answer-text").inner_text()

    whom = _ask_in_chat(page, "休みを取りたいときは誰に言えばいい？").locator(".answer-text").inner_text()
    assert "上長" in whom or "勤怠くん" in whom, whom

    grant = _ask_in_chat(page, "有給休暇の付与日数は勤続年数でどう増えますか？")
    table = grant.locator(".answer-text table")
    assert "勤続年数" in table.locator("th").first.inner_text()
    assert table.locator("tbody tr").count() >= 3
    assert "20日" in table.inner_text()

    screenshot(page, "answer-everyday-questions")


def test_a_vague_question_is_asked_back_and_a_chosen_document_answers_it(page, login, employee, owner):
    ingest_demo(owner, "expense.md", "equipment.md", "overtime.md")
    login("employee")
    page.goto("/")

    vague = _ask_in_chat(page, "申請方法を教えて")
    assert vague.get_attribute("data-response-type") == "clarification"
    assert vague.locator("button.option").count() >= 2
    vague.locator("button.option", has_text="経費").first.click()
    chosen = page.locator("article.exchange").nth(1).locator(".answer")
    chosen.wait_for()
    assert chosen.get_attribute("data-response-type") == "answer"
    assert "expense.md" in chosen.locator(".footnotes").inner_text()
    assert "経費くん" in chosen.locator(".answer-text").inner_text()
    screenshot(page, "answer-clarification-choice")
