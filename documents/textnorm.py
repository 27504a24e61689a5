"""Getting clean text out of raw input: decoding, HTML, newlines and whitespace. No Django.

Two concerns live here because parsing needs them and they are text-only:

* ``decode_text`` turns the bytes of a text file into ``str``. Japanese files
  in the wild come as UTF-8 (with or without BOM), CP932 (Windows "Shift_JIS")
  or EUC-JP, sometimes ISO-2022-JP or UTF-16 with a BOM. Legacy encodings
  cannot be told apart by validity alone (EUC-JP bytes are often valid CP932),
  so when both decode we score how Japanese each result looks and use
  charset-normalizer only when the scores are too close to call.
* ``html_visible_text`` extracts what a browser would show, with the offsets
  of the h1–h6 headings in that text.
"""

from __future__ import annotations

import codecs
import re

# Codecs tried for legacy Japanese text, in order. CP932 is a superset of
# Shift_JIS that also has the NEC/IBM extensions (①, Ⅲ, ㈱) Windows users type.
# euc_jis_2004 covers the same extras for EUC files that euc_jp rejects.
_SJIS_FAMILY = ("cp932", "shift_jis_2004")
_EUC_FAMILY = ("euc_jp", "euc_jis_2004")

# Declared charsets (HTML <meta>) that mean one of the families above.
_DECLARED_ALIASES = {
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "ms_kanji": "cp932",
    "windows-31j": "cp932",
    "cp932": "cp932",
    "euc-jp": "euc_jp",
    "euc_jp": "euc_jp",
    "x-euc-jp": "euc_jp",
}

# Scores closer than this are a tie, decided by charset-normalizer.
_TIE_MARGIN = 0.05

_ISO2022_ESCAPES = (b"\x1b$B", b"\x1b$@", b"\x1b(J", b"\x1b(I")


def decode_text(data: bytes, *, declared: str | None = None) -> tuple[str, str] | None:
    """Decode ``data`` as text; return ``(text, codec_name)`` or ``None`` if nothing fits.

    Order: a BOM decides (UTF-8, UTF-16); then strict UTF-8 (pure ASCII is
    UTF-8); then ISO-2022-JP when its escape sequences are present; then a
    ``declared`` charset (e.g. from an HTML ``<meta>``); then the CP932 and
    EUC-JP families, each strictly. A UTF-8 BOM followed by invalid UTF-8 is
    undecodable rather than guessed at. The returned text still contains
    whatever newlines the file had and no BOM.
    """
    if data.startswith(codecs.BOM_UTF8):
        return _strict(data, "utf-8-sig", "utf-8-sig")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _strict(data, "utf-16", "utf-16")
    result = _strict(data, "utf-8", "utf-8")
    if result is not None:
        if any(esc in data for esc in _ISO2022_ESCAPES):
            return _strict(data, "iso2022_jp_ext", "iso-2022-jp") or result
        return result
    if declared:
        codec = _DECLARED_ALIASES.get(declared.strip().lower())
        if codec is None:
            try:
                codec = codecs.lookup(declared.strip()).name
            except LookupError:
                codec = None
        if codec is not None:
            family = _SJIS_FAMILY if codec == "cp932" else _EUC_FAMILY if codec == "euc_jp" else (codec,)
            for name in family:
                result = _strict(data, name, name)
                if result is not None:
                    return result

    sjis = _first_strict(data, _SJIS_FAMILY)
    euc = _first_strict(data, _EUC_FAMILY)
    if sjis is None or euc is None:
        return sjis or euc
    sjis_score, euc_score = japanese_score(sjis[0]), japanese_score(euc[0])
    if abs(sjis_score - euc_score) >= _TIE_MARGIN:
        return sjis if sjis_score > euc_score else euc
    return euc if _charset_normalizer_prefers_euc(data) else sjis


def _strict(data: bytes, codec: str, label: str) -> tuple[str, str] | None:
    try:
        return data.decode(codec), label
    except (UnicodeDecodeError, LookupError):
        return None


def _first_strict(data: bytes, family: tuple[str, ...]) -> tuple[str, str] | None:
    for name in family:
        result = _strict(data, name, name)
        if result is not None:
            return result
    return None


def _charset_normalizer_prefers_euc(data: bytes) -> bool:
    # Imported lazily: it is only needed for the rare ambiguous file.
    from charset_normalizer import from_bytes

    best = from_bytes(data, cp_isolation=["cp932", "euc_jp"]).best()
    return best is not None and best.encoding == "euc_jp"


def japanese_score(text: str) -> float:
    """How much ``text`` looks like ordinary Japanese or ASCII prose, per character.

    Hiragana weighs most: real Japanese sentences are full of it, while a
    wrongly decoded legacy file turns into runs of half-width katakana,
    rare kanji and private-use characters. Range roughly -3..2; only the
    comparison between two decodings of the same bytes means anything.
    """
    if not text:
        return 0.0
    total = 0.0
    for ch in text:
        code = ord(ch)
        if 0x3041 <= code <= 0x309F:  # hiragana
            total += 2.0
        elif code < 0x80:
            total += 1.0 if ch.isprintable() or ch in "\t\n\r" else -3.0
        elif 0x30A0 <= code <= 0x30FF or 0x4E00 <= code <= 0x9FFF or 0x3000 <= code <= 0x303F:
            total += 1.0  # katakana, common kanji, Japanese punctuation
        elif 0xFF01 <= code <= 0xFF5E or 0x2460 <= code <= 0x24FF:
            total += 1.0  # full-width ASCII forms, circled numbers
        elif 0xFF61 <= code <= 0xFF9F:
            total += 0.3  # half-width katakana: legitimate but also typical of mis-decoding
        elif 0xE000 <= code <= 0xF8FF or 0x80 <= code <= 0x9F:
            total -= 3.0  # private use, C1 controls
    return total / len(text)


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF; nothing else changes."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


_WS_RUN = re.compile(r"\s+")


def single_line(text: str) -> str:
    """Collapse all whitespace (including newlines and U+3000) into single spaces; strip."""
    return _WS_RUN.sub(" ", text).strip()


# --- visible text of HTML ------------------------------------------------------------------

# Elements whose content a reader never sees as text.
_HTML_DROP = frozenset(
    {"script", "style", "noscript", "template", "head", "title", "iframe", "object", "embed", "svg", "math", "canvas"}
)
_HTML_BLOCK = frozenset(
    (
        "address article aside blockquote body caption center dd details dialog div dl dt fieldset "
        "figcaption figure footer form header hgroup hr html legend li main menu nav ol p pre section "
        "summary table tbody tfoot thead tr ul"
    ).split()
)
_HTML_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# HTML collapses ASCII whitespace; U+3000 is a real character in Japanese text and stays.
_HTML_SPACE = re.compile(r"[ \t\n\r\f\xa0]+")
_CJK = "\u3000-\u30ff\u3400-\u9fff\uff00-\uffef"
# A source line break between two Japanese characters is layout, not a word gap.
_HTML_CJK_BREAK = re.compile(rf"(?<=[{_CJK}])[ \t\r\f]*\n[ \t\n\r\f]*(?=[{_CJK}])")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


class _TextBuilder:
    """Accumulates visible text: block boundaries become single newlines, inline whitespace one space."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.at_line_start = True
        self.pending_break = False
        self.pending_space = False

    def _append(self, s: str) -> None:
        self.parts.append(s)
        self.length += len(s)

    def block(self) -> None:
        if self.length and not self.at_line_start:
            self.pending_break = True
        self.pending_space = False

    def flush(self) -> None:
        if self.pending_break:
            self._append("\n")
            self.pending_break = False
            self.at_line_start = True
            self.pending_space = False

    def line_break(self) -> None:
        """<br>: always a new line, at most one blank line in a row."""
        if not self.length:
            return
        if self.pending_break:
            self.flush()
            return
        if not "".join(self.parts[-2:]).endswith("\n\n"):
            self._append("\n")
        self.at_line_start = True
        self.pending_space = False

    def text(self, s: str, *, pre: bool = False) -> None:
        if pre:
            if s:
                self.flush()
                self._append(s)
                self.at_line_start = s.endswith("\n")
                self.pending_space = False
            return
        collapsed = _HTML_SPACE.sub(" ", _HTML_CJK_BREAK.sub("", s))
        core = collapsed.strip(" ")
        if not core:
            if collapsed and not self.at_line_start:
                self.pending_space = True
            return
        self.flush()
        if (self.pending_space or collapsed.startswith(" ")) and not self.at_line_start:
            self._append(" ")
        self._append(core)
        self.at_line_start = False
        self.pending_space = collapsed.endswith(" ")

    def raw(self, s: str) -> None:
        self.flush()
        self._append(s)
        self.at_line_start = False
        self.pending_space = False


def html_visible_text(markup: str) -> tuple[str, list[tuple[int, str, int]]]:
    """Visible text of an HTML page, block elements on their own lines, and its h1–h6 headings.

    Headings come back as ``(level, title, start)`` with ``start`` an offset into the text.

    Scripts, styles, ``<head>`` and hidden elements are dropped; a table is the pipe table it stands for, as
    in Markdown (documents.markdown_html.pipe_table). Walks the tree iteratively: deep markup cannot exhaust the stack.
    """
    from bs4 import BeautifulSoup
    from bs4.element import NavigableString, PreformattedString, Tag

    from documents.markdown_html import pipe_table  # it imports this module

    soup = BeautifulSoup(markup, "lxml")
    out = _TextBuilder()
    headings: list[tuple[int, str, int]] = []
    pre_depth = 0
    # (node, None) enters a node; (tag, (start, part_index)) leaves a tag.
    stack: list[tuple[object, tuple[int, int] | None]] = [(soup, None)]
    while stack:
        node, exit_info = stack.pop()
        if isinstance(node, NavigableString):
            if not isinstance(node, PreformattedString):  # comments, doctype, CDATA
                out.text(str(node), pre=pre_depth > 0)
            continue
        if not isinstance(node, Tag):
            continue
        name = (node.name or "").lower()
        if exit_info is not None:
            if name == "pre":
                pre_depth -= 1
            if name in _HTML_HEADINGS:
                start, part_index = exit_info
                title = single_line("".join(out.parts[part_index:]))
                if title:
                    headings.append((int(name[1]), title, start))
            if name in _HTML_BLOCK or name in _HTML_HEADINGS:
                out.block()
            continue
        if name in _HTML_DROP or node.has_attr("hidden") or _HIDDEN_STYLE.search(str(node.get("style", ""))):
            continue
        if name == "br":
            out.line_break()
            continue
        if name == "table":  # its own lines, each row whole (merged cells repeated, <br> within the row)
            out.block()
            out.raw(pipe_table(node))
            out.block()
            continue
        if name in ("td", "th") and not out.at_line_start and not out.pending_break:
            out.raw(" | ")
        if name in _HTML_BLOCK or name in _HTML_HEADINGS:
            out.block()
        if name == "pre":
            pre_depth += 1
        # A heading starts where its first character will go: after the pending line break, if any.
        stack.append((node, (out.length + (1 if out.pending_break else 0), len(out.parts))))
        stack.extend((child, None) for child in reversed(node.contents))
    return "".join(out.parts).rstrip(), headings
