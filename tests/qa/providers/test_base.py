"""Locating quotes, splitting sentences, language and abstention helpers."""

from __future__ import annotations

from qa.providers.base import ABSTAIN_EN, ABSTAIN_JA, abstention_text, is_abstention, is_english, locate_quote
from qa.providers.sentences import split_sentences

TEXT = "有給休暇は入社6ヶ月後に10日付与されます。\n申請は「勤怠くん」から行います。有給休暇は入社6ヶ月後に10日付与されます。"


def test_exact_quote_nearest_to_the_claimed_offset_wins():
    quote = "有給休暇は入社6ヶ月後に10日付与されます"
    second = TEXT.index(quote, 1)
    assert locate_quote(TEXT, quote) == (0, len(quote))
    assert locate_quote(TEXT, quote, hint_start=second - 2) == (second, second + len(quote))


def test_normalised_match_maps_back_to_original_offsets():
    text = "申請は　社内システム「勤怠くん」から\n行います。"
    quote = "申請は社内システム｢勤怠くん｣から行います"  # half-width brackets, no spaces
    start, end = locate_quote(text, quote)
    assert (start, end) == (0, text.index("。"))
    assert text[start:end] == "申請は　社内システム「勤怠くん」から\n行います"


def test_full_width_digits_in_the_document_match_ascii_in_the_quote():
    text = "上限は１０，０００円です。"
    start, end = locate_quote(text, "上限は10,000円")
    assert text[start:end] == "上限は１０，０００円"


def test_missing_or_empty_quote_is_not_located():
    assert locate_quote(TEXT, "有給休暇は入社初日に20日付与されます") is None
    assert locate_quote(TEXT, "") is None
    assert locate_quote(TEXT, "  \n") is None


def test_sentences_are_spans_without_list_markers_or_blank_lines():
    text = "# 勤怠管理ルール\n\n## 有給休暇\n- 有給休暇は10日です\n・申請は3日前まで。急ぎは上長へ！\n1. 手順は次の通り"
    spans = split_sentences(text)
    assert [text[s.start : s.end] for s in spans] == [
        "勤怠管理ルール",
        "有給休暇",
        "有給休暇は10日です",
        "申請は3日前まで。",
        "急ぎは上長へ！",
        "手順は次の通り",
    ]
    assert [s.heading for s in spans] == [True, True, False, False, False, False]


def test_quoted_speech_and_decimals_stay_whole():
    text = "彼は「明日行く。必ず。」と言った。円周率は3.14です。It costs 3.5 dollars. Then stop."
    assert [text[s.start : s.end] for s in split_sentences(text)] == [
        "彼は「明日行く。必ず。」と言った。",
        "円周率は3.14です。",
        "It costs 3.5 dollars.",
        "Then stop.",
    ]


def test_language_and_abstention_helpers():
    assert is_english("How many days of leave?")
    assert not is_english("VPNの設定方法は？")
    assert abstention_text("Where is the office?") == ABSTAIN_EN
    assert abstention_text("どこ？") == ABSTAIN_JA
    assert is_abstention(f"「{ABSTAIN_JA}」。")
    assert is_abstention(ABSTAIN_EN)
    assert not is_abstention("有給休暇は10日です。")
