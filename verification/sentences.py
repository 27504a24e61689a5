"""Splitting answer text into sentences, right for Japanese.

Pure Python, no Django. Used by claim support and by anyone who needs
sentence spans of an answer (offsets into the original text).
"""

from __future__ import annotations

import re

_PAIRS = {"「": "」", "『": "』", "（": "）", "(": ")", "［": "］", "[": "]", "【": "】", "〈": "〉", "《": "》", "“": "”"}
_CLOSERS = frozenset(_PAIRS.values())
_TERMINATORS = frozenset("。！？!?．")
_ELLIPSES = frozenset("…‥")
_INTERESTING_RE = re.compile(
    "[\n.。！？!?．" + re.escape("".join(_PAIRS) + "".join(_PAIRS.values())) + "]"
)
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "mr", "mrs", "ms", "dr", "vs", "no", "p", "pp", "fig"})
# A bracket group right after a sentence end that is a citation belongs to that sentence:
# "…付与されます。(attendance.md)" or "…です。[1]".
_CITATION_GROUP_RE = re.compile(
    r"[ \t\u3000]*(?:\([^()\n]{0,120}\)|（[^（）\n]{0,120}）|\[[^\[\]\n]{0,120}\]|［[^［］\n]{0,120}］)"
)
LOOKS_LIKE_CITATION_RE = re.compile(
    r"\.(?:md|markdown|txt|html?|pdf|docx)\b|^[\[［(（]\s*\d+\s*[\]］)）]$|出典|参照|source",
    re.IGNORECASE,
)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into sentences; return ``(start, end)`` spans into ``text``.

    Sentences end at ``。！？!?．``, at an English full stop followed by a
    space, and at line breaks (bullet lists). A terminator inside brackets or
    quotes (``「はい。そうです。」と言った。``) does not end the sentence;
    closing quotes and a citation right after the terminator
    (``。(attendance.md)``, ``。[1]``) stay with it. Spans exclude surrounding
    whitespace; empty sentences are skipped.
    """
    spans: list[tuple[int, int]] = []
    n = len(text)
    start = 0
    stack: list[str] = []
    i = 0

    def close(end: int) -> None:
        s, e = start, end
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            spans.append((s, e))

    while i < n:
        hit = _INTERESTING_RE.search(text, i)
        if hit is None:
            break
        i = hit.start()
        ch = text[i]
        if ch == "\n":
            close(i)
            stack.clear()
            start = i + 1
            i += 1
            continue
        if ch in _PAIRS:
            stack.append(_PAIRS[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
        elif ch in _CLOSERS and stack and ch in stack:
            # A mismatched closer: unwind to it rather than swallowing the text.
            while stack and stack.pop() != ch:
                pass
        elif not stack and (ch in _TERMINATORS or (ch == "." and _english_full_stop(text, i))):
            j = i + 1
            while j < n and (text[j] in _TERMINATORS or text[j] in _ELLIPSES):
                j += 1
            while j < n and text[j] in _CLOSERS:
                j += 1
            while True:
                group = _CITATION_GROUP_RE.match(text, j)
                if group is None or not LOOKS_LIKE_CITATION_RE.search(group.group(0).strip()):
                    break
                j = group.end()
            close(j)
            start = j
            i = j
            continue
        i += 1
    close(n)
    return spans


def _english_full_stop(text: str, i: int) -> bool:
    """A '.' ends a sentence when followed by whitespace or the end, and is not an abbreviation or decimal."""
    if i + 1 < len(text) and not text[i + 1].isspace():
        return False
    word_start = i
    while word_start > 0 and (text[word_start - 1].isalpha() or text[word_start - 1] == "."):
        word_start -= 1
    word = text[word_start:i].lower()
    if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
        return False
    # A numbered list marker at the start of a line ("1. 領収書…") is not a sentence.
    line_start = text.rfind("\n", 0, i) + 1
    return not text[line_start:i].strip().isdigit()
