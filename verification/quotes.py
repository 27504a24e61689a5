"""Locating a quoted passage inside the chunk it claims to come from.

Pure Python, no Django. A provider's citation says "this text is in chunk N";
:func:`locate_quote` checks that claim. A quote is found when it occurs in the
text exactly, or after folding both sides (NFKC, case, dash variants, and all
whitespace, because PDF text breaks lines mid-sentence). Anything else — a word
dropped, added or changed, or the right words in the wrong chunk — is not found,
which the verdict reports as a fabricated quote.
"""

from __future__ import annotations

from verification.textnorm import normalize_with_map


def locate_quote(quote: str, text: str, *, near: int | None = None) -> tuple[int, int] | None:
    """Return ``(start, end)`` offsets into the original ``text`` where ``quote`` occurs.

    Exact occurrences win; otherwise the match is made on folded text and
    mapped back, so ``text[start:end]`` is the original passage (with its line
    breaks and full-width characters). A quote that is empty or only whitespace
    is never found. When the quote occurs several times, the occurrence nearest
    to ``near`` (the provider's claimed start offset, if any) is returned, else
    the first.
    """
    if not quote or not quote.strip():
        return None
    exact = _find_nearest(text, quote, near)
    if exact is not None:
        return exact, exact + len(quote)
    stripped = quote.strip()
    if stripped != quote:
        exact = _find_nearest(text, stripped, near)
        if exact is not None:
            return exact, exact + len(stripped)

    norm_quote, _, _ = normalize_with_map(quote)
    if not norm_quote:
        return None
    norm_text, starts, ends = normalize_with_map(text)
    hit = _find_nearest(norm_text, norm_quote, None if near is None else _norm_index(starts, near))
    if hit is None:
        return None
    return starts[hit], ends[hit + len(norm_quote) - 1]


def quote_matches(quote: str, text: str, start: int | None, end: int | None) -> bool:
    """True when the claimed offsets select exactly ``quote`` in ``text``."""
    if start is None or end is None or not quote:
        return False
    if not (0 <= start < end <= len(text)):
        return False
    return text[start:end] == quote


def _find_nearest(haystack: str, needle: str, near: int | None) -> int | None:
    first = haystack.find(needle)
    if first < 0:
        return None
    if near is None:
        return first
    best, pos = first, first
    while pos >= 0:
        if abs(pos - near) < abs(best - near):
            best = pos
        if pos > near:
            break
        pos = haystack.find(needle, pos + 1)
    return best


def _norm_index(starts: list[int], original: int) -> int:
    """Index in the folded text of the first character at or after ``original``."""
    lo, hi = 0, len(starts)
    while lo < hi:
        mid = (lo + hi) // 2
        if starts[mid] < original:
            lo = mid + 1
        else:
            hi = mid
    return lo
