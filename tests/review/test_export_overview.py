"""CSV export of the filtered queue, and the overview page's chart and numbers."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re

import pytest
from django.utils import timezone

from qa.models import Answer, Feedback
from tests.review.conftest import cite, snapshot

pytestmark = pytest.mark.django_db

QUEUE = "/admin/qa/answer/"


def read_csv(response) -> list[dict[str, str]]:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    text = b"".join(response.streaming_content).decode("utf-8")
    assert text.startswith("\ufeff")
    return list(csv.DictReader(io.StringIO(text[1:])))


def test_csv_export_has_the_same_rows_as_the_filtered_list(make_answer, rate, outsider, reviewer_client):
    for i in range(3):
        make_answer(f"経費の質問{i}", confidence="low", flag_fabricated_source=True)
    make_answer("経費の質問（根拠不足）", confidence="medium", flag_low_grounding=True)
    make_answer("勤怠の質問", confidence="low", flag_fabricated_source=True)
    disliked = make_answer('=HYPERLINK("http://evil")', confidence="high")
    rate(disliked, outsider, Feedback.Rating.DOWN)
    make_answer("問題のない質問")
    query = {"flag": "fabricated_source", "q": "経費", "o": "1"}  # filter + search + ordering by question

    listed = [a.pk for a in reviewer_client.get(QUEUE, query).context["cl"].result_list]
    rows = read_csv(reviewer_client.get(f"{QUEUE}export.csv", query))

    assert [int(r["id"]) for r in rows] == listed and len(listed) == 3
    assert [r["質問"] for r in rows] == ["経費の質問0", "経費の質問1", "経費の質問2"]
    assert rows[0]["フラグ"] == "fabricated_source" and rows[0]["信頼度"] == "low"

    everything = read_csv(reviewer_client.get(f"{QUEUE}export.csv"))
    assert len(everything) == 6  # the whole queue; the fine answer is not in it
    # Untrusted text cannot become a spreadsheet formula.
    formula = next(r for r in everything if int(r["id"]) == disliked.pk)
    assert formula["質問"].startswith("'=") and formula["👎"] == "1"


def test_export_action_exports_the_selected_rows(make_answer, reviewer_client):
    a, b, _c = (make_answer(f"質問{i}", confidence="low") for i in range(3))

    response = reviewer_client.post(QUEUE, {"action": "export_selected_csv", "_selected_action": [a.pk, b.pk]})

    assert sorted(int(r["id"]) for r in read_csv(response)) == sorted([a.pk, b.pk])


def _at(answer: Answer, when: dt.datetime) -> Answer:
    Answer.objects.filter(pk=answer.pk).update(created_at=when)
    return answer


def test_overview_draws_daily_flag_counts_and_reports_rates(make_answer, rate, outsider, attendance, reviewer_client):
    now = timezone.now()
    today = timezone.localdate(now)
    three_days_ago = now - dt.timedelta(days=3)
    for _ in range(2):
        a = make_answer("今日の捏造", confidence="low", flag_fabricated_source=True, retrieved=[snapshot(attendance)])
        cite(a, attendance, "申請は3日前までに行ってください。", verified=False)
    _at(make_answer("3日前の捏造", confidence="low", flag_fabricated_source=True), three_days_ago)
    _at(make_answer("40日前", confidence="low", flag_low_grounding=True), now - dt.timedelta(days=40))
    make_answer("該当なし", response_type=Answer.ResponseType.NOT_FOUND, flag_not_found=True, confidence="low")
    disliked = make_answer("👎")
    rate(disliked, outsider, Feedback.Rating.DOWN)
    for _ in range(2):
        make_answer("問題なし")

    response = reviewer_client.get(f"{QUEUE}overview/")

    assert response.status_code == 200
    html = response.content.decode()
    svg = re.search(r'<svg class="rv-chart".*?</svg>', html, re.S).group(0)

    def series(key: str) -> str:
        return re.search(rf'<g class="rv-series[^"]*" data-series="{key}" data-total="(\d+)">(.*?)</g>', svg, re.S)

    def bar(key: str, day: dt.date) -> int:
        found = re.search(rf'data-day="{day.isoformat()}" data-count="(\d+)"', series(key).group(2))
        return int(found.group(1)) if found else 0

    assert series("fabricated_source").group(1) == "3"
    assert bar("fabricated_source", today) == 2
    assert bar("fabricated_source", timezone.localdate(three_days_ago)) == 1
    assert series("low_grounding").group(1) == "0"  # 40 days ago: outside the window
    assert series("thumbs_down").group(1) == "1"
    assert series("queue").group(1) == "5"  # 3 fabricated + not-found (low) + 👎
    assert "今日の捏造" not in svg  # the chart shows counts, not conversations
    # 7 answers in the window, 1 of them found nothing.
    assert re.search(r'id="rv-not-found-rate">14%<', html)
    documents = re.search(r'<table class="rv-table" id="rv-documents">(.*?)</table>', html, re.S).group(1)
    assert "attendance.md" in documents and "<td>2</td><td>2</td><td>2</td>" in documents


def _links(html: str) -> list[tuple[str, str, int, str]]:
    """(series key, "total" or "day", count, href) of every count the overview chart links."""
    svg = re.search(r'<svg class="rv-chart".*?</svg>', html, re.S).group(0)
    found = []
    for key, total, body in re.findall(r'data-series="([^"]+)" data-total="(\d+)">(.*?)</g>', svg, re.S):
        total_href = re.search(r'<a href="([^"]+)" class="rv-total-link"', body).group(1)
        found.append((key, "total", int(total), total_href))
        for href, count in re.findall(r'<a href="([^"]+)" class="rv-bar-link"><rect [^>]*data-count="(\d+)"', body):
            found.append((key, "day", int(count), href))
    return [(key, kind, count, href.replace("&amp;", "&")) for key, kind, count, href in found]


def test_every_overview_count_links_to_exactly_those_answers_in_the_queue(make_answer, rate, outsider, reviewer_client):
    now = timezone.now()
    # Off topic but otherwise fine: not in the queue, so not counted (the overview used to show 1 here).
    make_answer("ずれているが問題なし", confidence="high", flag_answer_mismatch=True)
    make_answer("ずれていて信頼度も低い", confidence="low", flag_answer_mismatch=True)
    _at(make_answer("5日前の捏造", confidence="low", flag_fabricated_source=True), now - dt.timedelta(days=5))
    _at(make_answer("40日前の捏造", confidence="low", flag_fabricated_source=True), now - dt.timedelta(days=40))
    rate(make_answer("👎 だけ"), outsider, Feedback.Rating.DOWN)
    make_answer("問題なし")

    html = reviewer_client.get(f"{QUEUE}overview/").content.decode()
    links = _links(html)
    totals = {key: count for key, kind, count, _href in links if kind == "total"}
    assert totals["answer_mismatch"] == 1
    assert totals["fabricated_source"] == 1  # 40 days ago is outside the window
    assert totals["queue"] == 3
    assert totals["low_confidence"] == 2
    assert [kind for _k, kind, _c, _h in links].count("day") >= 5  # daily bars are links too

    for key, _kind, count, href in links:
        response = reviewer_client.get(href)
        assert response.status_code == 200, (key, href)
        assert "e=1" not in response.get("Location", ""), (key, href)  # the queue accepted the filter
        assert response.context["cl"].result_count == count, (key, href)
