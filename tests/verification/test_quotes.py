"""Locating quotes in the chunk they claim (verification/quotes.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.quotes import locate_quote, quote_matches
from verification.textnorm import normalize

CHUNK = (
    "## 有給休暇\n"
    "- 有給休暇は入社6ヶ月後に10日付与されます\n"
    "- 有給申請は最低3日前までに申請してください\n"
    "- 申請は社内システム「勤怠くん」から行います\n"
)
# The same text as PDF extraction returns it: lines broken mid-sentence, full-width digits, spaces between words.
PDF_CHUNK = "有給休暇は入社６ヶ月後に１０日付与\nされます。有給申請は最低３日前ま\nでに申請して ください。"


@pytest.mark.parametrize(
    ("quote", "text", "expected"),
    [
        # Exact occurrences.
        ("有給休暇は入社6ヶ月後に10日付与されます", CHUNK, "有給休暇は入社6ヶ月後に10日付与されます"),
        ("「勤怠くん」", CHUNK, "「勤怠くん」"),
        # NFKC: full-width digits in the text or in the quote.
        ("有給休暇は入社6ヶ月後に10日付与されます", PDF_CHUNK, "有給休暇は入社６ヶ月後に１０日付与\nされます"),
        ("有給休暇は入社６ヶ月後に１０日付与されます", CHUNK, "有給休暇は入社6ヶ月後に10日付与されます"),
        # Line breaks and spaces inside the passage.
        ("有給申請は最低3日前までに申請してください", PDF_CHUNK, "有給申請は最低３日前ま\nでに申請して ください"),
        (
            "Reset your  password\nat the portal",
            "Reset your password at the portal.",
            "Reset your password at the portal",
        ),
        # Case and dash variants.
        ("company-wifi", "SSIDは「COMPANY－WIFI」です", "COMPANY－WIFI"),
        ("9:00〜18:00", "標準勤務時間は9:00～18:00です", "9:00～18:00"),
        # Half-width katakana with a separate voiced mark.
        ("ガイド", "ｶﾞｲﾄﾞを参照", "ｶﾞｲﾄﾞ"),
        # Surrounding whitespace of the quote is ignored.
        ("  有給申請は最低3日前までに申請してください \n", CHUNK, "有給申請は最低3日前までに申請してください"),
    ],
)
def test_found_returns_offsets_into_the_original(quote: str, text: str, expected: str) -> None:
    span = locate_quote(quote, text)
    assert span is not None
    start, end = span
    assert text[start:end] == expected


@pytest.mark.parametrize(
    ("quote", "text"),
    [
        ("有給休暇は入社6ヶ月後に20日付与されます", CHUNK),  # a number changed
        ("有給休暇は6ヶ月後に10日付与されます", CHUNK),  # a word dropped
        ("有給休暇は入社6ヶ月後に必ず10日付与されます", CHUNK),  # a word added
        ("申請は社内システム「経費くん」から行います", CHUNK),  # a name changed
        ("5,000円以上の経費は上長の事前承認が必要です", CHUNK),  # the wrong source
        ("", CHUNK),
        ("   \n", CHUNK),
        ("有給", ""),
    ],
)
def test_not_found(quote: str, text: str) -> None:
    assert locate_quote(quote, text) is None


def test_nearest_occurrence_to_the_claimed_offset() -> None:
    text = "申請してください。" * 3
    assert locate_quote("申請してください", text) == (0, 8)
    assert locate_quote("申請してください", text, near=17) == (18, 26)
    assert locate_quote("申請してください", text, near=100) == (18, 26)


def test_nearest_occurrence_after_normalisation() -> None:
    text = "３日前。\n３日前。"
    assert locate_quote("3日前", text, near=5) == (5, 8)


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [(15, 40, False), (None, 5, False), (0, 999, False), (5, 5, False)],
)
def test_quote_matches_rejects_bad_offsets(start: int | None, end: int | None, expected: bool) -> None:
    assert quote_matches("有給休暇", CHUNK, start, end) is expected


def test_quote_matches_exact_offsets() -> None:
    start = CHUNK.index("有給休暇は")
    assert quote_matches("有給休暇", CHUNK, start, start + 4)


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("有給休暇申請あいうアイウ123１２３ \n　。、-－")), min_size=1, max_size=60
    ),
    data=st.data(),
)
def test_property_any_substring_is_found_and_maps_back(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    quote = text[start:end]
    if not quote.strip():
        return
    span = locate_quote(quote, text)
    assert span is not None
    found = text[span[0] : span[1]]
    # Whatever was found folds to the same text as the quote.
    assert normalize(found) == normalize(quote)
