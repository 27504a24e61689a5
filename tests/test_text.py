"""The shared text rules (ragportal/text.py): folding, language, span trim, sentences. No database."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from documents.segmentation import tokens
from qa.ambiguity import content_terms
from ragportal.text import (
    fold,
    is_english,
    is_hiragana,
    is_kanji,
    is_katakana,
    Line,
    looks_like_citation,
    nfkc,
    opened_line,
    split_sentences,
    trim_span,
)


def sentences(text: str, **options: bool) -> list[str]:
    return [text[s.start : s.end] for s in split_sentences(text, **options)]


# --- scripts ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ch", "kanji", "hiragana", "katakana"),
    [
        ("休", True, False, False),
        ("々", True, False, False),  # 人々: the repeat mark is written as a kanji
        ("﨑", True, False, False),  # a compatibility ideograph NFKC keeps (種﨑)
        ("ゝ", False, True, False),
        ("ー", False, False, True),
        ("ㇷ", False, False, True),  # the small katakana of チェㇷ゚オハウ
        ("・", False, False, False),  # punctuation, not a letter
        ("〇", False, False, False),  # a numeral
        ("a", False, False, False),
    ],
)
def test_script_of_a_character(ch: str, kanji: bool, hiragana: bool, katakana: bool) -> None:
    assert (is_kanji(ch), is_hiragana(ch), is_katakana(ch)) == (kanji, hiragana, katakana)


def test_a_word_written_with_the_small_katakana_is_searched_as_one_run() -> None:
    """チェㇷ゚オハウ (an Ainu dish) gives the bigrams of one word, not two words cut at ㇷ."""
    assert "ェㇷ" in tokens("チェㇷ゚オハウとは")
    assert "チェㇷ゚オハウ" in content_terms("チェㇷ゚オハウとはどんな料理？")
    assert "ド・" in tokens("キーボード・マウス")  # ・ keeps a compound together


# --- folding ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("ＶＰＮ接続はﾊﾟｽﾜｰﾄﾞ①で", "vpn接続はパスワード1で"),
        ("Wi-Fi", "wi-fi"),
        ("Ｐｄｆ", "pdf"),
        ("９：００～１８：００", "9:00~18:00"),
        ("㍻", "平成"),
        ("有給休暇", "有給休暇"),
    ],
)
def test_fold_matches_width_and_case_variants(text: str, folded: str) -> None:
    assert fold(text) == folded


ALPHABET = st.sampled_from(
    [chr(c) for c in range(0x20, 0x7F)]
    + [chr(c) for c in range(0x3000, 0x3100)]
    + [chr(c) for c in range(0xFF00, 0xFFEF)]
    + [chr(c) for c in range(0x3300, 0x3310)]
    + ["有", "給", "\u3099", "\u309a", "\uf900", "é", "\u0301", "ß", "İ", "\u2010", "\u301c", "가", "\u11a8"]
)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=30))
def test_property_fast_nfkc_and_fold_equal_the_plain_definitions(text: str) -> None:
    assert nfkc(text) == unicodedata.normalize("NFKC", text)
    assert fold(text) == unicodedata.normalize("NFKC", text).lower()


# --- language ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "english"),
    [
        ("How many days of paid leave do I get?", True),
        ("有給休暇は何日？", False),
        ("VPNの設定方法は？", False),  # an English product name in a Japanese question
        ("ﾊﾟｽﾜｰﾄﾞ reset", False),  # half-width katakana is Japanese too
        ("ＶＰＮ ｓｅｔｕｐ", True),  # full-width Latin is still Latin
        ("？", False),
        ("2024", False),
        ("", False),
    ],
)
def test_is_english(question: str, english: bool) -> None:
    assert is_english(question) is english


def test_is_english_can_tolerate_a_japanese_name_in_an_english_sentence() -> None:
    sentence = "Apply through 勤怠くん at least 3 days in advance."
    assert not is_english(sentence)
    assert is_english(sentence, mixed_share=0.2)
    assert not is_english("VPNの設定方法は？", mixed_share=0.2)


# --- span trim --------------------------------------------------------------------------------


def test_trim_span_drops_surrounding_whitespace_including_ideographic_space() -> None:
    text = " \u3000有給\n "
    assert trim_span(text, 0, len(text)) == (2, 4)
    assert trim_span(text, 0, 2) is None
    assert trim_span("", 0, 0) is None


# --- sentences --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("有給は10日です。申請は3日前までです。", ["有給は10日です。", "申請は3日前までです。"]),
        ("本当ですか？はい！そうです。", ["本当ですか？", "はい！", "そうです。"]),
        ("終わり？！次。", ["終わり？！", "次。"]),
        # Brackets and quotes are never split inside.
        ("彼は「明日行く。必ず。」と言った。次です。", ["彼は「明日行く。必ず。」と言った。", "次です。"]),
        ("注意（例：遅刻。早退。）があります。", ["注意（例：遅刻。早退。）があります。"]),
        # Closing quotes and citation groups stay with their sentence.
        ("はい。」次です。", ["はい。」", "次です。"]),
        ("10日付与されます。[1][2]申請は3日前です。[3]", ["10日付与されます。[1][2]", "申請は3日前です。[3]"]),
        ("10日です。(attendance.md) 次です。", ["10日です。(attendance.md)", "次です。"]),
        ("10日です。（なお、3日前までに申請）", ["10日です。", "（なお、3日前までに申請）"]),
        # Decimals, abbreviations and initials are not sentence ends.
        ("上限は1.5万円です。", ["上限は1.5万円です。"]),
        ("It costs 3.5 dollars. Then stop.", ["It costs 3.5 dollars.", "Then stop."]),
        (
            "See e.g. attendance.md for details. Room No. 5 is open.",
            ["See e.g. attendance.md for details.", "Room No. 5 is open."],
        ),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        # A question mark in a URL is not a sentence end.
        ("https://example.com/form?id=3 から申請します。", ["https://example.com/form?id=3 から申請します。"]),
        # Line breaks end sentences; an unclosed bracket ends with its line.
        ("（注：未完\n次の文です。", ["（注：未完", "次の文です。"]),
        ("", []),
        ("  \n\n ", []),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_list_markers_are_kept_by_default_and_stripped_on_request() -> None:
    text = "# 勤怠管理ルール\n\n## 有給休暇\n- 有給休暇は10日です\n・申請は3日前まで。急ぎは上長へ！\n1. 手順は次の通り\n(2) 次へ"
    assert sentences(text) == [
        "# 勤怠管理ルール",
        "## 有給休暇",
        "- 有給休暇は10日です",
        "・申請は3日前まで。",
        "急ぎは上長へ！",
        "1. 手順は次の通り",
        "(2) 次へ",
    ]
    assert sentences(text, strip_markers=True) == [
        "勤怠管理ルール",
        "有給休暇",
        "有給休暇は10日です",
        "申請は3日前まで。",
        "急ぎは上長へ！",
        "手順は次の通り",
        "次へ",
    ]
    assert [s.heading for s in split_sentences(text)] == [True, True, False, False, False, False, False]


def test_a_line_that_opens_with_bold_keeps_its_asterisks_when_markers_are_stripped() -> None:
    # Handbooks write definitions as bold labels; read as a bullet, 「**」 lost one 「*」 and the
    # quote showed 「*自然災害休暇:** …」, which no Markdown renders as bold.
    text = "**自然災害休暇:** 最大14日間の有給休暇\n* 箇条書きの項目\n-10%の割引"
    assert sentences(text, strip_markers=True) == [
        "**自然災害休暇:** 最大14日間の有給休暇",
        "箇条書きの項目",
        "-10%の割引",
    ]


def test_spans_are_offsets_into_the_original_text_and_say_how_they_ended() -> None:
    text = "  有給は10日です。\n申請は3日前 "
    spans = split_sentences(text)
    assert [(s.start, s.end, s.terminated) for s in spans] == [(2, 11, True), (12, 18, False)]


def test_numbered_items_as_rule_books_write_them_are_list_items() -> None:
    # 規程 number their steps 「（１）」 (full-width, no space after): a marker, as 「1. 」 and 「(2) 」 are.
    text = "次の手順で報告する。\n（１）被災者を救護する\n(2)班長に報告する\n(1,000円) は対象外\n２　前項の報告は省略しない"
    assert sentences(text, strip_markers=True) == [
        "次の手順で報告する。",
        "被災者を救護する",
        "班長に報告する",
        "(1,000円) は対象外",  # a bracketed amount opening a line is no marker
        "２　前項の報告は省略しない",  # nor a paragraph number (第2項)
    ]
    assert [opened_line(text, s.start).item for s in split_sentences(text, strip_markers=True)] == [
        False,
        True,
        True,
        False,
        False,
    ]


def test_the_line_a_sentence_opens_tells_a_list_item_and_its_depth_from_a_paragraph() -> None:
    text = "出張者は次のタイミングで予約します：\n- 航空券は早めに。理想は次のとおり。\n  - 国際：21日前\n  2. 国内\n## 見出し"
    spans = split_sentences(text, strip_markers=True)
    assert [(text[s.start : s.end], opened_line(text, s.start)) for s in spans] == [
        ("出張者は次のタイミングで予約します：", Line(0, False)),
        ("航空券は早めに。", Line(0, True)),
        ("理想は次のとおり。", None),  # the line's second sentence opens nothing
        ("国際：21日前", Line(2, True)),
        ("国内", Line(2, True)),
        ("見出し", Line(0, False)),  # a heading is no list item
    ]


@pytest.mark.parametrize(
    ("group", "cites"),
    [("(attendance.md)", True), ("[1]", True), ("（出典：就業規則）", True), ("（なお、3日前まで）", False)],
)
def test_looks_like_citation(group: str, cites: bool) -> None:
    assert looks_like_citation(group) is cites


TEXT = st.text(
    alphabet=st.sampled_from(
        list("有給休暇申請日月円あいうアイウ0123４５。！？.?!「」（）()[] \n　-・#e.gNo1attendance.md")
    ),
    max_size=80,
)


@settings(max_examples=200, deadline=None)
@given(text=TEXT, strip_markers=st.booleans())
def test_property_spans_are_ordered_trimmed_and_cover_the_text(text: str, strip_markers: bool) -> None:
    spans = split_sentences(text, strip_markers=strip_markers)
    previous_end = 0
    covered: set[int] = set()
    for span in spans:
        assert previous_end <= span.start < span.end <= len(text)
        assert not text[span.start].isspace() and not text[span.end - 1].isspace()
        covered.update(range(span.start, span.end))
        previous_end = span.end
    if not strip_markers:
        assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
