"""The grounding gate and the abstention messages (verification/grounding.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from verification.grounding import (
    NOT_FOUND_MESSAGE,
    NOT_FOUND_MESSAGE_EN,
    UNGROUNDED_MESSAGE,
    gate,
    grounded_ratio,
    is_abstention,
    is_grounded,
)


@dataclass
class Block:
    text: str
    citations: list[object] = field(default_factory=list)


CITED = ["cite"]


def test_messages_are_the_reference_texts() -> None:
    assert UNGROUNDED_MESSAGE == "関連する文書を十分に見つけられませんでした"
    assert NOT_FOUND_MESSAGE == "提供された文書からは該当する内容が見つかりませんでした"
    assert NOT_FOUND_MESSAGE_EN == "The provided documents do not contain information about this."


@pytest.mark.parametrize(
    ("blocks", "ratio"),
    [
        ([], 1.0),
        ([Block("")], 1.0),
        ([Block("有給休暇は10日です。", CITED)], 1.0),
        ([Block("有給休暇は10日です。")], 0.0),
        ([Block("あいうえお", CITED), Block("かきくけこ")], 0.5),
        ([Block("あ", CITED), Block("かきく")], 0.25),
        # Whitespace does not count: a bare line break between cited blocks changes nothing.
        ([Block("あいう", CITED), Block("\n\n"), Block("えお", CITED)], 1.0),
        ([Block("あいう", CITED), Block("   か")], 0.75),
    ],
)
def test_grounded_ratio(blocks: list[Block], ratio: float) -> None:
    assert grounded_ratio(blocks) == pytest.approx(ratio)


def test_only_countable_citations_ground_a_block() -> None:
    blocks = [Block("あいう", ["good"]), Block("えお", ["bad"])]
    assert grounded_ratio(blocks, counts=lambda c: c == "good") == pytest.approx(0.6)


@pytest.mark.parametrize(
    ("ratio", "minimum", "passes"),
    [(0.5, 0.5, True), (0.49, 0.5, False), (1.0, 0.5, True), (0.0, 0.0, True), (0.7, 0.8, False)],
)
def test_gate(ratio: float, minimum: float, passes: bool) -> None:
    assert is_grounded(ratio, minimum) is passes
    shown = gate("元の回答", ratio, minimum)
    assert shown == ("元の回答" if passes else UNGROUNDED_MESSAGE)


@pytest.mark.parametrize(
    "text",
    [
        NOT_FOUND_MESSAGE,
        NOT_FOUND_MESSAGE + "。",
        NOT_FOUND_MESSAGE + "．",
        "  " + NOT_FOUND_MESSAGE + "。\n",
        "「" + NOT_FOUND_MESSAGE + "」",
        "申し訳ありませんが、" + NOT_FOUND_MESSAGE + "。",
        NOT_FOUND_MESSAGE_EN,
        NOT_FOUND_MESSAGE_EN.rstrip("."),
        NOT_FOUND_MESSAGE_EN.upper(),
        "Sorry, the provided documents do not contain information about this.",
        "ｔｈｅ ｐｒｏｖｉｄｅｄ ｄｏｃｕｍｅｎｔｓ ｄｏ ｎｏｔ ｃｏｎｔａｉｎ ｉｎｆｏｒｍａｔｉｏｎ ａｂｏｕｔ ｔｈｉｓ",
    ],
)
def test_is_abstention(text: str) -> None:
    assert is_abstention(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "。",
        "有給休暇は10日です。",
        NOT_FOUND_MESSAGE + "が、一般的には10日程度です。",
        "提供された文書からは該当する内容が見つかりました。",
        UNGROUNDED_MESSAGE,
        "The provided documents contain information about this.",
    ],
)
def test_is_not_abstention(text: str) -> None:
    assert not is_abstention(text)
