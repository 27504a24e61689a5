"""What a rate is asked per (「1泊あたり」, 「per night」) and which sentences state one (verification.answer_types)."""

from __future__ import annotations

import pytest

from verification.answer_types import asked_rates, carries_rate


@pytest.mark.parametrize(
    ("question", "rates"),
    [
        ("What is the hotel limit per night on a business trip?", {"泊"}),
        ("ホテル代は1泊あたりいくらまで？", {"泊"}),
        ("日当は1日につきいくら？", {"日"}),
        ("How much is the allowance per person?", {"人"}),
        ("有給休暇は何日もらえますか？", set()),
        ("How much is the referral bonus?", set()),
    ],
)
def test_the_counter_a_rate_is_asked_per(question, rates):
    assert asked_rates(question) == rates


def test_a_sentence_states_a_rate_per_the_counter_asked():
    assert carries_rate("泊", "ホテルの価格は通常300USD/泊の範囲内です。")
    assert carries_rate("泊", "宿泊費は1泊あたり15,000円までです。")
    assert carries_rate("泊", "The limit is $300 per night.")
    assert not carries_rate("泊", "滞在が5日以上の場合、クリーニングが許可されます。")
    assert not carries_rate("日", "宿泊費は1泊あたり15,000円までです。")
