"""Builders for test files: made at test time so no binary fixture lives in the repository."""

from __future__ import annotations

import io
import zipfile
import zlib

# Realistic policy text with the characters that break naive decoding:
# half-width katakana, circled numbers (CP932 NEC extension), the full-width
# tilde used in time ranges, and the long-vowel mark.
POLICY_TEXT = (
    "第1章 総則\n"
    "第1条（目的）この規程は、従業員の年次有給休暇の取扱いについて定める。\n"
    "第2条（付与日数）入社6ヶ月後に10日を付与する。ﾊﾟｰﾄﾀｲﾏｰは所定労働日数に応じて比例付与する。\n"
    "① 申請は3日前までに社内システム「勤怠くん」から行うこと。\n"
    "② 取得単位は1日または半日（9:00～13:00、14:00～18:00）とする。\n"
    "③ 繰越しは最大20日までとし、サーバー管理者が毎年4月に集計する。\n"
)

# Text that plain Shift_JIS and plain EUC-JP can both encode (no NEC extensions).
JIS_ONLY_TEXT = (
    "第2章 休暇の申請\n"
    "年次有給休暇を取得する場合は、原則として3日前までに上長へ申請してください。\n"
    "ﾊﾟｰﾄﾀｲﾏｰの方も同じ手続きです。ご不明な点は人事部（内線1234）までお問い合わせください。\n"
)

_CID_FONT = "HeiseiKakuGo-W5"


def make_pdf(pages: list[str]) -> bytes:
    """A PDF with a real text layer: one page per string, one drawn line per text line.

    Uses reportlab's built-in Japanese CID font, so no font file is needed.
    """
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(UnicodeCIDFont(_CID_FONT))
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, invariant=1)
    _, height = A4
    for page in pages:
        pdf.setFont(_CID_FONT, 10)
        y = height - 60
        for line in page.split("\n"):
            pdf.drawString(40, y, line)
            y -= 14
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def make_image_only_pdf() -> bytes:
    """A PDF whose only page holds a filled rectangle: what a scan looks like to a text extractor."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, invariant=1)
    pdf.rect(100, 100, 300, 400, fill=1)
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def make_docx(blocks: list[tuple[str, object]]) -> bytes:
    """A DOCX from ``(kind, content)`` blocks, in order.

    kinds: "title", "h1".."h9" (built-in Heading styles), "jh1".."jh9"
    (a custom style literally named 「見出し N」, as Japanese Word files may
    carry), "p" (Normal paragraph), "table" (content: list of rows of cell strings).
    """
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    document = docx.Document()
    for kind, content in blocks:
        if kind == "title":
            document.add_heading(str(content), 0)
        elif kind.startswith("jh"):
            name = f"見出し {kind[2:]}"
            if name not in [s.name for s in document.styles]:
                document.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
            document.add_paragraph(str(content), style=name)
        elif kind.startswith("h"):
            document.add_heading(str(content), int(kind[1:]))
        elif kind == "p":
            document.add_paragraph(str(content))
        elif kind == "table":
            rows = list(content)  # type: ignore[call-overload]
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    table.cell(r, c).text = cell
        else:
            raise ValueError(kind)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def zip_bytes(files: dict[str, bytes]) -> bytes:
    """A ZIP archive with the given members (for DOCX look-alikes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def docx_with_broken_body() -> bytes:
    """A real DOCX whose word/document.xml has been replaced by malformed XML."""
    original = make_docx([("p", "本文")])
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(original)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "word/document.xml":
                data = b"<w:document><w:body><w:p>unterminated"
            target.writestr(item, data)
    return out.getvalue()


# --- files that are small but cost a parser a lot (issue 20, finding 3) -----------------------

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_DOCX_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml"'
    ' ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    "</Types>"
)
_DOCX_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Target="word/document.xml"'
    ' Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"/>'
    "</Relationships>"
)


def _tc(text: str, merge: str | None = None) -> str:
    merge_xml = {None: "", "restart": '<w:vMerge w:val="restart"/>', "continue": "<w:vMerge/>"}[merge]
    run = f"<w:r><w:t>{text}</w:t></w:r>" if text else ""
    return f"<w:tc><w:tcPr>{merge_xml}</w:tcPr><w:p>{run}</w:p></w:tc>"


def docx_with_vertical_merge(rows: int) -> bytes:
    """A minimal .docx, written as XML: one table whose first column is one cell merged down ``rows`` rows.

    The first column says 「結合セル」 once (Word keeps a merged cell's text in its
    top cell); the second says 「行N」 in row N. Deflated, 950 rows take about 2 KB.
    """
    body = [f"<w:tr>{_tc('結合セル', 'restart')}{_tc('行1')}</w:tr>"]
    body += [f"<w:tr>{_tc('', 'continue')}{_tc(f'行{n}')}</w:tr>" for n in range(2, rows + 1)]
    document = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{_W}"><w:body>'
        '<w:tbl><w:tblGrid><w:gridCol w:w="3000"/><w:gridCol w:w="3000"/></w:tblGrid>'
        f"{''.join(body)}</w:tbl><w:p/></w:body></w:document>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", _DOCX_CONTENT_TYPES)
        archive.writestr("_rels/.rels", _DOCX_RELS)
        archive.writestr("word/document.xml", document)
    return buffer.getvalue()


def pdf_with_text_operators(count: int, text: str = "a") -> bytes:
    """A one-page PDF whose content stream shows ``text`` ``count`` times, one ``(text) Tj`` operator each.

    Written object by object; the stream is deflated, so a million operators take about 11 KB.
    """
    content = zlib.compress(b"BT /F1 12 Tf 10 10 Td " + f"({text}) Tj ".encode("latin-1") * count + b"ET", 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /Font << /F1 4 0 R >> >>"
        b" /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content) + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
