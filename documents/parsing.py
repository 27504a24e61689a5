"""Turning an uploaded file into text plus headings; refusing bad files with a clear reason.

Supported: Markdown, plain text, HTML, PDF (text layer only) and DOCX. The
type is judged by the content as well as by the extension, so a renamed ZIP
or a scanned PDF is refused with a message the uploader can act on rather
than indexed as garbage.

``ParsedDocument.text`` is the text users see and the text that chunk and
citation offsets point into. It is never NFKC-normalised; the keyword index
folds its own copy (``documents.segmentation``).

Pure module: no Django imports, so it is usable from scripts and tests without
settings. ``ParseError.user_message`` is Japanese text meant for the uploader.

Compressed containers are checked before their parser opens them (see
``documents.inflation``), and the extracted text is capped (``max_chars``), so a
small upload can neither exhaust memory nor become tens of thousands of chunks.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING

from documents.frontmatter import markdown_page
from documents.inflation import LimitExceededError, bounded_zip_copy, check_pdf_streams, check_xml_text, pdf_limits
from documents.textnorm import (
    decode_text,
    html_visible_text,
    normalize_newlines,
    single_line,
)

if TYPE_CHECKING:
    from docx.table import Table
    from docx.text.paragraph import Paragraph
    from markdown_it.token import Token

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "Heading",
    "ParseError",
    "ParsedDocument",
    "parse_file",
]

SUPPORTED_EXTENSIONS = (".md", ".markdown", ".txt", ".html", ".htm", ".pdf", ".docx")

_KIND_BY_EXTENSION = {
    ".md": "md",
    ".markdown": "md",
    ".txt": "txt",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".docx": "docx",
}

# Leading bytes of binary formats that must never be read as text.
_BINARY_MAGIC = {
    b"%PDF-": "PDF",
    b"PK\x03\x04": "ZIP",
    b"\xd0\xcf\x11\xe0": "Office (OLE)",
    b"\x89PNG": "PNG",
    b"\xff\xd8\xff": "JPEG",
    b"GIF8": "GIF",
    b"\x1f\x8b": "gzip",
    b"Rar!": "RAR",
    b"7z\xbc\xaf": "7z",
}


class ParseError(Exception):
    """A file that cannot become a document.

    ``code`` is one of: empty, unsupported_type, too_large, no_text_layer,
    corrupt_pdf, corrupt_docx, undecodable. ``too_large`` covers the upload
    itself, what it inflates to, and the text extracted from it.
    ``user_message`` says, in Japanese, what is wrong and (where possible) what
    to do about it.
    """

    def __init__(self, code: str, user_message: str) -> None:
        super().__init__(f"{code}: {user_message}")
        self.code = code
        self.user_message = user_message


def _empty() -> ParseError:
    return ParseError("empty", "ファイルが空です")


def _unsupported(detail: str = "") -> ParseError:
    message = "対応していない形式です（.md .txt .html .pdf .docx）"
    return ParseError("unsupported_type", f"{detail}{message}" if detail else message)


_SPLIT_ADVICE = "ファイルを分割してアップロードしてください"


def _over_limit(exc: LimitExceededError) -> ParseError:
    """The uploader's wording of a limit in ``documents.inflation`` (or the text caps here)."""
    if exc.what == "bytes":
        message = f"展開後のサイズが大きすぎるため、このファイルは受け付けられません（上限 {_format_mb(exc.limit)} MB）"
    elif exc.what == "ratio":
        message = f"圧縮率が異常に高いため、このファイルは受け付けられません（展開後のサイズは圧縮時の {exc.limit} 倍まで）"
    elif exc.what == "members":
        message = f"ファイル内の部品が多すぎるため、このファイルは受け付けられません（上限 {exc.limit:,} 個）"
    elif exc.what == "pages":
        message = f"ページ数が上限（{exc.limit:,} ページ）を超えています。{_SPLIT_ADVICE}"
    else:
        message = f"本文の文字数が上限（{exc.limit:,} 文字）を超えています。{_SPLIT_ADVICE}"
    return ParseError("too_large", message)


@dataclass
class Heading:
    """A heading; its section starts at character ``start`` of the text (the heading line included)."""

    level: int
    title: str
    start: int


@dataclass
class ParsedDocument:
    """Extracted text, its headings in text order, the kind (md/txt/html/pdf/docx) and the codec used."""

    text: str
    headings: list[Heading] = field(default_factory=list)
    kind: str = "txt"
    encoding: str = ""
    # The title the file declares (Markdown front matter), or "".
    title: str = ""


def parse_file(
    filename: str, data: bytes, *, max_bytes: int | None = None, max_chars: int | None = None
) -> ParsedDocument:
    """Parse an uploaded file; raise ``ParseError`` for anything that cannot be indexed.

    Checks, in order: size (``max_bytes``), extension, emptiness, then the
    content against the extension (a ``.pdf`` must start with ``%PDF``, a
    ``.docx`` must be a ZIP with ``word/document.xml``, a text file must not be
    binary). A file whose extracted text is only whitespace is ``empty``; a PDF
    without any extractable text is ``no_text_layer``.

    A .docx or PDF that would inflate past the limits of ``documents.inflation``,
    a PDF with more than ``MAX_PDF_PAGES`` pages, and text longer than
    ``max_chars`` characters are ``too_large``. The .docx and PDF parsers stop as
    soon as the text passes ``max_chars``, before doing the rest of their work.
    """
    if max_bytes is not None and len(data) > max_bytes:
        raise ParseError("too_large", f"ファイルサイズが上限（{_format_mb(max_bytes)} MB）を超えています")
    extension = PurePath(filename).suffix.lower()
    kind = _KIND_BY_EXTENSION.get(extension)
    if kind is None:
        raise _unsupported()
    if not data.strip():
        raise _empty()

    if kind == "pdf":
        doc = _parse_pdf(data, max_chars=max_chars)
    elif kind == "docx":
        doc = _parse_docx(data, max_chars=max_chars)
    else:
        doc = _parse_text_kind(kind, data)
    if not doc.text.strip():
        raise ParseError("no_text_layer", _NO_TEXT_LAYER) if kind == "pdf" else _empty()
    if max_chars is not None and len(doc.text) > max_chars:
        raise _over_limit(LimitExceededError("chars", max_chars))
    return doc


def _format_mb(max_bytes: int) -> str:
    mb = max_bytes / (1024 * 1024)
    return str(int(mb)) if mb == int(mb) else f"{mb:.1f}"


def _sniff_binary(data: bytes) -> str | None:
    """The name of the binary format ``data`` starts with, if any."""
    head = data.lstrip()[:8]
    for magic, name in _BINARY_MAGIC.items():
        if head.startswith(magic):
            return name
    return None


# --- text kinds: md, txt, html -------------------------------------------------------------

_HTML_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_\-]+)""", re.IGNORECASE)


def _parse_text_kind(kind: str, data: bytes) -> ParsedDocument:
    is_utf16 = data.startswith((b"\xff\xfe", b"\xfe\xff"))
    if not is_utf16 and (b"\x00" in data or _sniff_binary(data)):
        raise _unsupported("テキストではなくバイナリファイルのようです。")
    declared = None
    if kind == "html":
        match = _HTML_CHARSET.search(data[:4096])
        declared = match.group(1).decode("ascii") if match else None
    decoded = decode_text(data, declared=declared)
    if decoded is None:
        raise ParseError("undecodable", "文字コードを判別できません（UTF-8 / Shift_JIS / EUC-JP で保存してください）")
    raw, encoding = decoded
    raw = normalize_newlines(raw)
    if _control_ratio(raw) > 0.01:
        raise _unsupported("テキストではなくバイナリファイルのようです。")

    title = ""
    if kind == "html":
        text, found = html_visible_text(raw)
        headings = [Heading(level=level, title=title, start=start) for level, title, start in found]
    elif kind == "md":
        page = markdown_page(raw)  # front matter and shortcodes are not the page's text
        text, headings, title = page.text, _markdown_headings(page.text), page.title
    else:
        text, headings = raw, _plain_text_headings(raw)
    return ParsedDocument(text=text, headings=headings, kind=kind, encoding=encoding, title=title)


_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")


def _control_ratio(text: str) -> float:
    """Share of C0 control characters other than tab, newlines, form feed and ESC (binary-ness)."""
    if not text:
        return 0.0
    return len(_CONTROL_CHARS.findall(text)) / len(text)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    return starts


# An ATX opener followed by an ideographic space: Japanese IMEs produce it, and
# CommonMark does not count it as the required space. Replaced before parsing
# by an ASCII space of the same length, so line numbers stay exact.
_ATX_IDEOGRAPHIC_SPACE = re.compile(r"^( {0,3}#{1,6})\u3000", re.MULTILINE)


def _markdown_headings(text: str) -> list[Heading]:
    """Top-level ATX and setext headings as CommonMark sees them (so never inside code fences).

    A heading's section starts at the start of its line.
    """
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(_ATX_IDEOGRAPHIC_SPACE.sub(r"\1 ", text))
    starts = _line_starts(text)
    headings: list[Heading] = []
    for i, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or token.map is None:
            continue
        inline = tokens[i + 1]
        title = single_line(_inline_plain_text(inline))
        if title:
            headings.append(Heading(level=int(token.tag[1]), title=title, start=starts[token.map[0]]))
    return headings


def _inline_plain_text(inline: Token) -> str:
    children = inline.children or []
    if not children:
        return inline.content
    parts = []
    for child in children:
        if child.type in ("text", "code_inline", "html_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return "".join(parts)


# Chapter/section lines of Japanese regulations in plain text: 「第3章　休暇」「第2節 申請」.
_JP_NUMERAL = "0-9０-９一二三四五六七八九十百"
# The number must be followed by a space or the end of the line: 「第3章を参照」 is a sentence.
_TXT_HEADING = re.compile(rf"^[ \u3000]*第[{_JP_NUMERAL}]+([章節])(?:[ \u3000]+\S.{{0,40}})?[ \u3000]*$", re.MULTILINE)


def _plain_text_headings(text: str) -> list[Heading]:
    """Plain text has no markup; only 「第N章」 (level 1) and 「第N節」 (level 2) lines count as headings."""
    return [
        Heading(level=1 if m.group(1) == "章" else 2, title=single_line(m.group(0)), start=m.start())
        for m in _TXT_HEADING.finditer(text)
    ]


# --- PDF -------------------------------------------------------------------------------------

_NO_TEXT_LAYER = "PDFに文字情報がありません（スキャン画像のPDFは読み込めません）"
_CORRUPT_PDF = "PDFファイルが壊れているため読み込めません"
# Characters pypdf can emit that are never text: NUL and the other C0 controls except tab/newline.
_PDF_JUNK = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# Each page costs a text extraction however little it holds; 2,000 pages is a long manual.
MAX_PDF_PAGES = 2000


def _parse_pdf(data: bytes, *, max_chars: int | None) -> ParsedDocument:
    """Page texts joined by a blank line; one level-1 heading 「p. N」 per page that has text.

    Before any page is extracted: the page count and what the streams inflate
    to (``check_pdf_streams``); pypdf's own limits are tightened for the whole parse.
    """
    if data.find(b"%PDF-", 0, 1024) < 0:
        other = _sniff_binary(data)
        if other is not None:
            raise _unsupported(f"拡張子は .pdf ですが中身は {other} 形式です。")
        raise ParseError("corrupt_pdf", _CORRUPT_PDF)

    from pypdf import PdfReader

    parts: list[str] = []
    headings: list[Heading] = []
    offset = 0
    try:
        with pdf_limits():
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                raise ParseError("corrupt_pdf", "パスワードで保護されたPDFは読み込めません")
            if len(reader.pages) > MAX_PDF_PAGES:
                raise LimitExceededError("pages", MAX_PDF_PAGES)
            check_pdf_streams(reader)
            for number, pdf_page in enumerate(reader.pages, start=1):
                page = _PDF_JUNK.sub("", normalize_newlines(pdf_page.extract_text() or "")).strip()
                if not page:
                    continue
                if parts:
                    offset += 2
                headings.append(Heading(level=1, title=f"p. {number}", start=offset))
                parts.append(page)
                offset += len(page)
                if max_chars is not None and offset > max_chars:
                    raise LimitExceededError("chars", max_chars)
    except ParseError:
        raise
    except LimitExceededError as exc:
        raise _over_limit(exc) from exc
    except Exception as exc:  # pypdf raises many kinds (PdfReadError, KeyError, ValueError...) on damage
        raise ParseError("corrupt_pdf", _CORRUPT_PDF) from exc

    text = "\n\n".join(parts)
    if not text.strip():
        raise ParseError("no_text_layer", _NO_TEXT_LAYER)
    return ParsedDocument(text=text, headings=headings, kind="pdf")


# --- DOCX ------------------------------------------------------------------------------------

_CORRUPT_DOCX = "Wordファイルが壊れているため読み込めません"
_DOCX_BODY = "word/document.xml"
_HEADING_STYLE = re.compile(r"^(?:heading|見出し)\s*([1-9])$", re.IGNORECASE)
_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _parse_docx(data: bytes, *, max_chars: int | None) -> ParsedDocument:
    """Paragraphs and table rows in body order, one per line; headings from heading/Title styles.

    Table rows become one line with cells joined by " | " (merged cells once).
    Runs of empty paragraphs collapse to one blank line. Headers, footers,
    text boxes and content controls are not extracted.

    python-docx only ever sees ``bounded_zip_copy(data)``, and only once the
    body's text (counted as a stream) is within ``max_chars``.
    """
    if not data.startswith(b"PK\x03\x04"):
        if data.startswith(b"\xd0\xcf\x11\xe0"):
            raise _unsupported("古い形式のWord文書（.doc）かパスワード付きのファイルです。.docx で保存し直してください。")
        other = _sniff_binary(data)
        if other is not None:
            raise _unsupported(f"拡張子は .docx ですが中身は {other} 形式です。")
        raise ParseError("corrupt_docx", _CORRUPT_DOCX)

    import docx
    from docx.table import Table

    try:
        package = bounded_zip_copy(data)
        with zipfile.ZipFile(io.BytesIO(package)) as archive, archive.open(_DOCX_BODY) as body:
            if max_chars is not None:
                check_xml_text(body, tag=f"{{{_W_NS}}}t", max_chars=max_chars)
    except LimitExceededError as exc:
        raise _over_limit(exc) from exc
    except Exception as exc:  # zipfile, zlib and lxml raise assorted errors on damage (and on encrypted members)
        raise ParseError("corrupt_docx", _CORRUPT_DOCX) from exc

    try:
        document = docx.Document(io.BytesIO(package))
        blocks = list(document.iter_inner_content())
        lines: list[tuple[str, int | None]] = []
        for block in blocks:
            if isinstance(block, Table):
                lines.extend((row, None) for row in _table_lines(block))
            else:
                lines.append((normalize_newlines(block.text), _docx_heading_level(block)))
    except Exception as exc:  # python-docx/lxml raise assorted errors on damaged parts
        raise ParseError("corrupt_docx", _CORRUPT_DOCX) from exc

    parts: list[str] = []
    headings: list[Heading] = []
    offset = 0
    for line, level in lines:
        if not line.strip() and (not parts or not parts[-1].strip()):
            continue  # no leading blank lines, and at most one blank line in a row
        if parts:
            offset += 1
        title = single_line(line)
        if level is not None and title:
            headings.append(Heading(level=level, title=title, start=offset))
        parts.append(line)
        offset += len(line)
    return ParsedDocument(text="\n".join(parts), headings=headings, kind="docx")


def _docx_heading_level(paragraph: Paragraph) -> int | None:
    """0 for Title, N for "Heading N"/"見出し N" (or a style based on one), else the outline level."""
    style = paragraph.style
    depth = 0
    while style is not None and depth < 5:
        name = (style.name or "").strip()
        if name.lower() == "title" or name == "表題":
            return 0
        match = _HEADING_STYLE.match(name)
        if match:
            return int(match.group(1))
        style = style.base_style
        depth += 1
    # Direct formatting: <w:outlineLvl w:val="0"/> makes a paragraph a level-1 heading.
    found = paragraph._p.find(f"{{{_W_NS}}}pPr/{{{_W_NS}}}outlineLvl")
    if found is not None:
        value = found.get(f"{{{_W_NS}}}val", "")
        if value.isdigit() and int(value) < 9:
            return int(value) + 1
    return None


def _table_lines(table: Table) -> list[str]:
    # Merged cells come back once per grid position; the same <w:tc> element
    # means the same cell, so keep each one only once (across rows too, for vertical merges).
    # ``keep`` holds the elements so their ids stay unique while we compare.
    keep: list[object] = []
    seen: set[int] = set()
    lines = []
    for row in table.rows:
        cells = []
        for cell in row.cells:
            if id(cell._tc) in seen:
                continue
            keep.append(cell._tc)
            seen.add(id(cell._tc))
            cells.append(single_line(cell.text))
        line = " | ".join(c for c in cells if c)
        if line:
            lines.append(line)
    return lines
