"""Plain-text rules shared by documents, qa and verification. Pure Python: no Django, no app imports.

One place for what every part of the portal must agree on:

* :func:`nfkc` and :func:`fold` — the comparison form of text (NFKC, lower case);
* :data:`KANJI`, :data:`HIRAGANA`, :data:`KATAKANA` — the Japanese scripts as character classes;
* :func:`is_english` — which language a question (or sentence) is written in;
* :func:`trim_span` — a span without its surrounding whitespace;
* :func:`split_sentences` — sentence spans, right for Japanese, as offsets into
  the original text (citations point at character offsets, so the text itself
  is never normalised here).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# --- normalisation --------------------------------------------------------------------------

# Characters that NFKC leaves unchanged and that never compose with a neighbour:
# ASCII, hiragana, full-width katakana, the common CJK ideographs and Japanese
# punctuation. Full NFKC of Japanese text is slow (~0.15 µs a character), so
# only the runs of other characters are normalised, each with the character
# before it, so that a combining mark still composes with its base.
_NFKC_STABLE = "\x00-\x7f\u3001-\u3003\u3005-\u3011\u3041-\u3096\u309d\u309e\u30a1-\u30fe\u4e00-\u9fff"
_NFKC_UNSTABLE_RE = re.compile(f".?[^{_NFKC_STABLE}]+", re.DOTALL)


def nfkc(text: str) -> str:
    """``unicodedata.normalize("NFKC", text)``, computed only where it can change anything."""
    return _NFKC_UNSTABLE_RE.sub(_nfkc_match, text)


def _nfkc_match(match: re.Match[str]) -> str:
    return unicodedata.normalize("NFKC", match.group(0))


def fold(text: str) -> str:
    """NFKC, then lower case: the form in which text is compared, indexed and searched.

    Full-width Latin and digits become ASCII, half-width katakana full-width
    (``ＶＰＮ`` and ``vpn``, ``ﾊﾟｽ`` and ``パス`` match), ``①`` becomes ``1``.
    Not length-preserving: never use the result for offsets or display.
    """
    return nfkc(text).lower()


# --- scripts --------------------------------------------------------------------------------

# The Japanese scripts as bodies of regular-expression character classes (``f"[{KANJI}]"``),
# by Unicode block; the one definition every rule that reads scripts builds on.
# Kanji: CJK Unified Ideographs, Extension A and the Compatibility Ideographs.
KANJI_IDEOGRAPHS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# Kanji as written: the ideographs with the marks that stand for one (々 repeats the kanji
# before it, 〆 is read shime as in 〆切).
KANJI = KANJI_IDEOGRAPHS + "\u3005\u3006"
# The Hiragana block: letters (ぁ–ゖ), the voicing marks (combining ゙ ゚ and spacing ゛゜),
# the iteration marks ゝゞ and ゟ.
HIRAGANA = "\u3041-\u3096\u3099-\u309f"
# The Katakana block's letters (ァ–ヺ), the long-vowel mark ー, the iteration marks ヽヾ and
# ヿ, the small letters of the Katakana Phonetic Extensions (ㇰ–ㇿ) and the combining voicing
# marks that complete a letter no precomposed character spells (ㇷ゚ in チェㇷ゚オハウ).
# Not the block's punctuation ゠ and ・.
KATAKANA = "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\u3099\u309a"
HALFWIDTH_KATAKANA = "\uff66-\uff9f"
# The katakana middle dot is punctuation, not a letter, but it joins the words of a
# compound or a list (キーボード・マウス, 遅刻・早退): rules that read such a run as one
# term add it to their class.
MIDDLE_DOT = "\u30fb"
# Kanji zero, written in numbers (二〇二四年).
KANJI_ZERO = "\u3007"

_KANJI_RE = re.compile(f"[{KANJI}]")
_HIRAGANA_RE = re.compile(f"[{HIRAGANA}]")
_KATAKANA_RE = re.compile(f"[{KATAKANA}]")


def is_kanji(ch: str) -> bool:
    """True for a kanji (:data:`KANJI`: the ideographs, 々 and 〆)."""
    return bool(_KANJI_RE.fullmatch(ch))


def is_hiragana(ch: str) -> bool:
    """True for a character of the Hiragana block (:data:`HIRAGANA`): a letter, voicing or iteration mark."""
    return bool(_HIRAGANA_RE.fullmatch(ch))


def is_katakana(ch: str) -> bool:
    """True for a katakana letter, the long-vowel mark ー, an iteration or combining voicing mark (:data:`KATAKANA`)."""
    return bool(_KATAKANA_RE.fullmatch(ch))


# --- language -------------------------------------------------------------------------------

# Kana (with half-width katakana and the ・ only Japanese is written with) and kanji (with 〇):
# any of them makes text Japanese.
_JAPANESE_CHAR_RE = re.compile(f"[{KANJI}{KANJI_ZERO}{HIRAGANA}{KATAKANA}{MIDDLE_DOT}{HALFWIDTH_KATAKANA}]")
_LATIN_LETTER_RE = re.compile(r"[A-Za-z\uff21-\uff3a\uff41-\uff5a]")


def is_english(text: str, *, mixed_share: float = 0.0) -> bool:
    """True when ``text`` has Latin letters and no kana or kanji.

    A Japanese question that names an English product (``VPNの設定方法は？``)
    is Japanese; text with no letters at all (``？``, ``123``) is not English.
    With ``mixed_share`` (0–1), kana and kanji making up less than that share
    of the letters are tolerated: an English answer sentence that names the
    Japanese system it is about (``Apply via 勤怠くん.``) is still English.
    """
    if not mixed_share:
        return not _JAPANESE_CHAR_RE.search(text) and bool(_LATIN_LETTER_RE.search(text))
    japanese = len(_JAPANESE_CHAR_RE.findall(text))
    latin = len(_LATIN_LETTER_RE.findall(text))
    return latin > 0 and japanese < mixed_share * (japanese + latin)


# --- spans ----------------------------------------------------------------------------------


def trim_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """``(start, end)`` narrowed to exclude surrounding whitespace; ``None`` when nothing else is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


# --- sentences ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    """A sentence as the span ``text[start:end]``.

    ``heading`` marks a Markdown heading line (``## 有給休暇``); ``terminated``
    is True when a sentence mark (``。！？`` …) ended it, False when a line
    break or the end of the text did.
    """

    start: int
    end: int
    heading: bool = False
    terminated: bool = False


_PAIRS = dict(zip("「『（(［[【〔〈《“", "」』）)］]】〕〉》”", strict=True))
_CLOSERS = frozenset(_PAIRS.values())
# Closing marks a sentence keeps after its terminator ("。」", 'stop."'); ASCII quotes are
# ambiguous (they open as well as close), so they only ever trail.
_TRAILING_CLOSERS = _CLOSERS | frozenset("\"'’")
# The marks that end a sentence.
TERMINATORS = frozenset("。！？!?．")
_TAIL_MARKS = TERMINATORS | frozenset("…‥")
_SCAN_RE = re.compile("[." + re.escape("".join(sorted(TERMINATORS)) + "".join(_PAIRS) + "".join(_PAIRS.values())) + "]")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "mr", "mrs", "ms", "dr", "vs", "no", "p", "pp", "fig"})
# Line decoration that is not part of the sentence: Markdown headings, bullets,
# numbered items ("1. ", "(2) ", "３．"), circled numbers. A Markdown bullet (-, *, +) is
# followed by a space: 「**休職:** …」 opens with bold, not with a bullet.
_LINE_MARKER_RE = re.compile(
    r"(?:#{1,6}\s+|[-*+](?:\s+|$)|[・•●■□◆◇○]\s*|[(（]\d{1,3}[)）]\s*|\(?\d{1,3}(?:[.)](?:\s+|$)|[．）](?!\d)\s*)|[①-⑳]\s*)"
)
_HEADING_RE = re.compile(r"#{1,6}\s")
# A bracket group right after a sentence end that is a citation belongs to that sentence:
# "…付与されます。(attendance.md)" or "…です。[1]".
_CITATION_GROUP_RE = re.compile(
    r"[ \t\u3000]*(?:\([^()\n]{0,120}\)|（[^（）\n]{0,120}）|\[[^\[\]\n]{0,120}\]|［[^［］\n]{0,120}］)"
)
_CITATION_RE = re.compile(
    r"\.(?:md|markdown|txt|html?|pdf|docx)\b|^[\[［(（]\s*\d+\s*[\]］)）]$|出典|参照|source",
    re.IGNORECASE,
)


# A Markdown table's row (a stripped line between pipes) and its rule under the header row (「|---|:--:|」).
TABLE_ROW = re.compile(r"^\|.*\|$")
TABLE_RULE = re.compile(r"^\|[\s:|-]+\|$")
# An inline Markdown link or image, 「[text](target)」 or 「![alt](src)」; its group is the text shown.
MARKDOWN_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def table_cells(row: str) -> tuple[str, ...]:
    """The cells of a table row, stripped, empty ones included: 「| 3年以上 | 16日 |  |」 → ("3年以上", "16日", "")."""
    return tuple(cell.strip() for cell in row.strip().strip("|").split("|"))


@dataclass(frozen=True)
class Line:
    """The line a sentence opens: its indentation and whether it is a list item (``- ``, ``1. ``, ``・``)."""

    indent: int
    item: bool


def opened_line(text: str, start: int) -> Line | None:
    """The line the sentence at ``text[start:]`` opens, None when the sentence starts mid-line.

    Only its indentation and list marker may stand before it on its line (spans
    from :func:`split_sentences` with ``strip_markers`` start after the marker).
    A heading line is not an item.
    """
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    stripped = before.lstrip()
    if not stripped:
        return Line(len(before), False)
    marker = _LINE_MARKER_RE.match(stripped)
    if marker is None or stripped[marker.end() :].strip():
        return None
    return Line(len(before) - len(stripped), not _HEADING_RE.match(stripped))


def looks_like_citation(group: str) -> bool:
    """True when a bracket group (``(attendance.md)``, ``[1]``, ``（出典：…）``) cites rather than says."""
    return bool(_CITATION_RE.search(group.strip()))


def split_sentences(text: str, *, strip_markers: bool = False) -> list[Sentence]:
    """Split ``text`` into sentences, as spans in reading order.

    A sentence ends at a line break (list items and headings are lines), at
    ``。！？``, at ``!?．`` unless a letter or digit follows (``form?id=3``,
    ``３．５``), and at an English full stop followed by a space — not after
    an abbreviation (``e.g.``, ``No.``), an initial, a decimal point (``1.5``)
    or a list number (``1. ``). A mark inside brackets or quotes
    (``「はい。そうです。」と言った。``) does not end the sentence; closing
    quotes and a citation right after the mark (``。」``, ``。[1][2]``,
    ``。(attendance.md)``) stay with it. An unclosed bracket ends at the line.

    Spans exclude surrounding whitespace and are never empty. Line markers
    (``- ``, ``・``, ``1. ``, ``## ``) are part of the first sentence of their
    line unless ``strip_markers`` is set; then every non-whitespace
    character outside the markers is in exactly one span.
    """
    sentences: list[Sentence] = []
    line_start = 0
    length = len(text)
    while line_start <= length:
        line_end = text.find("\n", line_start)
        if line_end == -1:
            line_end = length
        _split_line(text, line_start, line_end, strip_markers, sentences)
        line_start = line_end + 1
    return sentences


def _split_line(text: str, start: int, end: int, strip_markers: bool, out: list[Sentence]) -> None:
    while start < end and text[start].isspace():
        start += 1
    heading = bool(_HEADING_RE.match(text, start, end))
    marker = _LINE_MARKER_RE.match(text, start, end)
    scan = marker.end() if marker else start
    piece_start = scan if strip_markers else start

    def emit(stop: int, terminated: bool) -> None:
        span = trim_span(text, piece_start, stop)
        if span is not None:
            out.append(Sentence(span[0], span[1], heading, terminated))

    stack: list[str] = []
    i = scan
    while (hit := _SCAN_RE.search(text, i, end)) is not None:
        i = hit.start()
        ch = text[i]
        if ch in _PAIRS:
            stack.append(_PAIRS[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
        elif ch in _CLOSERS and ch in stack:
            # A mismatched closer: unwind to it rather than swallowing the line.
            while stack and stack.pop() != ch:
                pass
        elif not stack and _ends_sentence(text, i, end):
            stop = _sentence_tail(text, i + 1, end)
            emit(stop, True)
            piece_start = i = stop
            continue
        i += 1
    emit(end, False)


def _ends_sentence(text: str, i: int, end: int) -> bool:
    ch = text[i]
    after = text[i + 1] if i + 1 < end else ""
    if ch in "。！？":
        return True
    if ch in "!?．":
        return not (after.isascii() and after.isalnum()) and not (ch == "．" and after.isdigit())
    return ch == "." and _english_full_stop(text, i, end)


def _english_full_stop(text: str, i: int, end: int) -> bool:
    """A '.' followed by whitespace or the end (closing quotes between), not ending an abbreviation or initial."""
    j = i + 1
    while j < end and text[j] in _TRAILING_CLOSERS:
        j += 1
    if j < end and not text[j].isspace():
        return False
    word_start = i
    while word_start > 0 and (text[word_start - 1].isalpha() or text[word_start - 1] == "."):
        word_start -= 1
    word = text[word_start:i].lower()
    return word not in _ABBREVIATIONS and not (len(word) == 1 and word.isalpha())


def _sentence_tail(text: str, j: int, end: int) -> int:
    """Where a sentence whose mark ends at ``j`` really ends: after repeated marks, closers and citations."""
    while j < end and text[j] in _TAIL_MARKS:
        j += 1
    while j < end and text[j] in _TRAILING_CLOSERS:
        j += 1
    while (group := _CITATION_GROUP_RE.match(text, j, end)) is not None and looks_like_citation(group.group(0)):
        j = group.end()
    return j


__all__ = [
    "Sentence",
    "fold",
    "is_english",
    "looks_like_citation",
    "nfkc",
    "split_sentences",
    "trim_span",
]


_HALF_YEAR = re.compile(r"(\d+)年半")


def spelled_out(question: str) -> str:
    """``question`` with spoken durations as documents write them: 「2年半」 → 「2年6ヶ月」, 「半年」 → 「6ヶ月」."""
    return _HALF_YEAR.sub(r"\1年6ヶ月", question).replace("半年", "6ヶ月")
