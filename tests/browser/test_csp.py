"""The pages under their Content-Security-Policy in Chromium: everything still works, nothing is blocked.

A blocked inline script or style does not fail loudly: the page just stops
clearing the question box, or shows the htmx indicator forever. So each test
listens for the browser's ``securitypolicyviolation`` events and CSP console
errors, and also checks the behaviour that moved from inline code to
static/js/portal.js.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import screenshot
from tests.qa.answer_rows import ingest_demo, make_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + e.sourceFile + ":" + e.lineNumber);
});
"""


@pytest.fixture
def violations(page):
    """CSP violations the page reports: its own events plus Chromium's console errors."""
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if "Content Security Policy" in m.text else None)
    page.add_init_script(RECORD_VIOLATIONS)

    def _violations() -> list[str]:
        return console + page.evaluate("window.__cspViolations || []")

    return _violations


def test_chat_works_under_the_policy(page, login, violations, employee, owner):
    ingest_demo(owner, "attendance.md")
    login("employee")
    page.goto("/")
    response = page.goto("/")
    assert "script-src 'self'" in response.headers["content-security-policy"]

    # htmx's indicator style comes from portal.css now: hidden until a request runs.
    assert not page.locator("#ask-indicator").is_visible()
    page.fill("textarea[name=text]", "有給休暇は何日もらえますか？")
    page.click("#ask-form button[type=submit]")
    page.locator("article.exchange").first.wait_for()
    assert "10日" in page.locator(".answer-text").first.inner_text()
    # The after-request handler (was hx-on) cleared the box and removed the first-visit hint.
    assert page.input_value("textarea[name=text]") == ""
    assert page.locator("#empty-hint").count() == 0
    assert not page.locator("#ask-indicator").is_visible()
    screenshot(page, "csp-chat")
    assert violations() == []


def test_a_failed_answer_is_reported_under_the_form(page, login, violations, employee):
    login("employee")
    page.goto("/")
    page.route("**/ask/", lambda route: route.fulfill(status=500, body="boom"))

    page.fill("textarea[name=text]", "有給休暇は何日もらえますか？")
    page.click("#ask-form button[type=submit]")

    page.locator("#ask-errors", has_text="回答を取得できませんでした").wait_for()
    assert violations() == []


def test_language_switch_submits_on_change(page, login, violations, employee):
    answer = make_answer(employee)
    login("employee")
    page.goto(f"/c/{answer.conversation_id}/")

    page.select_option("select[name=language]", "en")

    page.wait_for_url(re.compile(rf"/c/{answer.conversation_id}/$"))
    page.locator("html[lang=en]").wait_for()
    assert "Past conversations" in page.content()
    assert violations() == []


def test_refused_upload_is_swapped_into_the_form(page, login, violations, owner, tmp_path):
    empty = tmp_path / "empty.md"
    empty.write_bytes(b"")
    login("owner")
    page.goto("/documents/upload/")

    page.set_input_files("#upload-form input[type=file]", str(empty))
    page.click("#upload-form button[type=submit]")

    page.locator("#file-errors", has_text="ファイルが空です").wait_for()
    assert page.url.endswith("/documents/upload/")  # swapped in place (400), not navigated
    assert violations() == []


def test_swagger_ui_and_admin_render_under_the_policy(page, login, violations, admin_user):
    login("admin")
    page.goto("/api/docs/")
    page.locator(".opblock-summary-path", has_text="/api/v1/ask").first.wait_for()
    screenshot(page, "csp-swagger")

    page.goto("/admin/")
    page.locator("#site-name").wait_for()
    page.goto("/admin/qa/answer/")
    page.locator("#changelist").wait_for()
    assert violations() == []
