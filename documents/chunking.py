"""Cutting a parsed document into chunks that know their exact place in the text.

Sections come from the document's headings (a heading's section runs to the
next heading of any level); each section that is longer than ``max_chars`` is
split at sentence ends, with a little overlap of whole sentences so that a
fact cut in two still appears whole in one chunk.

Invariant, for every chunk of every document: ``text[span.start:span.end] == span.text``.
Chunks never start or end with whitespace, never cross a section boundary,
and the result depends only on the input (deterministic).

Pure module: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from documents.parsing import Heading, ParsedDocument
from documents.textnorm import single_line
from ragportal.text import split_sentences, trim_span

HEADING_SEPARATOR = " > "
# Chunk.heading_path is a CharField(max_length=500).
MAX_HEADING_PATH = 500
_MAX_TITLE = 120

# Boundary strengths. A chunk prefers to end at a sentence end; a line break
# is a weaker place to cut (PDF text wraps lines mid-sentence); a forced cut
# inside an over-long sentence is the weakest and never starts an overlap.
_FORCED, _LINE, _SENTENCE = 0, 1, 2

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\u3000]*\n")
# Where to cut an over-long sentence: after a comma or before whitespace.
_SOFT_CUT = re.compile(r"[、，,]|\s")


@dataclass
class ChunkSpan:
    """One chunk: ``text == document_text[start:end]``; ``heading_path`` like 「第3章 > 3.2 申請」."""

    ordinal: int
    heading_path: str
    start: int
    end: int
    text: str


@dataclass
class _Unit:
    start: int
    end: int
    strength: int  # of the boundary at ``end``
    starts_clean: bool  # begins at a sentence or line start (may open an overlap)


def chunk_document(doc: ParsedDocument, *, max_chars: int = 400, overlap: int = 60) -> list[ChunkSpan]:
    """Split ``doc`` into chunks of at most ``max_chars`` characters, heading-aware.

    Text before the first heading forms a section with heading path "". A
    section that holds nothing but its own heading line is skipped, unless the
    document has nothing else. Long sections are cut at sentence ends (then
    line breaks); a sentence longer than ``max_chars`` is cut hard. Each chunk
    after the first of a section starts with up to ``overlap`` characters of
    whole sentences from the end of the previous chunk (one sentence slightly
    longer is accepted rather than none, up to twice ``overlap``).
    Ordinals count from 0 in text order.
    """
    if max_chars < 1:
        raise ValueError("max_chars must be positive")
    if overlap < 0 or overlap >= max_chars:
        raise ValueError("overlap must be in [0, max_chars)")
    text = doc.text
    sections = _sections(text, doc.headings)
    substantive = [s for s in sections if not s[3]]
    chosen = substantive or sections

    spans: list[ChunkSpan] = []
    for start, end, path, _heading_only in chosen:
        for chunk_start, chunk_end in _split_section(text, start, end, max_chars, overlap):
            spans.append(ChunkSpan(len(spans), path, chunk_start, chunk_end, text[chunk_start:chunk_end]))
    return spans


def embedding_text(span: ChunkSpan, title: str = "") -> str:
    """What gets embedded for a chunk: "title > heading path" on the first line, then the chunk text.

    The title is left out when the heading path already starts with it
    (Markdown files usually repeat the title as their ``#`` heading). The
    model's "passage: " prefix is not added here; the embedding function adds it.
    """
    header = embedding_header(span.heading_path, title)
    return f"{header}\n{span.text}" if header else span.text


def embedding_header(heading_path: str, title: str = "") -> str:
    """The first line of :func:`embedding_text`: "title > heading path" ("" when both are empty)."""
    title = single_line(title)
    if title and (heading_path == title or heading_path.startswith(title + HEADING_SEPARATOR)):
        title = ""
    return HEADING_SEPARATOR.join(part for part in (title, heading_path) if part)


def _sections(text: str, headings: list[Heading]) -> list[tuple[int, int, str, bool]]:
    """``(start, end, heading_path, heading_only)`` for each non-blank section, in order."""
    ordered = sorted(
        (h for h in headings if 0 <= h.start <= len(text)),
        key=lambda h: h.start,
    )
    sections: list[tuple[int, int, str, bool]] = []
    first = ordered[0].start if ordered else len(text)
    if text[:first].strip():
        sections.append((0, first, "", False))
    stack: list[Heading] = []
    for i, heading in enumerate(ordered):
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        end = ordered[i + 1].start if i + 1 < len(ordered) else len(text)
        body = text[heading.start : end]
        if not body.strip():
            continue
        sections.append((heading.start, end, _heading_path(stack), _is_heading_only(body, heading.title)))
    return sections


def _heading_path(stack: list[Heading]) -> str:
    titles = [single_line(h.title)[:_MAX_TITLE] for h in stack]
    path = HEADING_SEPARATOR.join(t for t in titles if t)
    return path if len(path) <= MAX_HEADING_PATH else path[: MAX_HEADING_PATH - 1] + "…"


def _is_heading_only(body: str, title: str) -> bool:
    """True when the section's text is just its heading line (e.g. "# 規程" right before "## 第1条")."""
    content = single_line(body.strip().lstrip("#").strip().rstrip("#"))
    return content == single_line(title)


def _split_section(text: str, start: int, end: int, max_chars: int, overlap: int) -> list[tuple[int, int]]:
    units = _units(text, start, end, max_chars)
    if not units:
        return []
    chunks: list[tuple[int, int]] = []
    i = 0
    while i < len(units):
        # Extend over as many units as fit.
        j = i
        while j + 1 < len(units) and _stripped_len(text, units[i].start, units[j + 1].end) <= max_chars:
            j += 1
        if j + 1 < len(units):
            j = _preferred_end(text, units, i, j, max_chars)
        bounds = trim_span(text, units[i].start, units[j].end)
        if bounds is not None:
            chunks.append(bounds)
        if j + 1 >= len(units):
            break
        i = _overlap_start(text, units, i, j, max_chars, overlap)
    return chunks


def _preferred_end(text: str, units: list[_Unit], i: int, j: int, max_chars: int) -> int:
    """Pull the end of a full chunk back to the strongest boundary that keeps it at least half full."""
    for wanted in (_SENTENCE, _LINE):
        for m in range(j, i - 1, -1):
            if units[m].strength >= wanted:
                if _stripped_len(text, units[i].start, units[m].end) >= max_chars // 2:
                    return m
                break
    return j


def _overlap_start(text: str, units: list[_Unit], i: int, j: int, max_chars: int, overlap: int) -> int:
    """Index of the unit the next chunk starts at, after a chunk covering units ``i..j``.

    The next chunk repeats the last whole sentences of this one, about
    ``overlap`` characters, as long as it still has room for new text.
    """
    following = j + 1
    if overlap <= 0:
        return following
    end = units[j].end
    best = following
    fallback = following
    for k in range(j, i, -1):
        if not units[k].starts_clean:
            continue
        repeated = _stripped_len(text, units[k].start, end)
        if repeated == 0:
            continue
        if _stripped_len(text, units[k].start, units[following].end) > max_chars:
            break  # no room left for the next unit's new text
        if repeated <= overlap:
            best = k
        else:
            if best == following and repeated <= 2 * overlap:
                fallback = k
            break
    return best if best != following else fallback


def _units(text: str, start: int, end: int, max_chars: int) -> list[_Unit]:
    """Sentence and line pieces of ``text[start:end]``, with over-long pieces cut to ``max_chars``."""
    cuts: dict[int, int] = {}
    segment = text[start:end]
    for match in re.finditer("\n", segment):
        cuts[start + match.end()] = _LINE
    for match in _PARAGRAPH_BREAK.finditer(segment):
        cuts[start + match.end()] = _SENTENCE
    # Sentence ends as ragportal.text finds them: closing quotes and a citation
    # stay with their sentence (「……です。」), a decimal point or "e.g." is no end.
    for sentence in split_sentences(segment):
        if sentence.terminated:
            cuts[start + sentence.end] = _SENTENCE
    cuts[end] = _SENTENCE
    units: list[_Unit] = []
    position = start
    for cut in sorted(cuts):
        if cut <= position:
            continue
        units.extend(_hard_split(text, position, cut, cuts[cut], max_chars))
        position = cut
    return units


def _hard_split(text: str, start: int, end: int, strength: int, max_chars: int) -> list[_Unit]:
    """One unit, or several forced pieces when the sentence is longer than ``max_chars``."""
    pieces: list[_Unit] = []
    position = start
    while True:
        bounds = trim_span(text, position, end)
        if bounds is None or bounds[1] - bounds[0] <= max_chars:
            pieces.append(_Unit(position, end, strength, starts_clean=position == start))
            return pieces
        content_start = bounds[0]
        limit = content_start + max_chars
        cut = limit
        # Prefer a comma or a space in the second half of the window.
        for match in _SOFT_CUT.finditer(text, content_start + max_chars // 2, limit):
            cut = match.end() if not text[match.start()].isspace() else match.start()
        if cut <= content_start:
            cut = limit
        pieces.append(_Unit(position, cut, _FORCED, starts_clean=position == start))
        position = cut


def _stripped_len(text: str, start: int, end: int) -> int:
    bounds = trim_span(text, start, end)
    return 0 if bounds is None else bounds[1] - bounds[0]
