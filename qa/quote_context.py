"""A citation's context: what is stored around a quote, and how a footnote shows it.

Pure Python (no Django). :func:`stored_context` picks the context stored with a
citation (shown as is on the review page): a base window of the chunk's
Markdown source, widened outward to the nearest sentence boundary so that it
never starts or ends mid-phrase (the lead-in of the quote's sentence, such as
「紛失・盗難に気づいたら、」, is kept). Citations stored before that rule hold the
bare fixed-size window, which can start or end mid-phrase. Either carries Markdown syntax (``## 見出し``, ``- ``, ``| … |``). A reader wants the
words: headings are dropped (the footnote shows the section path as its
heading), list and quote markers and emphasis are removed, table rows read as
their cells joined by " / ", and the context starts and ends at a sentence
boundary. Where the window holds no boundary, the cut is marked with "…".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragportal.text import MARKDOWN_LINK

ELLIPSIS = "…"

# The stored context: at least this many characters each side of the quote...
STORED_CHARS = 80
# ...widened up to this many to reach a sentence boundary (beyond that, the bare window).
STORED_MAX_CHARS = 240

# A sentence ends after these characters (and at every line end).
_SENTENCE_END = "。！？!?"
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LINE_MARKER = re.compile(r"^\s*(?:(?:[-*+]|\d{1,9}[.)])\s+|>\s?)+")
_LIST_MARKER_ONLY = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)]|>)\s*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
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
    text = MARKDOWN_LINK.sub(r"\1", text)
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


def _is_boundary(text: str, offset: int) -> bool:
    """Whether a sentence starts/ends at ``offset`` of ``text`` (its edges, after 。 etc., at a line break)."""
    if offset <= 0 or offset >= len(text):
        return True
    return text[offset - 1] in _SENTENCE_END or text[offset - 1] == "\n" or text[offset] == "\n"


def stored_context(text: str, start: int, end: int) -> tuple[str, str]:
    """The context stored around ``text[start:end]``: (before, after), each starting/ending at a sentence boundary.

    Each side is the base window of :data:`STORED_CHARS` characters, widened to the
    next boundary beyond it (so a widened side is longer than the base window) but
    to no more than :data:`STORED_MAX_CHARS`; a side with no boundary in reach
    keeps the base window. :func:`context_is_whole` reads this back.
    """
    first = max(0, start - STORED_CHARS)
    for offset in range(first - 1, max(0, start - STORED_MAX_CHARS) - 1, -1):
        if first > 0 and _is_boundary(text, offset):
            first = offset
            break
    last = min(len(text), end + STORED_CHARS)
    for offset in range(last + 1, min(len(text), end + STORED_MAX_CHARS) + 1):
        if last < len(text) and _is_boundary(text, offset):
            last = offset
            break
    return text[first:start], text[end:last]


def context_is_whole(context: str, *, reaches_chunk_edge: bool) -> bool:
    """Whether a stored context side begins/ends with a whole sentence.

    True when it reaches the chunk's edge, or when :func:`stored_context` widened it
    to a boundary (it is then longer than the base window). A side of exactly the
    base window may be cut mid-phrase (older citations, or no boundary in reach).
    """
    return reaches_chunk_edge or len(context) > STORED_CHARS


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
