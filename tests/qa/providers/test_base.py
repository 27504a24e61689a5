"""Locating quotes and the abstention helpers."""

from __future__ import annotations

from qa.providers.base import ABSTAIN_EN, ABSTAIN_JA, abstention_text, is_abstention, locate_quote

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


def test_abstention_helpers():
    assert abstention_text("Where is the office?") == ABSTAIN_EN
    assert abstention_text("どこ？") == ABSTAIN_JA
    assert abstention_text("VPNの設定方法は？") == ABSTAIN_JA  # an English product name stays Japanese
    assert is_abstention(f"「{ABSTAIN_JA}」。")
    assert is_abstention(ABSTAIN_EN)
    assert not is_abstention("有給休暇は10日です。")
