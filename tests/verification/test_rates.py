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
        # A period, as everyday Japanese asks it without あたり; kana too.
        ("昇格のチャンスは年に何回ある？", {"年"}),
        ("ボールペンやコピー用紙は月いくらまで経費で買える？", {"月"}),
        ("在宅勤務は週に何日までできますか？", {"週"}),
        ("1日何時間まで働ける？", {"日"}),
        ("補助は年間いくら？", {"年"}),
        ("せらぴーはねんになんかい？", {"年"}),
        ("How many days off do I get a year?", {"年"}),
        # A month counted with its counter: 「1か月」, 「1ヶ月」.
        ("経費の払い戻しって1か月あたりいくらまで？", {"月"}),
        ("通信費は1ヶ月ごとにいくら出る？", {"月"}),
        # 何年 asks a number of years, 今年 is this year: no rate.
        ("パソコンは何年使ったら交換できる？", set()),
        ("今年の有給は何日？", set()),
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


@pytest.mark.parametrize(
    ("counter", "sentence", "carries"),
    [
        ("年", "認定専門家による、年6回の無料セラピーセッション。", True),
        ("年", "GitLab は年に 2 回、正式な昇進レビューを実施します。", True),
        ("月", "上限は月50.00ドルに設定されています。", True),
        ("月", "在宅勤務手当として月額4,000円を支給します。", True),
        ("日", "所定労働時間は1日8時間です。", True),
        # An amount per period naming its value after は or a colon.
        ("月", "払い戻しの月額上限は10,000米ドルです。", True),
        ("年", "補助の年額：60,000円", True),
        ("日", "平日は5時までに退社します。", False),  # 平日, no period
        ("月", "上限は年間60ドルに設定されています。", False),  # a year's amount, not a month's
        ("年", "この規程は2024年5月1日に改定されました。", False),  # a date
        ("月", "この規程は2024年5月1日に改定されました。", False),
        ("年", "今年5月に改定されました。", False),  # this year, not per year
        ("日", "翌日3時までに申請してください。", False),
    ],
)
def test_a_sentence_states_a_quantity_per_the_period_asked(counter, sentence, carries):
    """「月いくらまで？」 is answered by 「月50ドル」, not by the 「年間60ドル」 beside it."""
    assert carries_rate(counter, sentence) is carries
