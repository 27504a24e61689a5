"""A bold line standing alone (「**住宅手当**」) labels the paragraph below it, as a heading does: the real pipeline."""

from __future__ import annotations

import pytest

from qa.services import answer_question

pytestmark = pytest.mark.django_db

ALLOWANCES = """# 福利厚生

## 手当

**通勤手当**

公共交通機関の定期券代を月5万円まで支給します。

**住宅手当**

賃貸住宅に住む社員に月2万円を支給します。

**家族手当**

扶養する子1人につき月1万円を支給します。
"""


@pytest.fixture
def allowances(ingest):
    ingest(text=ALLOWANCES, filename="benefits.md")
    ingest(text="# 出張規程\n\n## 宿泊費\n国内出張の宿泊費は1泊12,000円を上限とします。\n", filename="travel.md")


def test_the_paragraph_under_a_bold_label_answers_what_the_label_names(allowances, employee):
    # Read as plain text, 「**家族手当**」 ended the 住宅手当 paragraph, which was quoted (at 高) as the answer.
    answer = answer_question(user=employee, text="家族手当って何？").answer
    assert answer.response_type == "answer"
    assert answer.answer_text.startswith("扶養する子1人につき月1万円を支給します。")


def test_a_bold_label_is_not_quoted_as_an_answer_by_itself(allowances, employee):
    answer = answer_question(user=employee, text="住宅手当はいくら？").answer
    assert answer.answer_text == "賃貸住宅に住む社員に月2万円を支給します。"
