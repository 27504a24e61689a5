"""A quoted line that says little alone is quoted with the line it belongs to.

Labelled items (「対象：…」), a notice's indented lines and its 「※」 notes, and a line leading into a list
that one chunk cut off from its items, as company documents write them.
"""

from __future__ import annotations

from qa.providers.extractive import ExtractiveProvider

from .conftest import make_chunk


def test_a_labelled_item_is_quoted_under_the_sentence_that_says_what_it_belongs_to():
    """「対象：デスク、チェア、モニター…」 matches what the question names; what it is a field of, and the amount, is
    the sentence above it, quoted first (it had come after the item, when it came at all)."""
    text = (
        "### 在宅勤務の補助\n在宅勤務環境を整えるため、入社時に USD 500 までの補助を利用できます。\n\n"
        "- 対象：デスク、チェア、モニター、キーボード、マウス\n- 入社日から90日以内に申請してください。\n"
    )
    chunk = make_chunk(0, text, "expenses.md", "在宅勤務の補助")
    answer = ExtractiveProvider().generate(
        "家で使う椅子とかモニターを買いたいんだけど、会社から補助ってある？", [chunk]
    )
    first, second = (b.text.strip() for b in answer.blocks[:2])
    assert first.startswith("在宅勤務環境を整えるため") and "USD 500" in first
    assert second.startswith("対象：デスク")


def test_a_notes_indented_lines_and_its_note_belong_to_the_line_they_are_indented_under():
    """A notice board's 「※会社の人に知られずに相談できます。」 is said of the 窓口 above it, not on its own."""
    text = (
        "【窓口１】社内相談窓口（人事部）\n\u3000\u3000電話：内線3300\n\u3000\u3000受付時間：平日 9:00～18:00\n\n"
        "【窓口２】外部相談窓口（委託先：みなと総合法律事務所）\n\u3000\u3000フリーダイヤル：0120-38-7810\n"
        "\u3000\u3000受付時間：平日 10:00～20:00\n\u3000\u3000※会社の人に知られずに相談できます。\n"
    )
    chunk = make_chunk(0, text, "harassment.txt", "")
    answer = ExtractiveProvider().generate("会社の人に知られずに話を聞いてもらえるところってある？", [chunk])
    assert "外部相談窓口" in answer.text


def test_a_line_cut_off_from_its_list_is_read_where_the_next_chunk_holds_both():
    """Chunks overlap: 「■２．事故報告書の提出期限」 ends one and opens the next, where its items follow."""
    first = make_chunk(
        0,
        "■１．事故が起きたら\n\u3000・警察へ110番。\n\u3000・運行管理者へ電話。\n\n■２．事故報告書の提出期限",
        "accident.txt",
    )
    second = make_chunk(
        1,
        "■２．事故報告書の提出期限\n\n\u3000・第一報（電話）…… 直ちに\n"
        "\u3000・事故報告書（様式S-1）…… 発生から24時間以内に運行管理者へ\n",
        "accident.txt",
    )
    answer = ExtractiveProvider().generate("事故の報告書はいつまでに出せばいい？", [first, second])
    assert "24時間以内" in answer.text
