"""Text folding with offset maps (verification/textnorm.py)."""

from __future__ import annotations

import pytest

from verification.textnorm import is_ascii_word, normalize, normalize_with_map


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("ａｔｔｅｎｄａｎｃｅ．ｍｄ", "attendance.md"),
        ("Attendance.MD", "attendance.md"),
        ("有給休暇は\n入社 6ヶ月後", "有給休暇は入社6ヶ月後"),
        ("ｶﾞｲﾄﾞ", "ガイド"),
        ("9:00〜18:00", "9:00~18:00"),
        ("9:00～18:00", "9:00~18:00"),
        ("COMPANY－WIFI", "company-wifi"),
        ("１０日", "10日"),
        ("㍻", "平成"),
    ],
)
def test_normalize(text: str, folded: str) -> None:
    assert normalize(text) == folded
    assert normalize_with_map(text)[0] == folded


def test_normalize_keeps_single_spaces_when_asked() -> None:
    assert normalize("Reset  your\npassword", keep_whitespace=True) == "reset your password"


def test_map_points_back_into_the_original() -> None:
    text = "有給 ６ヶ月\nｶﾞｲﾄﾞ"
    norm, starts, ends = normalize_with_map(text)
    assert norm == "有給6ヶ月ガイド"
    assert [text[s:e] for s, e in zip(starts, ends, strict=True)] == ["有", "給", "６", "ヶ", "月", "ｶﾞ", "ｲ", "ﾄﾞ"]


@pytest.mark.parametrize(
    ("ch", "expected"),
    [("a", True), ("_", True), ("9", True), ("あ", False), ("漢", False), ("ａ", False), (".", False)],
)
def test_is_ascii_word(ch: str, expected: bool) -> None:
    assert is_ascii_word(ch) is expected
