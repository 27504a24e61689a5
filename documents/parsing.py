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

import bisect
import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING

from documents.frontmatter import heading_title, markdown_page
from documents.inflation import LimitExceededError, bounded_zip_copy, check_pdf_streams, check_xml_text, pdf_limits
from documents.markdown_html import markdown_without_html
from documents.textnorm import (
    decode_text,
    html_visible_text,
    normalize_newlines,
    single_line,
)
from ragportal.text import TERMINATORS

if TYPE_CHECKING:
    from docx.oxml.xmlchemy import BaseOxmlElement
    from docx.table import Table
    from docx.text.paragraph import Paragraph
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from pypdf import PageObject

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "Heading",
    "ParseError",
    "ParsedDocument",
    "check_upload",
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
        message = (
            f"圧縮率が異常に高いため、このファイルは受け付けられません（展開後のサイズは圧縮時の {exc.limit} 倍まで）"
        )
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
    # The title the file declares (Markdown front matter, a plain-text file's first line), or "".
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
    kind = check_upload(filename, data, max_bytes=max_bytes)
    if kind == "pdf":
        doc = _parse_pdf(data, max_chars=max_chars)
    elif kind == "docx":
        doc = _parse_docx(data, max_chars=max_chars)
    else:
        doc = _parse_text_kind(kind, data, max_chars=max_chars)
    if not doc.text.strip():
        raise ParseError("no_text_layer", _NO_TEXT_LAYER) if kind == "pdf" else _empty()
    if max_chars is not None and len(doc.text) > max_chars:
        raise _over_limit(LimitExceededError("chars", max_chars))
    doc.headings = _with_articles(doc.text, doc.headings)
    return doc


def check_upload(filename: str, data: bytes, *, max_bytes: int | None = None) -> str:
    """The first checks of ``parse_file``, which cost nothing whatever the file holds; returns the kind.

    Raises ``ParseError`` for a file over ``max_bytes`` (``too_large``), an
    unsupported extension and an empty file. A caller that parses later, in the
    background, runs these now so the uploader hears about them at once.
    """
    if max_bytes is not None and len(data) > max_bytes:
        raise ParseError("too_large", f"ファイルサイズが上限（{_format_mb(max_bytes)} MB）を超えています")
    kind = _KIND_BY_EXTENSION.get(PurePath(filename).suffix.lower())
    if kind is None:
        raise _unsupported()
    if not data.strip():
        raise _empty()
    return kind


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


def _parse_text_kind(kind: str, data: bytes, *, max_chars: int | None) -> ParsedDocument:
    """Decode a text file and find its headings; Markdown and plain text over ``max_chars`` are refused first.

    Their text is the decoded file itself, so the limit is judged before any
    heading is looked for (HTML's text is known only once its markup is parsed).
    """
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
    if kind != "html" and max_chars is not None and len(raw) > max_chars:
        raise _over_limit(LimitExceededError("chars", max_chars))

    title = ""
    if kind == "html":
        text, found = html_visible_text(raw)
        headings = [Heading(level=level, title=title, start=start) for level, title, start in found]
    elif kind == "md":
        page = markdown_page(raw)  # front matter and shortcodes are not the page's text
        text = markdown_without_html(page.text)  # a <table> is indexed as the pipe table it stands for
        if not text.strip() and page.title:
            # Front matter only: the page shows its title and nothing else (documents.body_text warns).
            text = f"# {single_line(page.title)}\n"
        headings, title = _markdown_headings(text), page.title
    else:
        text, headings, title = raw, _plain_text_headings(raw), _plain_text_title(raw)
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

    A heading's section starts at the start of its line. Only the block
    structure is parsed, and the inline markup of heading lines only: inline
    parsing of a whole document is where markdown-it spends super-linear time
    (3 MB of 「[」 took 31 s), and headings are all we need from it.
    """
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    md.core.ruler.disable("inline")
    env: dict = {}  # the link reference definitions, which heading links may use
    tokens = md.parse(_ATX_IDEOGRAPHIC_SPACE.sub(r"\1 ", text), env)
    starts = _line_starts(text)
    headings: list[Heading] = []
    for i, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or token.map is None:
            continue
        title = heading_title(single_line(_inline_plain_text(md, env, tokens[i + 1].content)))
        if title:
            headings.append(Heading(level=int(token.tag[1]), title=title, start=starts[token.map[0]]))
    return headings


# A heading is one line (two for setext); past this many characters its inline
# markup is not parsed (a title that long is not read for its markup either).
_MAX_INLINE_HEADING_CHARS = 1000


def _inline_plain_text(md: MarkdownIt, env: dict, content: str) -> str:
    """The plain text of a heading's inline markup (link targets and emphasis marks dropped, code kept)."""
    if len(content) > _MAX_INLINE_HEADING_CHARS:
        return content
    children: list[Token] = []
    md.inline.parse(content, md, env, children)
    if not children:
        return content
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


# A banner framed by decoration (「■■ お知らせ ■■」, 「=== 社内報 ===」) announces the kind of notice, not its title.
_DECORATION = "■□◆◇▼▽▶▷◀◁◎★☆●○▲△=＝*＊#＃~～〜_＿+＋─━-－"
_DECORATION_CLASS = "[" + re.escape(_DECORATION) + "]"
_BANNER = re.compile(rf"^{_DECORATION_CLASS}+[^\n]*?{_DECORATION_CLASS}+$|^(?:{_DECORATION_CLASS}|\s)+$")
_MAX_TITLE_LINE = 100


def _plain_text_title(text: str) -> str:
    """The title a plain-text file gives itself: its first line, or the line after a banner (「■■ お知らせ ■■」).

    "" when that line is long or ends a sentence (the file opens with its text).
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()][:2]
    titles = [line for line in lines if len(line) <= _MAX_TITLE_LINE and line[-1] not in TERMINATORS]
    if not lines or lines[0] not in titles:
        return ""
    title = titles[1] if _BANNER.match(lines[0]) and len(titles) == 2 else lines[0]
    return single_line(title.strip(_DECORATION + " \u3000"))


# An article of Japanese regulations (就業規則, 規程), however the file marks it up: 「第15条（年次有給休暇）」
# alone on its line or opening the article's text (「第1条（目的）この規程は…」, 「第15条　従業員は…」),
# bold in Markdown, or with its caption on the line before (「（年次有給休暇）」 then 「第15条　…」).
# Not a sentence citing one: 「第15条の規定により」, 「第15条第2項に」, 「第15条を参照」.
_ARTICLE = re.compile(
    r"^(?:[ \u3000]*[（(](?P<before>[^（）()\n]{1,40})[）)][ \u3000]*\n)?"
    rf"[ \u3000]*(?:\*\*)?(?P<number>第[{_JP_NUMERAL}]+条(?:の[{_JP_NUMERAL}]+)?)"
    r"(?:[ \u3000]*[（(](?P<caption>[^（）()\n]{1,40})[）)]|(?=[ \u3000*]|$))",
    re.MULTILINE,
)


def _with_articles(text: str, headings: list[Heading]) -> list[Heading]:
    """``headings`` and, one level below the heading before each, the articles of a regulation (:data:`_ARTICLE`).

    An article is what an employee's question is about (年次有給休暇, 慶弔休暇); as a heading
    it starts its own chunk and names it in the heading path and the citation. Where the
    file already makes the line a heading (「## 第1条」, a Word heading style), nothing is added.
    """
    found = list(_ARTICLE.finditer(text))
    if not found:
        return headings
    ordered = sorted(headings, key=lambda h: h.start)
    starts = [h.start for h in ordered]
    added: list[Heading] = []
    for m in found:
        i = bisect.bisect_right(starts, m.end())
        if i and starts[i - 1] >= m.start():
            continue  # the line is a heading already
        caption = m.group("caption") or m.group("before")
        title = single_line(f"{m.group('number')}（{caption}）" if caption else m.group("number"))
        added.append(Heading(level=min(6, ordered[i - 1].level + 1 if i else 1), title=title, start=m.start()))
    return sorted(ordered + added, key=lambda h: h.start)


# --- PDF -------------------------------------------------------------------------------------

_NO_TEXT_LAYER = "PDFに文字情報がありません（スキャン画像のPDFは読み込めません）"
_CORRUPT_PDF = "PDFファイルが壊れているため読み込めません"
# Characters pypdf can emit that are never text: NUL and the other C0 controls except tab/newline.
_PDF_JUNK = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# Each page costs a text extraction however little it holds; 2,000 pages is a long manual.
MAX_PDF_PAGES = 2000
# Text extraction runs pypdf's Python interpreter over every operator of a page's
# content stream: about 0.1-0.2 MB a second here, and 300 bytes of memory per
# operator. A page of dense text holds 5-50 KB; 2 MB is a drawing, or an attack
# (a million "(a) Tj" compress to 11 KB and cost 23 s and 311 MB).
MAX_PDF_PAGE_CONTENT_BYTES = 2 * 1024 * 1024


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
                _check_page_content(number, pdf_page)
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
    except MemoryError:
        raise  # not damage: the file needs more memory than this process may use
    except Exception as exc:  # pypdf raises many kinds (PdfReadError, KeyError, ValueError...) on damage
        raise ParseError("corrupt_pdf", _CORRUPT_PDF) from exc

    text = "\n\n".join(parts)
    if not text.strip():
        raise ParseError("no_text_layer", _NO_TEXT_LAYER)
    return ParsedDocument(text=text, headings=headings, kind="pdf")


def _check_page_content(number: int, page: PageObject) -> None:
    """Refuse page ``number`` before extraction when its content streams pass ``MAX_PDF_PAGE_CONTENT_BYTES``.

    The streams' sizes are known once they are decoded (``check_pdf_streams``
    has bounded that already); operators are parsed only by the extraction.
    """
    contents = page.get_contents()
    if contents is not None and len(contents.get_data()) > MAX_PDF_PAGE_CONTENT_BYTES:
        raise ParseError(
            "too_large",
            f"p. {number} の内容（描画命令）が多すぎるため、このPDFは読み込めません"
            f"（1ページ {_format_mb(MAX_PDF_PAGE_CONTENT_BYTES)} MB まで）。図を画像にするか、ページを分けて保存し直してください",
        )


# --- DOCX ------------------------------------------------------------------------------------

_CORRUPT_DOCX = "Wordファイルが壊れているため読み込めません"
_DOCX_BODY = "word/document.xml"
_HEADING_STYLE = re.compile(r"^(?:heading|見出し)\s*([1-9])$", re.IGNORECASE)
_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_VMERGE_CONTINUE = "continue"  # <w:vMerge/> without a value, or with "continue": the cell above goes on


def _require_zip_container(data: bytes) -> None:
    """Raise ParseError unless ``data`` starts as a .docx does (a ZIP), naming what it is when it can."""
    if not data.startswith(b"PK\x03\x04"):
        if data.startswith(b"\xd0\xcf\x11\xe0"):
            raise _unsupported(
                "古い形式のWord文書（.doc）かパスワード付きのファイルです。.docx で保存し直してください。"
            )
        other = _sniff_binary(data)
        if other is not None:
            raise _unsupported(f"拡張子は .docx ですが中身は {other} 形式です。")
        raise ParseError("corrupt_docx", _CORRUPT_DOCX)


def _parse_docx(data: bytes, *, max_chars: int | None) -> ParsedDocument:
    """Paragraphs and table rows in body order, one per line; headings from heading/Title styles.

    Table rows become one line with cells joined by " | " (merged cells once).
    Runs of empty paragraphs collapse to one blank line. Headers, footers,
    text boxes and content controls are not extracted.

    python-docx only ever sees ``bounded_zip_copy(data)``, and only once the
    body's text (counted as a stream) is within ``max_chars``.
    """
    _require_zip_container(data)

    import docx
    from docx.table import Table

    try:
        package = bounded_zip_copy(data)
        with zipfile.ZipFile(io.BytesIO(package)) as archive, archive.open(_DOCX_BODY) as body:
            if max_chars is not None:
                check_xml_text(body, tag=f"{{{_W_NS}}}t", max_chars=max_chars)
    except LimitExceededError as exc:
        raise _over_limit(exc) from exc
    except MemoryError:
        raise  # not damage: the file needs more memory than this process may use
    except Exception as exc:  # zipfile, zlib and lxml raise assorted errors on damage (and on encrypted members)
        raise ParseError("corrupt_docx", _CORRUPT_DOCX) from exc

    try:
        document = docx.Document(io.BytesIO(package))
        style_levels = _StyleLevels(document.styles.element)
        blocks = list(document.iter_inner_content())
        lines: list[tuple[str, int | None]] = []
        for block in blocks:
            if isinstance(block, Table):
                lines.extend((row, None) for row in _table_lines(block))
            else:
                lines.append((normalize_newlines(block.text), _docx_heading_level(block, style_levels)))
    except MemoryError:
        raise  # not damage: the file needs more memory than this process may use
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


class _StyleLevels:
    """The heading level each paragraph style gives, read from styles.xml in one pass.

    0 for Title/表題, N for "Heading N"/"見出し N", or what the style it is based
    on gives (at most five steps up); ``None`` otherwise. A paragraph without a
    style, or naming one that does not exist, has the default paragraph style,
    as in Word. Looked up once per style: python-docx searches styles.xml for a
    paragraph's style and again for each base style, so 12,000 paragraphs over
    5,000 styles took minutes.
    """

    def __init__(self, styles: BaseOxmlElement) -> None:
        w = f"{{{_W_NS}}}"
        self._names: dict[str, str] = {}
        self._based_on: dict[str, str] = {}
        self._default: str | None = None
        for style in styles.iterchildren(f"{w}style"):
            style_id = style.get(f"{w}styleId")
            if style_id is None or style.get(f"{w}type", "paragraph") != "paragraph" or style_id in self._names:
                continue
            name, based_on = style.find(f"{w}name"), style.find(f"{w}basedOn")
            self._names[style_id] = (name.get(f"{w}val") or "").strip() if name is not None else ""
            if based_on is not None and based_on.get(f"{w}val"):
                self._based_on[style_id] = based_on.get(f"{w}val")
            if self._default is None and style.get(f"{w}default") in ("1", "true", "on"):
                self._default = style_id
        self._levels: dict[str | None, int | None] = {}

    def level(self, style_id: str | None) -> int | None:
        if style_id not in self._names:
            style_id = self._default
        if style_id not in self._levels:
            self._levels[style_id] = self._resolve(style_id)
        return self._levels[style_id]

    def _resolve(self, style_id: str | None) -> int | None:
        for _ in range(5):
            if style_id is None or style_id not in self._names:
                return None
            name = self._names[style_id]
            if name.lower() == "title" or name == "表題":
                return 0
            match = _HEADING_STYLE.match(name)
            if match:
                return int(match.group(1))
            style_id = self._based_on.get(style_id)
        return None


def _docx_heading_level(paragraph: Paragraph, style_levels: _StyleLevels) -> int | None:
    """The level its style gives (see ``_StyleLevels``), else its outline level; ``None`` for body text."""
    level = style_levels.level(paragraph._p.style)
    if level is not None:
        return level
    # Direct formatting: <w:outlineLvl w:val="0"/> makes a paragraph a level-1 heading.
    found = paragraph._p.find(f"{{{_W_NS}}}pPr/{{{_W_NS}}}outlineLvl")
    if found is not None:
        value = found.get(f"{{{_W_NS}}}val", "")
        if value.isdigit() and int(value) < 9:
            return int(value) + 1
    return None


def _table_lines(table: Table) -> list[str]:
    """One line per table row: its cells' texts joined by " | ", each merged cell once.

    Read from the XML, not through python-docx's ``row.cells``: that walks up
    the rows for every vertically merged cell, row by row with a search of the
    table for each step, so a 1.6 KB file whose table has 950 rows merged with
    the row above took 78-115 s. A horizontal merge is one ``<w:tc>`` (its
    ``gridSpan``); a ``<w:tc>`` that continues a vertical merge is the cell above
    again, already read, and is skipped.
    """
    lines = []
    for tr in table._tbl.tr_lst:
        cells = [single_line("\n".join(p.text for p in tc.p_lst)) for tc in tr.tc_lst if tc.vMerge != _VMERGE_CONTINUE]
        line = " | ".join(c for c in cells if c)
        if line:
            lines.append(line)
    return lines
