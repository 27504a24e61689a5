"""A question whose answer sits in an HTML table cell of a Markdown document is answered from that cell."""

from __future__ import annotations

import pytest

from qa.models import Answer
from qa.services import answer_question
from tests.documents.test_markdown_html import LEAVE_HTML

pytestmark = pytest.mark.django_db


def test_a_merged_cell_answers_a_question_about_the_row_it_covers(ingest, employee):
    ingest(text=LEAVE_HTML, filename="leave.md")

    # 7日 is one <td rowspan="2">, written in the 6か月 row only.
    answer = answer_question(user=employee, text="勤続1年6か月の短時間社員の有給休暇は何日ですか？").answer

    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert "7日" in answer.answer_text and "<td" not in answer.answer_text
    cited = [c.cited_text for c in answer.citations.all()]
    assert any("1年6か月" in quote and "7日" in quote for quote in cited), cited


def test_a_merged_cell_of_an_html_pages_table_answers_the_row_it_covers(ingest, employee):
    """The same table as an .html page: its rows had been cut at each <br> and lost their merged cells."""
    table = LEAVE_HTML[LEAVE_HTML.index("<table") : LEAVE_HTML.index("</table>") + len("</table>")]
    page = f"<html><body><h1>年次有給休暇</h1><p>付与日数は次の表のとおりとする。</p>{table}<p>申請は前日までに行う。</p></body></html>"
    ingest(text=page, filename="leave.html")

    answer = answer_question(user=employee, text="勤続1年6か月の短時間社員の有給休暇は何日ですか？").answer

    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    cited = [c.cited_text for c in answer.citations.all()]
    assert any("1年6か月" in quote and "7日" in quote for quote in cited), cited
