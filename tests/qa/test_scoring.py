"""Scoring against answer keys and the reliability table (pure: no database)."""

from __future__ import annotations

import pytest

from qa.evaluation.scoring import contains_answer, is_correct, reliability, reliability_lines


def test_keys_are_found_after_folding_and_without_spaces() -> None:
    assert contains_answer("有給休暇は入社6ヶ月後に１０日付与されます", any_of=["10日"])
    assert contains_answer("上限は15,000 円です", any_of=["15,000円"])
    assert contains_answer("接続先は VPN.AOBA-TECH.EXAMPLE です", any_of=["vpn.aoba-tech.example"])
    assert not contains_answer("有給休暇は11日です", any_of=["10日"])


def test_any_of_needs_one_key_and_all_of_needs_every_key() -> None:
    text = "コアタイムは10:00〜15:00です。"
    assert contains_answer(text, any_of=["9:00", "10:00〜15:00"])
    assert not contains_answer(text, all_of=["10:00〜15:00", "12:00〜13:00"])
    assert contains_answer(text + "休憩は12:00〜13:00です。", all_of=["10:00〜15:00", "12:00〜13:00"])
    # Both given: one of the first and all of the second.
    assert not contains_answer(text, any_of=["10:00〜15:00"], all_of=["12:00〜13:00"])


def test_no_keys_find_nothing() -> None:
    assert not contains_answer("何でも", any_of=[], all_of=[])
    assert not contains_answer("何でも", any_of=[""])


def test_an_expected_answer_must_be_an_answer_holding_the_key() -> None:
    def score(response_type: str, text: str, **extra: object) -> bool:
        return is_correct("answer", response_type=response_type, answer_text=text, answers=["10日"], **extra)

    assert score("answer", "10日付与されます")
    assert not score("answer", "11日付与されます")
    assert not score("not_found", "提供された文書からは該当する内容が見つかりませんでした")
    assert not score("clarification", "どの文書ですか？ 10日")
    # The grounding gate withheld it: the user saw no answer, whatever the text says.
    assert not score("answer", "10日", withheld=True)


def test_a_two_fact_answer_needs_both_facts() -> None:
    keys = {"answers_all": ["週3日まで", "4,000円"]}
    assert is_correct("answer", response_type="answer", answer_text="週3日まで。手当は月額4,000円。", **keys)
    assert not is_correct("answer", response_type="answer", answer_text="週3日までです。", **keys)


def test_not_found_is_the_abstention_or_a_withheld_answer() -> None:
    assert is_correct("not_found", response_type="not_found", answer_text="見つかりませんでした")
    assert is_correct("not_found", response_type="answer", answer_text="関連する文書を…", withheld=True)
    assert not is_correct("not_found", response_type="answer", answer_text="株価は1,000円です")
    assert not is_correct("not_found", response_type="clarification", answer_text="どの文書ですか？")


def test_clarify_is_a_clarification_only() -> None:
    assert is_correct("clarify", response_type="clarification", answer_text="どの文書についての質問ですか？")
    assert not is_correct("clarify", response_type="answer", answer_text="上限は15,000円です")
    assert not is_correct("clarify", response_type="not_found", answer_text="見つかりませんでした")


def test_an_unknown_expectation_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown expectation"):
        is_correct("maybe", response_type="answer", answer_text="")


def test_reliability_counts_each_level_and_the_wrong_highs() -> None:
    table = reliability(
        [("high", True), ("high", True), ("high", False), ("medium", True), ("medium", False), ("low", False)]
    )
    assert table["n"] == 6
    assert table["levels"]["high"] == {"n": 3, "correct": 2, "share_correct": 0.6667}
    assert table["levels"]["medium"] == {"n": 2, "correct": 1, "share_correct": 0.5}
    assert table["levels"]["low"] == {"n": 1, "correct": 0, "share_correct": 0.0}
    assert (table["wrong_high"], table["wrong_high_rate"]) == (1, 0.1667)


def test_reliability_of_nothing_and_of_a_missing_confidence() -> None:
    empty = reliability([])
    assert empty["n"] == 0 and empty["wrong_high_rate"] == 0.0
    assert all(row["share_correct"] is None for row in empty["levels"].values())
    table = reliability([(None, True), ("", False)])
    assert table["levels"]["none"] == {"n": 2, "correct": 1, "share_correct": 0.5}
    assert table["wrong_high"] == 0


def test_reliability_lines_show_each_table_side_by_side() -> None:
    everything = reliability([("high", False), ("low", True), ("low", True)])
    answers = reliability([("high", False)])
    lines = reliability_lines({"all": everything, "answers": answers})
    high = next(line for line in lines if line.startswith("high"))
    assert high.split() == ["high", "1", "0.000", "1", "0.000"]
    low = next(line for line in lines if line.startswith("low"))
    assert low.split() == ["low", "2", "1.000", "0", "-"]
    assert lines[-1] == "wrong_high_rate 0.3333 (1 of 3 responses were high and wrong)"
