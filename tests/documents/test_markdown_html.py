"""HTML inside Markdown is read as the Markdown it stands for: tables, <br>, lists, <details>."""

from __future__ import annotations

import pytest

from documents.chunking import chunk_document
from documents.markdown_html import markdown_without_html
from documents.parsing import parse_file

# A leave table as handbooks write it when Markdown's pipe tables cannot merge cells.
LEAVE_HTML = """# 年次有給休暇

付与日数は次の表のとおりとする。
<table>
<thead>
<tr><th rowspan="2">勤続年数</th><th colspan="2">付与日数</th></tr>
<tr><th>正社員</th><th>短時間社員</th></tr>
</thead>
<tbody>
<tr><td>6か月</td><td>10日</td><td rowspan="2">7日</td></tr>
<tr><td>1年6か月</td><td>11日</td></tr>
<tr><td>2年6か月</td><td>12日</td><td>8日</td></tr>
</tbody>
</table>

申請は前日までに行う。
"""

# The same table as someone would write it by hand with pipes (merged cells repeated).
LEAVE_PIPES = """| 勤続年数 | 付与日数 正社員 | 付与日数 短時間社員 |
| --- | --- | --- |
| 6か月 | 10日 | 7日 |
| 1年6か月 | 11日 | 7日 |
| 2年6か月 | 12日 | 8日 |"""


def test_a_table_with_merged_cells_becomes_the_pipe_table_it_stands_for():
    text = parse_file("leave.md", LEAVE_HTML.encode()).text
    assert LEAVE_PIPES in text
    assert "<t" not in text and "</" not in text
    # The paragraphs around it stay paragraphs of their own.
    assert "付与日数は次の表のとおりとする。\n\n| 勤続年数" in text
    assert "| 8日 |\n\n申請は前日までに行う。" in text


def test_no_chunk_holds_raw_table_markup_and_each_row_reads_whole():
    doc = parse_file("leave.md", LEAVE_HTML.encode())
    chunks = chunk_document(doc)
    assert chunks and all("<td" not in c.text and "<tr" not in c.text for c in chunks)
    assert any("| 1年6か月 | 11日 | 7日 |" in c.text for c in chunks)
    assert all(c.heading_path == "年次有給休暇" for c in chunks)


def test_a_table_whose_cells_hold_markdown_across_blank_lines_is_one_table():
    # CommonMark ends an HTML block at a blank line: the list in the cell sits between two blocks.
    source = (
        "<table>\n<tr>\n<th>手続き</th>\n<th>担当</th>\n</tr>\n<tr>\n<td>入社手続き</td>\n<td>\n\n"
        "- 書類の回収\n- アカウント発行\n\n</td>\n</tr>\n</table>\n"
    )
    assert markdown_without_html(source).strip() == (
        "| 手続き | 担当 |\n| --- | --- |\n| 入社手続き | 書類の回収; アカウント発行 |"
    )


def test_a_table_without_header_cells_gets_an_empty_header_so_no_row_is_lost():
    out = markdown_without_html("<table><tr><td>所定労働時間</td><td>8時間</td></tr></table>")
    assert out.strip().splitlines() == ["|  |  |", "| --- | --- |", "| 所定労働時間 | 8時間 |"]


def test_a_table_written_sideways_with_row_headers_reads_one_record_per_row():
    """Each row starts with its <th> and columns outnumber rows: one column per record, so it is turned."""
    source = (
        "<table>\n<caption>付与日数</caption>\n"
        "<tr><th>勤続年数</th><td>6か月</td><td>1年6か月</td><td>4年6か月</td></tr>\n"
        "<tr><th>付与日数</th><td>10日</td><td>11日</td><td>16日</td></tr>\n</table>\n"
    )
    assert markdown_without_html(source).strip().splitlines() == [
        "付与日数",
        "",
        "| 勤続年数 | 付与日数 |",
        "| --- | --- |",
        "| 6か月 | 10日 |",
        "| 1年6か月 | 11日 |",
        "| 4年6か月 | 16日 |",
    ]
    # Named values down the side (more rows than columns) stay one per row.
    named = "<table><tr><th>所定労働時間</th><td>8時間</td></tr><tr><th>休憩</th><td>60分</td></tr></table>"
    assert markdown_without_html(named).strip().splitlines()[2:] == ["| 所定労働時間 | 8時間 |", "| 休憩 | 60分 |"]


def test_html_in_a_pipe_table_cell_becomes_its_text():
    source = "| 区分 | 日数 |\n|---|---|\n| 慶弔<br>休暇 | <ul><li>結婚 5日</li><li>忌引 3日</li></ul> |"
    assert markdown_without_html(source).splitlines()[2] == "| 慶弔; 休暇 | 結婚 5日; 忌引 3日 |"


def test_br_lists_details_and_headings_become_markdown():
    source = (
        "第一行<br>第二行\n\n"
        "<details>\n<summary>詳しい手順</summary>\n\n申請書を**総務部**に出す。\n\n</details>\n\n"
        "<ol>\n<li>申請する\n<ul><li>様式Aで</li></ul></li>\n<li>承認を待つ</li>\n</ol>\n\n"
        "<h2>問い合わせ先</h2>\n<!-- 社内メモ: 非公開 -->\n"
    )
    out = markdown_without_html(source)
    assert "第一行\n第二行" in out
    assert "詳しい手順" in out and "申請書を**総務部**に出す。" in out
    assert "1. 申請する\n  - 様式Aで\n2. 承認を待つ" in out
    assert "## 問い合わせ先" in out
    assert "<" not in out and "社内メモ" not in out


def test_html_headings_become_sections():
    doc = parse_file("faq.md", "<h2>経費精算</h2>\n\n締め日は毎月25日です。\n".encode())
    assert [(h.level, h.title) for h in doc.headings] == [(2, "経費精算")]


@pytest.mark.parametrize(
    "source",
    [
        "```html\n<table><tr><td>例</td></tr></table>\n```\n",
        "    <table><tr><td>例</td></tr></table>\n",
        "比較は a < b で行う。\n",
    ],
)
def test_code_and_text_that_is_not_html_stay_as_written(source):
    assert markdown_without_html(source) == source


def test_malformed_and_deeply_nested_html_does_not_fail():
    unclosed = markdown_without_html("<table><tr><td>値</td>\n\n本文\n")
    assert "値" in unclosed and "<td" not in unclosed
    deep = markdown_without_html("<div>" * 5000 + "奥の文" + "</div>" * 5000)
    assert "奥の文" in deep
