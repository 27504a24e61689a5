"""A small sentence splitter for Japanese (and plain English) chunk text.

Returns character spans into the original text so that a sentence can be
cited by offsets. Pure: no Django, no third-party packages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TERMINATORS = "。！？!?．"
_OPENERS = "「『（(【〈《“"
_CLOSERS = "」』）)】〉》”"
# Markdown/list decoration at the start of a line: not part of the sentence.
_LINE_MARKER = re.compile(r"^(?:#{1,6}\s+|[-*+・•●■□◆◇○]\s*|\(?\d{1,3}[.)．）]\s+|[①-⑳]\s*)")
_HEADING = re.compile(r"^#{1,6}\s")


@dataclass(frozen=True)
class Sentence:
    """A sentence as a span ``text[start:end]``; ``heading`` marks a Markdown heading line."""

    start: int
    end: int
    heading: bool = False


def _is_english_full_stop(text: str, pos: int) -> bool:
    """A "." ends an English sentence when followed by whitespace or the end, not inside "3.5"."""
    if text[pos] != ".":
        return False
    after = text[pos + 1 : pos + 2]
    before = text[pos - 1 : pos]
    if after and not after.isspace():
        return False
    # "e.g. x" / single capital initials are rare in policy text; accept the simple rule.
    return bool(before) and not before.isspace()


def _split_line(text: str, start: int, end: int, heading: bool) -> list[Sentence]:
    """Split one line ``text[start:end]`` at sentence terminators outside brackets."""
    sentences: list[Sentence] = []
    depth = 0
    piece_start = start
    pos = start
    while pos < end:
        char = text[pos]
        if char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth = max(0, depth - 1)
        if depth == 0 and (char in _TERMINATORS or _is_english_full_stop(text, pos)):
            stop = pos + 1
            # Keep closing brackets and repeated marks ("？！", "。」") with the sentence.
            while stop < end and (text[stop] in _CLOSERS or text[stop] in _TERMINATORS):
                stop += 1
            sentences.append(Sentence(piece_start, stop, heading))
            piece_start = stop
            pos = stop
            continue
        pos += 1
    if piece_start < end:
        sentences.append(Sentence(piece_start, end, heading))
    return sentences


def _trim(text: str, sentence: Sentence) -> Sentence | None:
    start, end = sentence.start, sentence.end
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start >= end:
        return None
    return Sentence(start, end, sentence.heading)


def split_sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences, returned as spans in reading order.

    Line breaks end a sentence (list items and headings are lines); within a
    line a sentence ends at 。！？!? (or an English ". "), but not inside
    「」 or （）, so quoted speech stays whole. Leading list and heading markers
    ("- ", "・", "1. ", "## ") are left out of the span; surrounding whitespace
    too. Every span is non-empty and ``text[start:end]`` is the sentence.
    """
    result: list[Sentence] = []
    line_start = 0
    length = len(text)
    while line_start <= length:
        line_end = text.find("\n", line_start)
        if line_end == -1:
            line_end = length
        line = text[line_start:line_end]
        stripped = line.lstrip()
        offset = line_start + (len(line) - len(stripped))
        heading = bool(_HEADING.match(stripped))
        marker = _LINE_MARKER.match(stripped)
        if marker:
            offset += marker.end()
        for piece in _split_line(text, offset, line_end, heading):
            trimmed = _trim(text, piece)
            if trimmed is not None:
                result.append(trimmed)
        line_start = line_end + 1
    return result
