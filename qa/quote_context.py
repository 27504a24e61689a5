"""A footnote's quote in its surrounding text, as plain text cut at sentence boundaries.

Pure Python (no Django). The stored context around a quote is a fixed-size
window of the chunk's Markdown source: it can start or end mid-phrase and
carries Markdown syntax (``## 見出し``, ``- ``, ``| … |``). A reader wants the
words: headings are dropped (the footnote shows the section path as its
heading), list and quote markers and emphasis are removed, table rows read as
their cells joined by " / ", and the context starts and ends at a sentence
boundary. Where the window holds no boundary, the cut is marked with "…".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ELLIPSIS = "…"

# A sentence ends after these characters (and at every line end).
_SENTENCE_END = "。！？!?"
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LINE_MARKER = re.compile(r"^\s*(?:(?:[-*+]|\d{1,9}[.)])\s+|>\s?)+")
_LIST_MARKER_ONLY = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)]|>)\s*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|~~|`)(.+?)\1")


@dataclass(frozen=True)
class QuoteContext:
    before: str
    quote: str
    after: str


def _plain_line(line: str) -> str | None:
    """One Markdown source line as plain text; None for a line that shows nothing (heading, table rule)."""
    if _HEADING.match(line) or _TABLE_DELIMITER.match(line):
        return None
    if _LIST_MARKER_ONLY.match(line):
        return ""
    text = _LINE_MARKER.sub("", line)
    if text.strip().startswith("|") or text.strip().endswith("|"):
        cells = [cell.strip() for cell in _CELL_SPLIT.split(text.strip().strip("|"))]
        text = " / ".join(cell for cell in cells if cell)
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\2", text)
    return text.replace("\\|", "|")


def plain_text(markdown: str) -> str:
    """Markdown source (possibly a fragment) as plain text, line by line; blank lines collapse."""
    lines = [_plain_line(line) for line in markdown.split("\n")]
    kept = [line for line in lines if line is not None]
    text = "\n".join(kept)
    return re.sub(r"\n{2,}", "\n", text)


def _first_sentence_start(text: str) -> int | None:
    """Offset just after the first sentence end (or line end) in ``text``, or None."""
    for i, char in enumerate(text):
        if char in _SENTENCE_END or char == "\n":
            return i + 1
    return None


def _last_sentence_end(text: str) -> int | None:
    """Offset just after the last sentence end in ``text`` (a line end counts, before it), or None."""
    for i in range(len(text) - 1, -1, -1):
        if text[i] in _SENTENCE_END:
            return i + 1
        if text[i] == "\n":
            return i
    return None


def quote_in_context(
    before: str, quote: str, after: str, *, before_is_whole: bool, after_is_whole: bool, limit: int = 160
) -> QuoteContext:
    """The quote with at most ``limit`` characters of plain context each side, cut at sentence boundaries.

    ``before_is_whole``/``after_is_whole``: the stored context reaches the start/end
    of its chunk, so its first/last sentence is complete. A cut that finds no
    boundary inside the window keeps the words and marks the cut with "…".
    """
    quote = plain_text(quote).strip("\n")
    # Text right before the quote ends with its sentence's beginning: keep the line break that
    # separates it from the quote only when the quote starts a new line.
    before_text = plain_text(before)
    after_text = plain_text(after)

    if len(before_text) > limit:
        before_text, before_is_whole = before_text[-limit:], False
    if not before_is_whole:
        start = _first_sentence_start(before_text)
        if start is None:
            before_text = ELLIPSIS + before_text.lstrip()
        else:
            before_text = before_text[start:]
    before_text = before_text.lstrip("\n")

    if len(after_text) > limit:
        after_text, after_is_whole = after_text[:limit], False
    if not after_is_whole:
        end = _last_sentence_end(after_text)
        if end is None:
            after_text = after_text.rstrip() + ELLIPSIS if after_text.strip() else ""
        else:
            after_text = after_text[:end]
    after_text = after_text.rstrip("\n")
    return QuoteContext(before=before_text, quote=quote, after=after_text)
