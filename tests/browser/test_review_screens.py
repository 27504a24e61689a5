"""A reviewer opens the queue and one answer's evidence page in a real browser (screenshots kept)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from qa.models import Answer, Feedback
from tests.browser.conftest import screenshot
from tests.review.conftest import attendance, cite, make_answer, rate, snapshot  # noqa: F401 - fixtures

# The live server needs a transactional test; serialized_rollback restores the
# groups and permissions that data migrations created, for the tests that follow.
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
def queue(make_answer, rate, attendance, outsider) -> Answer:
    """A small, realistic queue; returns the answer whose evidence page is opened."""
    now = timezone.now()
    fabricated = make_answer(
        "交通費の精算期限はいつまでですか？",
        confidence="low",
        flag_fabricated_source=True,
        flag_weak_citation=True,
        answer_text="travel_policy.mdによると、翌月10日までです。",
        provider="anthropic",
        model_name="claude-sonnet-4-5",
    )
    Answer.objects.filter(pk=fabricated.pk).update(created_at=now - dt.timedelta(days=2))
    disliked = make_answer("PCの貸与期間は何年ですか？", confidence="high", answer_text="4年です。[1]")
    rate(disliked, outsider, Feedback.Rating.DOWN, comment="情報が古い")
    make_answer("慶弔休暇は何日ですか？", confidence="low", flag_no_citation=True, flag_low_retrieval=True)
    evidence = make_answer(
        "有給休暇は入社後いつ、何日付与されますか？",
        expanded_query="有給休暇 年次有給休暇 年休 付与",
        confidence="low",
        flag_low_grounding=True,
        flag_unsupported_claim=True,
        answer_text="関連する文書を十分に見つけられませんでした",
        original_answer_text="有給休暇は入社直後に20日付与されます。申請は3日前までに行ってください。[1]",
        retrieved=[snapshot(attendance, score=0.0328, similarity=0.8421)],
        verification={
            "confidence": "low",
            "flags": ["low_grounding", "unsupported_claim"],
            "grounded_ratio": 0.31,
            "citation_presence": {"has_citation": True, "citation_quality": "strong"},
            "sentences": [
                {
                    "sentence": "有給休暇は入社直後に20日付与されます。",
                    "supported": False,
                    "reason": "「20日」が根拠にない",
                },
                {"sentence": "申請は3日前までに行ってください。", "supported": True, "reason": "引用[1]と一致"},
            ],
        },
        warnings=["回答の根拠が不十分なため、元の回答は表示していません。"],
    )
    cite(evidence, attendance, "申請は3日前までに行ってください。")
    rate(evidence, outsider, Feedback.Rating.DOWN, comment="日数が違います")
    make_answer("問題のない回答")  # not queued
    return evidence


def test_reviewer_sees_the_queue_and_an_answers_evidence(page, login, reviewer, queue):
    login("reviewer")
    page.set_viewport_size({"width": 1600, "height": 1000})  # a reviewer's desktop: all columns fit

    page.goto("/admin/qa/answer/")
    table = page.locator("#result_list")
    assert table.get_by_text("交通費の精算期限はいつまでですか？").is_visible()
    assert table.get_by_text("存在しない出典").first.is_visible()
    assert page.get_by_text("問題のない回答").count() == 0
    assert table.get_by_role("columnheader", name="レビュー状態").is_visible()
    assert table.get_by_text("未対応").first.is_visible()
    assert page.locator("#changelist-filter").get_by_text("👎 低評価 (2)").is_visible()
    screenshot(page, "review_queue")

    page.get_by_role("link", name="有給休暇は入社後いつ、何日付与されますか？").click()
    page.wait_for_load_state("networkidle")
    assert page.get_by_text("有給休暇は入社直後に20日付与されます。申請は3日前までに行ってください。[1]").is_visible()
    assert page.get_by_role("cell", name="「20日」が根拠にない").is_visible()
    assert page.get_by_text("日数が違います").is_visible()
    assert page.locator("select[name=review_status]").is_visible()
    assert page.locator("textarea[name=question]").count() == 0  # evidence is not editable
    screenshot(page, "review_evidence")

    page.select_option("select[name=review_status]", "needs_document_fix")
    page.fill("textarea[name=review_notes]", "規程の付与日数を確認")
    page.locator("input[name=_continue]").click()
    page.wait_for_load_state("networkidle")
    queue.refresh_from_db()
    assert queue.review_status == Answer.ReviewStatus.NEEDS_DOCUMENT_FIX
    assert queue.review_notes == "規程の付与日数を確認"
    assert page.dialogs == []

    page.goto("/admin/qa/answer/overview/")
    chart = page.locator("svg.rv-chart")
    assert chart.is_visible()
    assert chart.locator('g[data-series="fabricated_source"]').get_attribute("data-total") == "1"
    assert page.locator("#rv-documents").get_by_text("attendance.md").is_visible()
    screenshot(page, "review_overview")


def test_the_queue_fits_a_1280_pixel_screen(page, login, reviewer, queue, make_answer):
    make_answer(
        "出張先で急に予定が変わって宿泊を延長することになった場合、延長分の宿泊費と日当はどのように申請すればよいですか？",
        confidence="low",
        flag_unsupported_claim=True,
        flag_weak_citation=True,
        flag_low_grounding=True,
    )
    login("reviewer")
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto("/admin/qa/answer/")
    screenshot(page, "review_queue_1280")
    table = page.locator("#result_list")
    # Every column, the last ones included, is on screen without scrolling sideways.
    for name in ("日時", "レビュー状態", "担当者"):
        header = table.get_by_role("columnheader", name=name)
        box = header.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 1280, name
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert page.evaluate("document.querySelector('#changelist .results').scrollWidth") <= page.evaluate(
        "document.querySelector('#changelist .results').clientWidth"
    )


def test_reviewer_follows_an_overview_count_to_the_filtered_queue(page, login, reviewer, queue):
    login("reviewer")
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.goto("/admin/qa/answer/overview/")
    total = page.locator('[data-series="thumbs_down"] a.rv-total-link')
    assert total.text_content() == "2"
    screenshot(page, "review_overview_links")

    total.click()
    page.wait_for_load_state("networkidle")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 2
    assert rows.get_by_text("PCの貸与期間は何年ですか？").is_visible()
    assert rows.get_by_text("交通費の精算期限はいつまでですか？").count() == 0  # low, but nobody rated it 👎
    assert page.locator("#changelist-filter").get_by_text("👎 低評価").first.is_visible()


def test_reviewer_tries_the_fabricated_citation_filter_on_a_demo_example(page, login, reviewer, queue, make_answer):
    """Issue 25 item 7: an example answer from the Claude path is marked 例 in the queue and on its page."""
    example = make_answer(
        "有給休暇は何日もらえますか？",
        confidence="low",
        flag_fabricated_source=True,
        is_example=True,
        answer_text="入社6ヶ月後に10日付与されます。（出典: leave_policy_2019.md）",
        provider="anthropic",
        model_name="claude (fake server example)",
    )
    login("reviewer")
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto("/admin/qa/answer/")
    page.locator("#changelist-filter").get_by_role("link", name=re.compile("存在しない出典")).first.click()
    page.wait_for_load_state("networkidle")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 2  # the example and the queue's own fabricated answer
    marked = rows.filter(has=page.locator(".rv-example"))
    assert marked.count() == 1 and marked.get_by_text("有給休暇は何日もらえますか？").is_visible()
    assert page.locator(".rv-filter-help").get_by_text("anthropic", exact=False).first.is_visible()
    screenshot(page, "review_queue_example_fabricated")

    marked.get_by_role("link").first.click()
    page.wait_for_load_state("networkidle")
    assert f"/admin/qa/answer/{example.pk}/change/" in page.url
    assert page.locator(".rv-example-note").is_visible()
    screenshot(page, "review_example_answer")
