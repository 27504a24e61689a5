"""Builders for test files: made at test time so no binary fixture lives in the repository."""

from __future__ import annotations

import io
import zipfile

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
