"""Markdown tables in answers render as tables, with their footnote markers and unsupported marks inside cells."""

from __future__ import annotations

import re

import pytest

from qa.presenters import render_answer_html
from tests.qa.answer_rows import make_answer

pytestmark = pytest.mark.django_db

LEAD = "日当は次のとおりです。\n\n"
HEADER = "| 区分 | 一般社員 | 役員 |\n|---|---|---|\n"
ROW_DAY = "| 日帰りの国内出張 | 1,250円 | 2,000円 |\n"
ROW_STAY = "| 宿泊を伴う国内出張 | 2,500円 | 4,000円 |"


def _cells(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<t[dh]>(.*?)</t[dh]>", html, re.S)]


def test_a_table_whose_rows_are_cited_one_by_one_is_a_table_with_markers_in_the_last_cells(employee):
    answer = make_answer(
        employee,
        blocks=[
            {"text": LEAD, "citations": []},
            {"text": HEADER, "citations": [1]},
            {"text": ROW_DAY, "citations": [1]},
            {"text": ROW_STAY, "citations": [2]},
        ],
    )
    html = render_answer_html(answer)
    assert "<table>" in html and "|" not in html
    assert _cells(html) == [
        "区分", "一般社員", "役員[1]",
        "日帰りの国内出張", "1,250円", "2,000円[1]",
        "宿泊を伴う国内出張", "2,500円", "4,000円[2]",
    ]  # fmt: skip
    assert f'<a href="#fn-{answer.pk}-2"' in html


def test_unsupported_table_rows_stay_a_table_with_each_cell_marked(employee):
    text = LEAD + HEADER + ROW_DAY + ROW_STAY
    start = text.index(ROW_STAY)
    answer = make_answer(
        employee,
        blocks=[{"text": text, "citations": [1]}],
        verification={
            "sentences": [{"text": ROW_STAY, "start": start, "end": start + len(ROW_STAY), "supported": False}]
        },
    )
    html = render_answer_html(answer)
    assert "<table>" in html and "|" not in html
    row = re.findall(r"<tr>(.*?)</tr>", html, re.S)[-1]
    assert row.count('<mark class="unsupported">') == 3
    assert "宿泊を伴う国内出張" in row


def test_table_cells_are_escaped_like_everything_else(employee):
    answer = make_answer(
        employee,
        blocks=[{"text": "| 項目 | 値 |\n|---|---|\n| <script>alert(1)</script> | <b>x</b> |", "citations": [1]}],
    )
    html = render_answer_html(answer)
    assert "<table>" in html
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html


def test_a_list_item_containing_a_pipe_is_not_read_as_a_table(employee):
    text = "- 設定は A|B の順です。"
    answer = make_answer(
        employee,
        blocks=[{"text": text, "citations": [1]}],
        verification={"sentences": [{"text": text, "start": 0, "end": len(text), "supported": False}]},
    )
    html = render_answer_html(answer)
    assert "<table>" not in html
    assert '<li><mark class="unsupported">設定は A|B の順です。</mark>' in html
