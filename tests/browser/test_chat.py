"""The chat portal in headless Chromium: ask, footnotes, feedback, clarification, no-JS, XSS."""

from __future__ import annotations

import re

import pytest

from qa.models import Answer, Feedback
from tests.browser.conftest import screenshot
from tests.qa.answer_rows import ingest_demo, make_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture(autouse=True)
def _role_groups(transactional_db):
    """Recreate the role groups a data migration made: an earlier transactional test flushed them."""
    from django.contrib.auth.models import Group

    from documents.roles import OWNERS_GROUP, REVIEWERS_GROUP

    for name in (OWNERS_GROUP, REVIEWERS_GROUP):
        Group.objects.get_or_create(name=name)


def _ask(page, text: str) -> None:
    before = page.locator("article.exchange").count()
    page.fill("textarea[name=text]", text)
    page.click("#ask-form button[type=submit]")
    page.locator("article.exchange").nth(before).wait_for()


def test_ask_see_footnotes_and_badge_open_a_footnote_and_thumbs_down(page, login, employee, owner):
    ingest_demo(owner, "attendance.md", "expense.md")
    login("employee")
    page.goto("/")
    _ask(page, "有給休暇は何日もらえますか？")

    answer = page.locator(".answer").first
    assert "10日" in answer.locator(".answer-text").inner_text()
    assert answer.locator("sup.fnref a").first.inner_text() == "[1]"
    badge = answer.locator(".badge.confidence")
    assert badge.get_attribute("data-confidence") in {"high", "medium", "low"}
    assert badge.inner_text().startswith("信頼度")
    # The question box was cleared and the URL now names the conversation (a reload keeps it).
    assert page.input_value("textarea[name=text]") == ""
    assert re.search(r"/c/\d+/$", page.url)

    # Open the first footnote: the quote shows inside its surrounding context.
    note = answer.locator(".footnotes details").first
    assert not note.locator("mark.cited").is_visible()
    note.locator("summary").click()
    assert note.locator("mark.cited").is_visible()
    assert "attendance.md" in note.locator("summary").inner_text()
    screenshot(page, "chat-answer-footnote")

    # 👎 with a reason, via HTMX (the page does not reload).
    answer.locator(".rate-down-panel summary").click()
    answer.locator("input[name=reason][value=wrong_source]").check()
    answer.locator("textarea[name=comment]").fill("別の規程を見てほしい")
    answer.locator(".rate-down-panel button[type=submit]").click()
    page.locator(".feedback .saved").wait_for()
    feedback = Feedback.objects.get()
    assert (feedback.rating, feedback.reason, feedback.comment) == (-1, "wrong_source", "別の規程を見てほしい")
    assert page.dialogs == []


def test_clarification_round_trip(page, login, employee, owner, settings):
    settings.RAG_CLARIFY_GAP = 1.0  # every multi-document result is ambiguous: forces the question back
    attendance, expense = ingest_demo(owner, "attendance.md", "expense.md")
    login("employee")
    page.goto("/")
    _ask(page, "申請の期限はいつまでですか？")
    options = page.locator(".clarification button.option")
    assert options.count() >= 2
    # Issue 25 #4: a neutral 「確認の質問」 badge, no red 信頼度: 低.
    card = page.locator("article.exchange").first.locator(".answer")
    assert card.locator(".badge.confidence").count() == 0
    assert card.locator(".clarify-badge").inner_text() == "確認の質問"
    screenshot(page, "chat-clarification")

    page.locator(f".clarification button.option[data-document='{expense.pk}']").click()
    page.locator("article.exchange").nth(1).wait_for()
    restricted = Answer.objects.exclude(response_type="clarification").get()
    assert restricted.restricted_document_id == expense.pk
    assert restricted.conversation_id == Answer.objects.get(response_type="clarification").conversation_id
    second = page.locator("article.exchange").nth(1)
    assert "expense.md" in second.inner_text()
    # Issue 25 #5: the choice searched the question once, so no 「検索した内容: Q Q」 line.
    assert second.locator(".search-query").count() == 0
    assert restricted.search_query == "申請の期限はいつまでですか？"
    assert "attendance.md" not in second.locator(".footnotes").inner_text()


def test_plain_form_post_without_javascript(browser, live_server, employee, owner):
    ingest_demo(owner, "attendance.md")
    context = browser.new_context(base_url=live_server.url, locale="ja-JP", java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto("/accounts/login/")
        page.fill("input[name=username]", "employee")
        page.fill("input[name=password]", "correct-horse-battery")
        # "main": without JavaScript the language switch shows its own submit button in the header.
        page.click("main [type=submit]")
        page.fill("textarea[name=text]", "有給休暇は何日もらえますか？")
        page.click("#ask-form button[type=submit]")
        page.wait_for_url(re.compile(r"/c/\d+/"))
        assert "10日" in page.locator(".answer-text").inner_text()
        # Feedback works as a plain post too.
        page.click(".feedback .rate-up")
        page.wait_for_url(re.compile(r"/c/\d+/"))
        assert Feedback.objects.get().rating == 1
        assert "フィードバックを保存しました" in page.content()
    finally:
        context.close()


INJECTION = (
    "# 危険な文書\n\n"
    "## 注意事項\n"
    "有給の申請は<script>alert('xss-script')</script>三日前までです。\n"
    "有給の画像は<img src=x onerror=\"window.__xss=1;alert('xss-img')\">表示しません。\n"
    "有給の手順は[ここを押す](javascript:alert('xss-link'))を参照してください。\n"
    '有給の連絡は<a href="javascript:alert(\'xss-a\')" id="injected-a">リンク</a>から行います。\n'
    '有給の表は<table id="injected-table"><tr><td>x</td></tr></table>です。\n'
    '**有給**の太字と<iframe id="injected-iframe" src="javascript:alert(\'xss-frame\')"></iframe>です。\n'
)


def _assert_nothing_ran(page) -> None:
    assert page.dialogs == []
    assert page.evaluate("window.__xss") is None
    for selector in ("img", "iframe", "#injected-a", "#injected-table", "a[href^='javascript']"):
        assert page.locator(selector).count() == 0, selector
    # The only scripts on the page are our own (htmx).
    sources = page.eval_on_selector_all("script", "els => els.map(e => e.src)")
    assert all(src.endswith(".js") for src in sources), sources


def test_xss_in_documents_and_provider_answers_is_shown_as_text(page, login, employee, owner):
    from documents.services import document_ingest

    document_ingest(owner=owner, filename="danger.md", data=INJECTION.encode())
    login("employee")
    page.goto("/")
    _ask(page, "有給の申請はいつまで？")
    page.locator(".footnotes summary").first.click()
    text = page.locator(".answer").first.inner_text()
    assert "<script>" in text or "<img" in text or "javascript:" in text  # quoted as text
    _assert_nothing_ran(page)

    # A cloud provider's answer with the same payloads (and Markdown formatting that must survive).
    provider_text = "**太字**は残ります。\n\n" + INJECTION.split("## 注意事項\n", 1)[1]
    answer = make_answer(
        employee,
        blocks=[{"text": provider_text, "citations": [1]}],
        citations=[
            {
                "n": 1,
                "filename": "danger.md",
                "section": "<b id='injected-b'>注意</b>",
                "cited_text": INJECTION[-60:],
                "context_before": "<img src=x onerror=alert(1)>",
                "context_after": "<script>alert(2)</script>",
            }
        ],
    )
    page.goto(f"/c/{answer.conversation_id}/")
    page.locator(".footnotes summary").first.click()
    assert page.locator(".answer-text strong").first.inner_text() == "太字"
    assert page.locator("#injected-b").count() == 0
    assert "<script>alert(2)</script>" in page.locator(".fn-context").inner_text()
    _assert_nothing_ran(page)
    screenshot(page, "chat-xss")
