"""Work rules written as companies write them: articles as plain lines, each answered and cited by its article."""

from __future__ import annotations

import pytest

from qa.models import Answer
from qa.services import answer_question

pytestmark = pytest.mark.django_db

# No Markdown heading below the chapters: the articles are lines of text, as in most published 就業規則.
WORK_RULES = """# 就業規則

## 第4章 休暇

第14条（休日）休日は土曜日、日曜日および国民の祝日とする。

（年次有給休暇）
第15条　入社6ヶ月後に10日の年次有給休暇を付与する。
２　年次有給休暇の申請は、取得する日の3日前までに行う。

第16条（慶弔休暇）本人が結婚するときは5日、配偶者が出産するときは2日の慶弔休暇を付与する。

第17条（生理休暇）生理日の就業が著しく困難な女性が請求したときは、必要な日数の休暇を与える。
"""


def test_an_article_written_as_a_plain_line_is_cited_by_its_article(ingest, employee):
    ingest(text=WORK_RULES, filename="work_rules.md")

    answer = answer_question(user=employee, text="結婚するときは何日休めますか？").answer

    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert "5日" in answer.answer_text
    citation = answer.citations.first()
    assert citation is not None and citation.section == "就業規則 > 第4章 休暇 > 第16条（慶弔休暇）"
    # The article is its own passage: the cited one says nothing of the articles around it.
    assert "年次有給休暇" not in citation.cited_text and "生理" not in citation.cited_text
