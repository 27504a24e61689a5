"""Issue 25 item 9 in Chromium: the 👎 panel's layout, and the conversation sidebar's paging and entries."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from qa.models import Conversation
from tests.browser.conftest import screenshot
from tests.qa.answer_rows import make_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

BOX = "el => { const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }"


@pytest.fixture(autouse=True)
def _role_groups(transactional_db):
    """Recreate the role groups (and their permissions) an earlier live-server test flushed."""
    from tests.conftest import ensure_roles

    ensure_roles()


def test_opening_thumbs_down_keeps_both_thumbs_on_one_row_and_a_roomy_comment_box(page, login, employee):
    answer = make_answer(employee)
    login("employee")
    page.goto(f"/c/{answer.conversation_id}/")
    page.locator(".rate-down-panel summary").click()
    comment = page.locator(".rate-down-panel textarea[name=comment]")
    comment.wait_for()

    up_x, up_y, up_w, _up_h = page.locator(".feedback .rate-up").evaluate(BOX)
    down_x, down_y, _w, _h = page.locator(".feedback .rate-down").evaluate(BOX)
    assert abs(down_y - up_y) < 2  # side by side, not stacked
    assert down_x >= up_x + up_w
    _x, _y, width, height = comment.evaluate(BOX)
    assert width >= 320 and height >= 80
    comment.fill("手順が古いようです。最新の申請画面では項目名が変わっています。")
    screenshot(page, "chat-thumbs-down-panel")


def _conversations(employee, count: int) -> list[Conversation]:
    """``count`` conversations asking the same question, oldest first, a day apart, each with its own answer."""
    now = timezone.now()
    made = []
    for i in range(count):
        answer = make_answer(employee, answer_text=f"回答{i}番: 入社6ヶ月後に10日付与されます。")
        Conversation.objects.filter(pk=answer.conversation_id).update(updated_at=now - dt.timedelta(days=count - i))
        made.append(answer.conversation)
    return made


def _entries(page) -> list[str]:
    return page.locator("#conversation-list li").all_inner_texts()


def test_the_sidebar_pages_through_past_conversations_with_javascript(page, login, employee, monkeypatch):
    monkeypatch.setattr("qa.views.CONVERSATION_LIST_SIZE", 3)
    _conversations(employee, 5)
    login("employee")
    page.goto("/")
    first_page = _entries(page)
    assert len(first_page) == 3 and "回答4番" in first_page[0]
    page.evaluate("window.stayedOnPage = true")

    page.get_by_role("link", name="古い会話").click()
    page.wait_for_url("**/?conversations=2")
    second_page = _entries(page)
    assert len(second_page) == 2 and "回答1番" in second_page[0] and "回答0番" in second_page[1]
    assert page.evaluate("window.stayedOnPage === true")  # swapped by HTMX, not a page load
    assert page.locator(".conversation-pages").get_by_text("2 / 2 ページ").is_visible()

    page.get_by_role("link", name="新しい会話", exact=False).last.click()
    page.wait_for_url("**/?conversations=1")
    assert _entries(page) == first_page


def test_the_sidebar_pages_without_javascript(browser, live_server, employee, monkeypatch):
    monkeypatch.setattr("qa.views.CONVERSATION_LIST_SIZE", 3)
    conversations = _conversations(employee, 4)
    context = browser.new_context(base_url=live_server.url, locale="ja-JP", java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto("/accounts/login/")
        page.fill("input[name=username]", "employee")
        page.fill("input[name=password]", "correct-horse-battery")
        page.click("main [type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        page.goto(f"/c/{conversations[0].pk}/")
        page.get_by_role("link", name="古い会話").click()
        page.wait_for_url(f"**/c/{conversations[0].pk}/?conversations=2")
        entries = _entries(page)
        assert len(entries) == 1 and "回答0番" in entries[0]
        assert page.locator("#conversation-list li.current").count() == 1  # still in the same conversation
    finally:
        context.close()


def test_repeated_questions_show_their_date_and_the_first_words_of_the_answer(page, login, employee):
    older, newer = _conversations(employee, 2)
    login("employee")
    page.goto("/")
    entries = _entries(page)
    assert entries[0].startswith(newer.title) and entries[1].startswith(older.title)
    assert newer.title == older.title  # the same question twice...
    assert entries[0] != entries[1]  # ...told apart by the answer and the date
    assert "回答1番: 入社6ヶ月後" in entries[0] and "回答0番: 入社6ヶ月後" in entries[1]
    older.refresh_from_db()
    assert timezone.localtime(older.updated_at).strftime("%Y-%m-%d") in entries[1]
    screenshot(page, "chat-sidebar-repeated-questions")
