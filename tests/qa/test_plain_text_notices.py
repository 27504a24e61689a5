"""A plain-text notice as companies post it: a banner, a title line, 【label】 sections. The real pipeline."""

from __future__ import annotations

import pytest

from qa.services import answer_question

pytestmark = pytest.mark.django_db

NOTICE = """■■ お知らせ ■■
2026年度 予防接種 費用補助の申請受付を開始します

発信日：2026年10月1日
発信者：人事部 労務課

今年度も予防接種の費用を補助します。できるだけ多くの方の接種をお願いします。

【対象者】
　正社員、パートタイマー・アルバイト
　※ご家族は対象外です。

【補助額】
　1人1回まで、接種費用の実費を補助します（上限3,000円）。

【申請方法】
　社内ポータル「各種申請」から入力し、領収書を撮影して添付してください。

【申請期限】
　2027年2月15日（月）
　期限を過ぎた申請は受け付けません。

【問い合わせ】
　人事部 労務課　内線205
"""


# The rest of a small company's documents: what the notice's words are told apart from.
OTHERS = {
    "travel.md": "# 出張規程\n\n## 宿泊費\n国内出張の宿泊費は1泊12,000円を上限とします。\n",
    "leave.md": "# 休暇規程\n\n## 年次有給休暇\n入社6か月後に10日を付与します。申請は前日までに上長へ行います。\n",
    "it.md": "# ITサポート\n\n## パスワード\nパスワードを忘れた場合はヘルプデスク（内線3300）に連絡してください。\n",
    "payroll.md": "# 給与規程\n\n## 支給日\n給与は毎月25日に支給します。\n",
}


@pytest.fixture
def notice(ingest):
    document = ingest(text=NOTICE, filename="vaccination_notice.txt")
    for filename, text in OTHERS.items():
        ingest(text=text, filename=filename)
    return document


def test_the_title_is_the_line_under_the_banner(notice):
    assert notice.title == "2026年度 予防接種 費用補助の申請受付を開始します"


def test_the_title_line_is_not_quoted(notice, employee):
    # Read as a sentence, the title line was quoted after the answer (and, for a deadline, as the answer: a year).
    answer = answer_question(user=employee, text="予防接種の補助額はいくら？").answer
    assert answer.answer_text.startswith("1人1回まで、接種費用の実費を補助します（上限3,000円）。")
    assert "申請受付を開始します" not in answer.answer_text
