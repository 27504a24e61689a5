"""Citation presence: does the answer name its sources, and only real ones?

Pure Python, no Django. Implements the contract of the first reference article
(strong / weak / none, fabricated file names, three Japanese warnings, the
confidence rules) so that it is right on Japanese text:

- ``\\b`` never fires between Latin letters and kana/kanji (Python's ``\\w`` matches
  both), so boundaries are checked against ASCII word characters only:
  ``attendance.mdによると`` and ``資料attendance.mdを参照`` are strong citations,
  ``myattendance.md`` and ``attendances`` are not citations of ``attendance.md``.
- Case and width never matter (``Attendance.md``, ``ａｔｔｅｎｄａｎｃｅ．ｍｄ``): the
  answer is NFKC-normalised and compared case-insensitively.
- A path or link to a source counts as the source (``docs/attendance.md``,
  ``[勤怠](attendance.md)``), and every supported extension counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ragportal.text import MIDDLE_DOT, is_hiragana, is_kanji, is_katakana, nfkc
from verification.flags import WARNING_FABRICATED, WARNING_NONE, WARNING_WEAK
from verification.textnorm import is_ascii_word


# The uploadable formats (``documents.parsing.SUPPORTED_EXTENSIONS``; this module may not import documents).
SUPPORTED_EXTENSIONS: tuple[str, ...] = ("md", "markdown", "txt", "html", "htm", "pdf", "docx")


# Longest alternatives first so ".markdown" is not read as ".m" + "arkdown",
# and the look-ahead keeps ".htm" from matching the start of ".html" and
# ".md" from matching inside "attendance.md.bak".
_EXTENSION_RE = re.compile(
    rf"\.(?:{'|'.join(sorted(SUPPORTED_EXTENSIONS, key=len, reverse=True))})(?![A-Za-z0-9_]|\.[A-Za-z0-9])",
    re.IGNORECASE,
)
# Characters that join a Latin word: a source name starting with one of these
# must not be preceded by one (``myattendance.md`` is another file).
_JOINERS = r"A-Za-z0-9_\-."
# Words that commonly sit directly in front of a file name in Japanese prose
# ("資料attendance.md", "ファイル就業規則.pdf"); stripped from reported names only.
_LEADING_WORDS = ("ドキュメント", "ファイル", "資料", "文書", "出典", "参照", "参考", "添付")


def verify_citation_presence(answer: str, sources: list[str], *, cited: Iterable[str] = ()) -> dict | None:
    """Check which of ``sources`` (file names) the ``answer`` names, and which names it invents.

    ``cited``: the sources the answer cites by structure (a provider's citation
    of a chunk), which count as strong citations without being written in the
    text; the text is still read for the names it writes itself.

    Returns ``None`` when ``sources`` is empty (nothing to check against, e.g. a
    clarifying question). Otherwise a dict:

    - ``has_citation``: a strong or weak citation exists;
    - ``citation_quality``: ``"strong"`` (a source's file name, any case/width,
      possibly inside a path or link), ``"weak"`` (only a source's base name,
      standing alone as a Latin word, e.g. ``attendanceの資料``; or a file
      name that several sources share, ``_index.md`` for ``leave/_index.md``
      and ``benefits/_index.md``, which names no one of them), ``"none"``;
    - ``mentioned_sources``: the sources cited (strong ones, or weak ones when
      no strong one exists), spelled as in ``sources``;
    - ``expected_sources``: the sources, sorted;
    - ``unexpected_sources``: file names (supported extensions) in the answer
      that are not sources — fabricated citations;
    - ``mentioned_files``: every file name found in the answer (for debugging);
    - ``warning``: the first reference article's warning, priority
      fabricated > none > weak, or ``None`` for a clean strong citation.
    """
    if not sources:
        return None
    text = nfkc(answer)
    by_key, shared = _source_keys(sources)
    strong, strong_names, strong_ends = _strong_citations(text, by_key)
    for source in set(cited) & set(sources):
        strong.add(source)
        strong_names.setdefault(_source_key(source).casefold(), _source_key(source))
    unclear, unclear_ends = _shared_name_citations(text, shared, skip_ends=strong_ends)
    unexpected, unexpected_spans = _file_names(text, skip_ends=strong_ends | unclear_ends)
    weak = [] if strong else sorted(set(_weak_citations(text, by_key, unexpected_spans)) | unclear)
    return {
        "has_citation": bool(strong or weak),
        "citation_quality": "strong" if strong else ("weak" if weak else "none"),
        "mentioned_sources": sorted(strong) + sorted(weak),
        "expected_sources": sorted(set(sources)),
        # A spelling of a source's name wins over the same name read as another file.
        "mentioned_files": sorted({**unexpected, **strong_names}.values()),
        "unexpected_sources": sorted(unexpected.values()),
        "warning": _warning(unexpected, strong=bool(strong), weak=bool(weak)),
    }


def _source_keys(sources: list[str]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """How each source is matched in the answer, and the file names several sources share.

    A source is matched by its file name (``leave/_index.md`` by ``_index.md``,
    within any path or link) when no other source has that name; when several
    do, each is matched by its whole path only, and the bare shared name is
    returned with the sources that share it.
    """
    by_name: dict[str, list[str]] = {}
    for source in dict.fromkeys(sources):
        by_name.setdefault(_source_key(source).casefold(), []).append(source)
    by_key: dict[str, str] = {}
    shared: dict[str, list[str]] = {}
    for group in by_name.values():
        if len(group) == 1:
            by_key.setdefault(_source_key(group[0]), group[0])
            continue
        shared[_source_key(group[0])] = group
        for source in group:
            by_key.setdefault(_path_key(source), source)
    return by_key, shared


def _shared_name_citations(
    text: str, shared: dict[str, list[str]], *, skip_ends: set[int]
) -> tuple[set[str], set[int]]:
    """The sources named only by a file name they share with others (not by a path), and where those names end."""
    named: set[str] = set()
    ends: set[int] = set()
    for name, group in shared.items():
        for match in _name_pattern(name, extension=True).finditer(text):
            if match.end() not in skip_ends:
                named.update(group)
                ends.add(match.end())
    return named, ends


def _strong_citations(text: str, by_key: dict[str, str]) -> tuple[set[str], dict[str, str], set[int]]:
    """The sources whose whole file name ``text`` writes.

    Returns ``(sources, the names as written keyed by casefold, where each match ends)``.
    """
    strong: set[str] = set()
    written: dict[str, str] = {}
    ends: set[int] = set()
    for key, source in by_key.items():
        for match in _name_pattern(key, extension=True).finditer(text):
            strong.add(source)
            ends.add(match.end())
            written.setdefault(match.group(0).casefold(), match.group(0))
    return strong, written, ends


def _file_names(
    text: str, *, skip_ends: set[int] | frozenset[int] = frozenset()
) -> tuple[dict[str, str], list[tuple[int, int]]]:
    """File names with a supported extension in NFKC ``text``, keyed by casefold, and their spans.

    A name ending at one of ``skip_ends`` (a source's name already matched)
    is left out: it is that source, not another file.
    """
    names: dict[str, str] = {}
    spans: list[tuple[int, int]] = []
    for match in _EXTENSION_RE.finditer(text):
        if match.end() in skip_ends:
            continue
        found = _file_name_before(text, match.start(), match.end())
        if found is None:
            continue
        start, name = found
        names.setdefault(name.casefold(), name)
        spans.append((start, match.end()))
    return names, spans


def _weak_citations(text: str, by_key: dict[str, str], unexpected_spans: list[tuple[int, int]]) -> list[str]:
    """The sources whose base name (two characters or more) stands alone in ``text`` (``attendanceの資料``).

    An occurrence inside a fabricated file name (``attendance_old.md``) does not count.
    """
    weak: list[str] = []
    for key, source in by_key.items():
        base = _base_name(key)
        if len(base) < 2:
            continue
        for match in _name_pattern(base, extension=False).finditer(text):
            if not any(s < match.end() and match.start() < e for s, e in unexpected_spans):
                weak.append(source)
                break
    return weak


def _warning(unexpected: dict[str, str], *, strong: bool, weak: bool) -> str | None:
    """The first reference article's warning: fabricated > none > weak; ``None`` for a clean strong citation."""
    if unexpected:
        return WARNING_FABRICATED.format(names=", ".join(sorted(unexpected.values())))
    if not strong and not weak:
        return WARNING_NONE
    if not strong:
        return WARNING_WEAK
    return None


def file_names_in(text: str) -> list[str]:
    """Every file name with a supported extension written in ``text``, NFKC-normalised."""
    return list(_file_names(nfkc(text))[0].values())


def _source_key(source: str) -> str:
    """A source's base file name, NFKC-normalised (paths are stripped)."""
    normal = nfkc(source).strip()
    return re.split(r"[/\\]", normal)[-1]


def _path_key(source: str) -> str:
    """A source's whole name (folders too), NFKC-normalised, with forward slashes."""
    return nfkc(source).strip().replace("\\", "/")


def _base_name(key: str) -> str:
    stem, dot, _ext = key.rpartition(".")
    return stem if dot and stem else key


def _name_pattern(name: str, *, extension: bool) -> re.Pattern[str]:
    """Case-insensitive pattern for ``name`` with Latin-word boundaries where Latin touches Latin."""
    left = rf"(?<![{_JOINERS}])" if is_ascii_word(name[0]) else ""
    if extension:
        right = r"(?![A-Za-z0-9_]|\.[A-Za-z0-9])"
    else:
        # "attendance.md.bak" and "attendance-old" are other names, not this base name.
        right = r"(?![A-Za-z0-9_\-]|\.[A-Za-z0-9])" if is_ascii_word(name[-1]) else ""
    return _compiled(left + re.escape(name) + right)


_PATTERN_CACHE: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    compiled = _PATTERN_CACHE.get(pattern)
    if compiled is None:
        if len(_PATTERN_CACHE) > 512:
            _PATTERN_CACHE.clear()
        compiled = _PATTERN_CACHE[pattern] = re.compile(pattern, re.IGNORECASE)
    return compiled


def _is_name_char(ch: str) -> bool:
    # ・ joins the words of a Japanese file name (「規程・様式.md」).
    return (
        (ch.isascii() and (ch.isalnum() or ch in "_-."))
        or is_kanji(ch)
        or is_katakana(ch)
        or is_hiragana(ch)
        or ch == MIDDLE_DOT
    )


def _file_name_before(text: str, dot: int, end: int) -> tuple[int, str] | None:
    """The file name whose extension is ``text[dot:end]``, as ``(start, name)``.

    Japanese prose puts no space between a file name and the words around it,
    so the name is read backwards from the extension and trimmed: after the
    last hiragana (particles such as は, の, に), and, when it ends in Latin
    letters, to its Latin part (``資料company_policy.md`` → ``company_policy.md``).
    Returns ``None`` when no name is left (``これは.mdファイル``).
    """
    start = dot
    while start > 0 and _is_name_char(text[start - 1]):
        start -= 1
    stem = text[start:dot]
    if stem and is_ascii_word(stem[-1]):
        cut = len(stem)
        while cut > 0 and stem[cut - 1].isascii() and _is_name_char(stem[cut - 1]):
            cut -= 1
        start += cut
    else:
        for i in range(len(stem) - 1, -1, -1):
            if is_hiragana(stem[i]):
                start += i + 1
                break
        stripped = True
        while stripped:
            stripped = False
            for word in _LEADING_WORDS:
                if text.startswith(word, start) and start + len(word) < dot:
                    start += len(word)
                    stripped = True
    while start < dot and text[start] in ".-":
        start += 1
    if start >= dot:
        return None
    return start, text[start:end]
