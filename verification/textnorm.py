"""Text normalisation for comparing Japanese (and English) text, with offset maps.

Pure Python, no Django. Every check in ``verification`` compares text after the
same folding, so that full-width letters, case, the many dash and wave-dash
code points and PDF line breaks never decide a verdict:

- :func:`ragportal.text.fold`: NFKC (full-width ASCII → ASCII, half-width
  katakana → katakana, ``㍻`` → ``平成``) and lower case,
- dash and wave-dash variants folded to ``-`` and ``~``,
- all whitespace removed (PDF extraction breaks lines mid-sentence and inserts
  spaces between CJK characters; Japanese does not separate words by spaces).

:func:`normalize_with_map` also returns, for every character of the normalised
text, the span of the original text it came from, so a match found in the
normalised text can be reported as offsets into the original.
"""

from __future__ import annotations

import re
import unicodedata

from ragportal.text import fold

# Code points that look alike and are mixed freely by PDF/Word exports and IMEs.
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d"
_WAVES = "\u301c\u3030\uff5e\u223c"
_FOLD = {ord(c): "-" for c in _DASHES} | {ord(c): "~" for c in _WAVES}
_FOLD_RE = re.compile(f"[{_DASHES}{_WAVES}]")


def _fold_marks(text: str) -> str:
    # str.translate walks the string in Python-level dict lookups; skip it when nothing to fold.
    return text.translate(_FOLD) if _FOLD_RE.search(text) else text


def fold_char(ch: str) -> str:
    """Normalise one character: :func:`ragportal.text.fold`, then dash/wave folding.

    May return several characters (``㌔`` → ``キロ``) or none (a character
    that NFKC maps to the empty string is rare but allowed).
    """
    if ch.isascii():
        # Fast path: ASCII is already NFKC; only case folding applies.
        return ch.lower()
    return fold(ch).translate(_FOLD)


def normalize(text: str, *, keep_whitespace: bool = False) -> str:
    """Fold ``text`` for comparison (see the module docstring).

    With ``keep_whitespace`` runs of whitespace become a single space instead
    of being removed (used where word boundaries of Latin text matter).
    """
    return _marks_and_spaces(fold(text), keep_whitespace)


def fold_nfkc(text: str, *, keep_whitespace: bool = False) -> str:
    """:func:`normalize` for text that is already NFKC (skips the costly step)."""
    return _marks_and_spaces(text.lower(), keep_whitespace)


def _marks_and_spaces(folded: str, keep_whitespace: bool) -> str:
    marked = _fold_marks(folded)
    return (" " if keep_whitespace else "").join(marked.split())


def normalize_with_map(text: str) -> tuple[str, list[int], list[int]]:
    """Fold ``text`` like :func:`normalize` and map back to the original.

    Returns ``(norm, starts, ends)`` where ``norm[k]`` came from
    ``text[starts[k]:ends[k]]``. Whitespace is dropped. A combining voiced
    mark left over from half-width katakana (``ｶﾞ``) is composed with the
    preceding character, as whole-string NFKC would do.
    """
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            continue
        folded = fold_char(ch)
        if not folded:
            continue
        if out and unicodedata.combining(folded[0]):
            composed = unicodedata.normalize("NFC", out[-1] + folded[0])
            if len(composed) == 1:
                out[-1] = composed
                ends[-1] = i + 1
                folded = folded[1:]
        for part in folded:
            if part.isspace():
                continue
            out.append(part)
            starts.append(i)
            ends.append(i + 1)
    return "".join(out), starts, ends


def is_ascii_word(ch: str) -> bool:
    """True for ASCII letters, digits and underscore (a Latin "word" character).

    Python's ``\\w`` also matches kana and kanji, which is why ``\\b`` never fires
    between ``attendance.md`` and ``によると``; this is the class to use instead.
    """
    return ch.isascii() and (ch.isalnum() or ch == "_")
