"""The review loop in Chromium: a reviewer teaches a wording pair from the gaps page, and the employee's next answer uses it."""

from __future__ import annotations

import pytest

from qa.services import answer_question
from tests.browser.conftest import screenshot
from tests.documents.conftest import TRAVEL_MD, ingest
from tests.review.test_teaching import ANSWER_WORDS, PAY_MD, QUESTION, no_everyday_lists  # noqa: F401 - autouse fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def _ask_in_chat(page, text: str):
    before = page.locator("article.exchange").count()
    page.fill("textarea[name=text]", text)
    page.click("#ask-form button[type=submit]")
    exchange = page.locator("article.exchange").nth(before)
    exchange.wait_for()
    return exchange.locator(".answer")


def test_a_reviewers_wording_pair_answers_the_employees_next_question(page, login, employee, owner, reviewer):
    ingest(owner, filename="pay.md", text=PAY_MD)
    ingest(owner, filename="travel.md", text=TRAVEL_MD)
    gap = answer_question(user=employee, text=QUESTION).answer
    assert gap.response_type == "not_found"

    login("reviewer")
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto("/admin/qa/answer/")
    page.click("a.rv-teach-link")
    row = page.locator(f"#gap-{gap.pk}")
    assert QUESTION in row.inner_text() and "pay.md" in row.inner_text()  # with the closest passages
    screenshot(page, "review-loop-gaps")

    row.locator("input[name=term]").fill("ボーナス")
    row.locator("input[name=wording]").fill("賞与")
    row.locator("button[type=submit]").click()
    rerun = page.locator("#rv-reruns tbody tr").first
    assert QUESTION in rerun.inner_text()
    assert "答えられるようになりました" in rerun.inner_text() and ANSWER_WORDS in rerun.inner_text()
    assert page.locator("button.rv-remove-pair").is_visible()
    screenshot(page, "review-loop-result")

    page.context.clear_cookies()
    login("employee")
    page.goto("/")
    answer = _ask_in_chat(page, QUESTION)
    assert ANSWER_WORDS in answer.locator(".answer-text").inner_text()
    assert "pay.md" in answer.inner_text()
