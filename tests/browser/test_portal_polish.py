"""Issue 16 in Chromium: the rough edges a new user met in the chat, the error pages and the token page."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.qa.answer_rows import make_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture(autouse=True)
def _role_groups(transactional_db):
    """Recreate the role groups (and their permissions) an earlier live-server test flushed."""
    from tests.conftest import ensure_roles

    ensure_roles()


def test_without_javascript_or_stylesheet_the_progress_indicator_never_shows(browser, live_server, employee):
    context = browser.new_context(base_url=live_server.url, locale="ja-JP", java_script_enabled=False)
    page = context.new_page()
    # A stylesheet that fails to load (a slow proxy, a text browser) must not reveal it either.
    page.route("**/*.css", lambda route: route.abort())
    try:
        page.goto("/accounts/login/")
        page.fill("input[name=username]", "employee")
        page.fill("input[name=password]", "correct-horse-battery")
        page.click("main [type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        assert page.locator("#ask-form button[type=submit]").is_visible()
        assert not page.locator("#ask-indicator").is_visible()
        assert "回答を作成しています" not in page.locator("main").inner_text()
    finally:
        context.close()


def test_with_javascript_the_indicator_shows_only_while_the_question_is_answered(page, login, employee):
    login("employee")
    page.goto("/")
    indicator = page.locator("#ask-indicator")
    assert not indicator.is_visible()
    seen_during_request = []

    def _hold(route):
        seen_during_request.append(indicator.is_visible())
        route.continue_()

    page.route("**/ask/", _hold)
    page.fill("textarea[name=text]", "有給休暇は何日もらえますか？")
    page.click("#ask-form button[type=submit]")
    page.locator("article.exchange").first.wait_for()
    assert seen_during_request == [True]
    page.wait_for_function("!document.querySelector('#ask-form').classList.contains('htmx-request')")
    assert not indicator.is_visible()


RATE_STYLE = """el => { const s = getComputedStyle(el);
  return [s.backgroundColor, s.borderTopColor, s.borderTopWidth, s.color, s.paddingTop, s.paddingLeft, s.fontSize,
          Math.round(el.getBoundingClientRect().height)].join(' '); }"""


def test_thumbs_look_alike_until_chosen_then_the_chosen_one_is_pressed(page, login, employee):
    answer = make_answer(employee)
    login("employee")
    page.goto(f"/c/{answer.conversation_id}/")
    up, down = page.locator(".feedback .rate-up"), page.locator(".feedback .rate-down")
    assert up.get_attribute("aria-pressed") == "false"
    assert down.get_attribute("aria-pressed") == "false"
    assert up.evaluate(RATE_STYLE) == down.evaluate(RATE_STYLE)

    up.click()
    page.locator(".feedback .saved").wait_for()
    up, down = page.locator(".feedback .rate-up"), page.locator(".feedback .rate-down")
    assert up.get_attribute("aria-pressed") == "true"
    assert down.get_attribute("aria-pressed") == "false"
    assert up.evaluate(RATE_STYLE) != down.evaluate(RATE_STYLE)
    screenshot(page, "chat-thumbs-up-chosen")

    # Changing one's mind to 👎 (with a reason, from the keyboard) moves the pressed state.
    down.focus()
    page.keyboard.press("Enter")
    page.locator("input[name=reason][value=wrong_source]").check()
    page.locator(".rate-down-panel button[type=submit]").click()
    page.locator(".feedback .rate-down[aria-pressed=true]").wait_for()
    assert page.locator(".feedback .rate-up").get_attribute("aria-pressed") == "false"


IN_VIEW = "el => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; }"


def _answers_filling_the_screen(employee):
    """Three answers in one conversation: the first answer's footnotes end up below the fold."""
    first = make_answer(employee)
    for _ in range(2):
        make_answer(employee, conversation=first.conversation)
    return first


def test_one_click_on_a_footnote_marker_opens_the_footnote_and_scrolls_to_it(page, login, employee):
    answer = _answers_filling_the_screen(employee)
    login("employee")
    page.set_viewport_size({"width": 1280, "height": 400})
    page.goto(f"/c/{answer.conversation_id}/")
    note = page.locator(f"#fn-{answer.pk}-1")
    quote = note.locator("mark.cited")
    assert not quote.is_visible()

    page.evaluate("window.scrollTo(0, 0)")
    page.locator(f"#answer-{answer.pk} sup.fnref a").first.click()
    assert quote.is_visible()
    assert quote.evaluate(IN_VIEW)
    assert page.evaluate("document.activeElement.closest('li') && document.activeElement.closest('li').id") == (
        f"fn-{answer.pk}-1"
    )


def test_the_footnote_marker_works_from_the_keyboard(page, login, employee):
    answer = _answers_filling_the_screen(employee)
    login("employee")
    page.set_viewport_size({"width": 1280, "height": 400})
    page.goto(f"/c/{answer.conversation_id}/")
    marker = page.locator(f"#answer-{answer.pk} sup.fnref a").first
    marker.focus()
    page.keyboard.press("Enter")
    quote = page.locator(f"#fn-{answer.pk}-1 mark.cited")
    assert quote.is_visible()
    assert quote.evaluate(IN_VIEW)
    # Enter on the focused footnote closes it again (the summary has the focus).
    page.keyboard.press("Enter")
    assert not quote.is_visible()


def test_reviewer_opening_the_documents_page_gets_a_portal_page_with_a_way_back(page, login, live_server, reviewer):
    login("reviewer")
    response = page.goto("/documents/")
    assert response.status == 403
    assert page.locator("h1").inner_text() == "アクセスできません"
    assert "403 Forbidden" not in page.content()
    assert page.locator("header.topbar .user").inner_text() == "reviewer"
    screenshot(page, "error-403")
    page.get_by_role("link", name="質問ページに戻る").click()
    page.wait_for_url(f"{live_server.url}/")
    assert page.locator("#ask-form").is_visible()


def test_token_page_creates_shows_once_and_revokes_a_token(page, login, employee):
    from rest_framework.authtoken.models import Token

    login("employee")
    page.goto("/")
    page.get_by_role("link", name="APIトークン").click()
    page.get_by_role("button", name="トークンを作成").click()
    key = page.locator("#token-key").input_value()
    assert key == Token.objects.get(user=employee).key
    assert f"Token {key}" in page.locator(".token-example").inner_text()
    # The key works against the API at once.
    assert page.request.get("/api/v1/conversations", headers={"Authorization": f"Token {key}"}).status == 200
    screenshot(page, "api-token-created")

    # Issue 25 #1: reloading re-sends no form (POST-redirect-GET): the copied key keeps working.
    page.reload()
    assert page.locator("#token-key").count() == 0
    assert key not in page.content()
    assert "有効なトークンがあります" in page.locator(".token-state").inner_text()
    assert Token.objects.get(user=employee).key == key
    assert page.request.get("/api/v1/conversations", headers={"Authorization": f"Token {key}"}).status == 200
    screenshot(page, "api-token-after-reload")

    page.goto("/api-token/")  # a plain visit later: no key on the page any more
    assert page.locator("#token-key").count() == 0

    page.get_by_role("button", name="トークンを無効にする").click()
    page.locator(".messages").wait_for()
    assert not Token.objects.filter(user=employee).exists()
    assert page.request.get("/api/v1/conversations", headers={"Authorization": f"Token {key}"}).status == 401


TABLE_ANSWER = [
    {"text": "国内出張の日当は次のとおりです。\n\n", "citations": []},
    {"text": "| 区分 | 一般社員 | 役員 |\n|---|---|---|\n", "citations": [1]},
    {"text": "| 日帰りの国内出張 | 1,250円 | 2,000円 |\n", "citations": [1]},
    {"text": "| 宿泊を伴う国内出張（1日あたり） | 2,500円 | 4,000円 |", "citations": [2]},
]
TABLE_CITATIONS = [
    {"n": 1, "filename": "business_travel.md", "section": "出張旅費規程 > 4. 日当",
     "cited_text": "| 日帰りの国内出張 | 1,250円 | 2,000円 |", "start": 138, "end": 170, "quote_verified": True,
     # The bare 80-character window older citations stored: it begins mid-phrase.
     "context_before": "できません。\n\n"
                       "| 区分 | 一般社員 | 役員 |\n|---|---|---|\n| 宿泊を伴う国内出張（1日あたり） | 2,500円 | 4,000円 |\n",
     "context_after": "\n| 海外出張（1日あたり、移動日を含む） | 7,000円 | 10,000円 |"},
    {"n": 2, "filename": "business_travel.md", "section": "出張旅費規程 > 4. 日当",
     "cited_text": "| 宿泊を伴う国内出張（1日あたり） | 2,500円 | 4,000円 |", "start": 80, "end": 118, "quote_verified": True,
     "context_before": "## 4. 日当\n日当は、出張中の昼食や細かな雑費にあてる定額の手当で、領収書は不要です。\n\n"
                       "| 区分 | 一般社員 | 役員 |\n|---|---|---|\n",
     "context_after": "\n| 日帰りの国内出張 | 1,250円 | 2,000円 |"},
]  # fmt: skip


def test_answer_with_a_table_and_an_open_footnote_in_plain_words(page, login, employee):
    answer = make_answer(
        employee, question="出張の日当はいくらですか？", blocks=TABLE_ANSWER, citations=TABLE_CITATIONS
    )
    login("employee")
    page.goto(f"/c/{answer.conversation_id}/")
    shown = page.locator(".answer").first
    table = shown.locator(".answer-text table")
    assert table.is_visible()
    assert table.locator("th").all_inner_texts()[:2] == ["区分", "一般社員"]
    assert table.locator("tbody tr").first.locator("td").all_inner_texts() == [
        "日帰りの国内出張",
        "1,250円",
        "2,000円[1]",
    ]
    assert "|" not in shown.locator(".answer-text").inner_text()

    table.locator("sup.fnref a").last.click()
    note = page.locator(f"#fn-{answer.pk}-2")
    assert note.locator(".fn-path").inner_text() == "出張旅費規程 › 4. 日当"
    context = note.locator(".fn-context")
    assert context.is_visible()
    text = context.inner_text()
    assert "|" not in text and "##" not in text and "---" not in text
    assert text.startswith("日当は、出張中の昼食")
    assert note.locator("mark.cited").inner_text() == "宿泊を伴う国内出張（1日あたり） / 2,500円 / 4,000円"
    # The first footnote's stored context began mid-phrase: it now starts at the next sentence.
    page.locator(f"#fn-{answer.pk}-1 summary").click()
    assert page.locator(f"#fn-{answer.pk}-1 .fn-context").inner_text().startswith("区分 / 一般社員 / 役員")
    page.locator(f"#fn-{answer.pk}-1 summary").click()  # closed again: the screenshot shows one open footnote
    note.scroll_into_view_if_needed()
    screenshot(page, "chat-answer-table-footnote")
