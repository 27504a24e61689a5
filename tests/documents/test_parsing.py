"""Parsing uploaded files: every format, every encoding, every bad input. No database needed."""

from __future__ import annotations

import codecs

import pytest

from documents.parsing import SUPPORTED_EXTENSIONS, ParseError, parse_file
from documents.segmentation import tokens
from ragportal.text import fold
from tests.documents.fixtures import (
    JIS_ONLY_TEXT,
    POLICY_TEXT,
    docx_with_broken_body,
    make_docx,
    make_image_only_pdf,
    make_pdf,
    zip_bytes,
)


def _titles(doc) -> list[tuple[int, str]]:
    return [(h.level, h.title) for h in doc.headings]


def _heading_lines(doc) -> list[str]:
    """The text at each heading's start, up to the end of that line."""
    return [doc.text[h.start :].split("\n", 1)[0] for h in doc.headings]


def _parse_error(filename: str, data: bytes, **kwargs: object) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_file(filename, data, **kwargs)  # type: ignore[arg-type]
    return info.value


# --- text encodings -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("codec", "expected_label"),
    [
        ("utf-8", "utf-8"),
        ("utf-8-sig", "utf-8-sig"),
        ("cp932", "cp932"),
        ("euc_jis_2004", "euc_jis_2004"),  # EUC-JP as written by tools that know ① and ～
        ("utf-16", "utf-16"),
    ],
)
@pytest.mark.parametrize("extension", [".txt", ".md"])
def test_policy_text_round_trips_in_each_encoding(codec: str, expected_label: str, extension: str) -> None:
    doc = parse_file("policy" + extension, POLICY_TEXT.encode(codec))
    assert doc.text == POLICY_TEXT
    assert doc.encoding == expected_label
    assert "\ufeff" not in doc.text


@pytest.mark.parametrize("codec", ["shift_jis", "euc_jp"])
def test_plain_jis_encodings_decode(codec: str) -> None:
    doc = parse_file("leave.txt", JIS_ONLY_TEXT.encode(codec))
    assert doc.text == JIS_ONLY_TEXT
    assert "ﾊﾟｰﾄﾀｲﾏｰ" in doc.text


def test_shift_jis_wave_dash_reads_as_windows_tilde() -> None:
    # Shift_JIS 0x8160 is 〜 in JIS but ～ in CP932; Windows files mean the latter.
    doc = parse_file("time.txt", "9:00〜18:00".encode("shift_jis"))
    assert doc.text == "9:00～18:00"
    assert fold(doc.text) == "9:00~18:00"


def test_iso_2022_jp_mail_text_decodes() -> None:
    text = "お知らせ：システム停止は土曜日です。"
    doc = parse_file("notice.txt", text.encode("iso2022_jp"))
    assert doc.text == text


def test_short_euc_and_sjis_files_are_not_confused() -> None:
    for codec in ("cp932", "euc_jp"):
        assert parse_file("a.txt", "有給休暇の申請".encode(codec)).text == "有給休暇の申請"


def test_newlines_are_normalised_and_bom_stripped() -> None:
    doc = parse_file("crlf.txt", codecs.BOM_UTF8 + "一行目\r\n二行目\r三行目\r\n".encode())
    assert doc.text == "一行目\n二行目\n三行目\n"
    assert doc.kind == "txt"


def test_html_meta_charset_is_honoured() -> None:
    page = '<html><head><meta charset="Shift_JIS"></head><body><h1>規程</h1><p>①本文～</p></body></html>'
    doc = parse_file("page.html", page.encode("cp932"))
    assert doc.text == "規程\n①本文～"
    assert doc.encoding == "cp932"


# --- Markdown and plain text ----------------------------------------------------------------


def test_markdown_headings_are_nested_and_start_at_their_line() -> None:
    text = (
        "前書きの段落です。\n\n"
        "# 就業規則\n\n"
        "## 第3章 休暇\n本文。\n\n"
        "### 3.2 申請\n申請の方法。\n\n"
        "```\n# これはコードの中なので見出しではない\n```\n\n"
        "####### 七つは見出しではない\n"
        "## 第4章 賃金 ##\n"
        "#\u3000全角スペースの見出し\n"
    )
    doc = parse_file("rules.md", text.encode())
    assert doc.kind == "md"
    assert _titles(doc) == [
        (1, "就業規則"),
        (2, "第3章 休暇"),
        (3, "3.2 申請"),
        (2, "第4章 賃金"),
        (1, "全角スペースの見出し"),
    ]
    assert _heading_lines(doc) == [
        "# 就業規則",
        "## 第3章 休暇",
        "### 3.2 申請",
        "## 第4章 賃金 ##",
        "#\u3000全角スペースの見出し",
    ]
    assert doc.text == text  # the original text, markup included, is what offsets point into


def test_markdown_heading_title_is_plain_text() -> None:
    doc = parse_file("a.md", "## **重要** な `VPN` 設定\n本文".encode())
    assert _titles(doc) == [(2, "重要 な VPN 設定")]


def test_plain_text_chapter_lines_are_headings() -> None:
    doc = parse_file("rules.txt", "就業規則\n\n第1章　総則\n本文\n第1節 目的\n本文\n第2章 休暇\n本文\n".encode())
    assert _titles(doc) == [(1, "第1章 総則"), (2, "第1節 目的"), (1, "第2章 休暇")]
    assert _heading_lines(doc) == ["第1章\u3000総則", "第1節 目的", "第2章 休暇"]


def test_plain_text_title_is_the_line_after_a_banner_or_a_rule() -> None:
    notice = "■■ お知らせ ■■\n2026年度 予防接種 費用補助の申請受付を開始します\n\n今年度も費用を補助します。\n"
    assert parse_file("notice.txt", notice.encode()).title == "2026年度 予防接種 費用補助の申請受付を開始します"
    assert (
        parse_file("faq.txt", "==========\n社内FAQ よくある質問\n==========\n".encode()).title == "社内FAQ よくある質問"
    )
    # A banner with nothing like a title after it is the title, without its decoration.
    assert parse_file("rules.txt", "■ 就業規則 ■\n\n本文。\n".encode()).title == "就業規則"
    # A file that opens with its text declares no title (the document is titled by its first line, as before).
    assert parse_file("memo.txt", "来週の会議は中止です。\n".encode()).title == ""


def test_plain_text_sentence_mentioning_a_chapter_is_not_a_heading() -> None:
    doc = parse_file("a.txt", "詳細は第3章を参照してください。\n第3章を参照のこと。\n".encode())
    assert doc.headings == []


WORK_RULES_MD = """# 就業規則

## 第1章 総則

第1条（目的）この規則は、従業員の労働条件を定める。

**第2条（適用範囲）**
この規則は、すべての従業員に適用する。

## 第4章 休暇

（年次有給休暇）
第15条　入社6ヶ月後に10日を付与する。
２　第15条の規定にかかわらず、パートタイマーには比例付与とする。
第15条第2項の日数は別表による。
第16条の2（慶弔休暇）本人が結婚するときは5日を付与する。
第17条 特別休暇は会社が定める。
"""


def test_articles_of_work_rules_are_headings_below_their_chapter() -> None:
    """However a file writes them (caption after, bold, caption on the line before, none), each article is a heading."""
    doc = parse_file("rules.md", WORK_RULES_MD.encode())
    assert _titles(doc) == [
        (1, "就業規則"),
        (2, "第1章 総則"),
        (3, "第1条（目的）"),
        (3, "第2条（適用範囲）"),
        (2, "第4章 休暇"),
        (3, "第15条（年次有給休暇）"),
        (3, "第16条の2（慶弔休暇）"),
        (3, "第17条"),
    ]
    # A caption on the line before belongs to its article's section; sentences citing an article start nothing.
    assert _heading_lines(doc)[5] == "（年次有給休暇）"
    assert doc.text == WORK_RULES_MD


def test_articles_in_plain_text_and_word_files_are_headings() -> None:
    txt = parse_file(
        "rules.txt", "第1章 総則\n第1条（目的）この規程は休暇を定める。\n第2条（付与日数）10日を付与する。\n".encode()
    )
    assert _titles(txt) == [(1, "第1章 総則"), (2, "第1条（目的）"), (2, "第2条（付与日数）")]

    # Word files of regulations often style only the chapters; the articles are body paragraphs.
    docx = parse_file(
        "rules.docx",
        make_docx(
            [("h1", "第3章 休暇"), ("p", "第15条（年次有給休暇）入社6ヶ月後に10日を付与する。"), ("h2", "第16条")]
        ),
    )
    assert _titles(docx) == [(1, "第3章 休暇"), (2, "第15条（年次有給休暇）"), (2, "第16条")]


def test_sentences_citing_an_article_are_not_headings() -> None:
    doc = parse_file(
        "a.txt",
        "第15条の規定により付与する。\n第15条第2項による。\n第15条を参照のこと。\n第15条、第16条も同じ。\n".encode(),
    )
    assert doc.headings == []


# --- HTML -----------------------------------------------------------------------------------


HTML_PAGE = """<!DOCTYPE html>
<html><head><title>ページタイトル</title>
<style>h1 { color: red }</style><script>document.write("悪意")</script></head>
<body>
<nav>メニュー</nav>
<h1>情報セキュリティ規程</h1>
<p>この規程は
情報資産の取扱いを定める。<b>必ず</b>守ること。</p>
<h2>第1章 <small>パスワード</small></h2>
<ul><li>12文字以上</li><li>使い回し禁止</li></ul>
<h3>1.1 例外</h3>
<table><tr><th>区分</th><th>期限</th></tr><tr><td>管理者</td><td>90日</td></tr></table>
<div hidden>隠しテキスト</div><p style="display: none">非表示</p>
<!-- コメント -->
<p>一行目<br>二行目</p>
<h2></h2>
</body></html>"""


def test_html_visible_text_has_blocks_on_their_own_lines() -> None:
    doc = parse_file("security.html", HTML_PAGE.encode())
    assert doc.kind == "html"
    assert doc.text.split("\n") == [
        "メニュー",
        "情報セキュリティ規程",
        "この規程は情報資産の取扱いを定める。必ず守ること。",
        "第1章 パスワード",
        "12文字以上",
        "使い回し禁止",
        "1.1 例外",
        "| 区分 | 期限 |",
        "| --- | --- |",
        "| 管理者 | 90日 |",
        "一行目",
        "二行目",
    ]
    for hidden in ("悪意", "color", "ページタイトル", "隠しテキスト", "非表示", "コメント"):
        assert hidden not in doc.text


def test_an_html_pages_table_is_a_pipe_table_with_merged_cells_in_every_row_they_cover() -> None:
    """As a table written inside Markdown reads: a row under a rowspan cell keeps it, and a <br> in a cell
    separates within the row instead of cutting the row in two."""
    page = (
        "<html><body><h2>報奨金</h2><table><thead><tr><th>分野</th><th>資格</th><th>報奨金</th></tr></thead>"
        "<tbody><tr><td rowspan='2'>FP</td><td>1級FP技能士</td><td>100,000円</td></tr>"
        "<tr><td>2級FP技能士</td><td>30,000円<br>（AFP登録時は5,000円加算）</td></tr></tbody></table>"
        "<p>申請は人事部へ。</p></body></html>"
    )
    doc = parse_file("bonus.html", page.encode())
    assert doc.text.split("\n") == [
        "報奨金",
        "| 分野 | 資格 | 報奨金 |",
        "| --- | --- | --- |",
        "| FP | 1級FP技能士 | 100,000円 |",
        "| FP | 2級FP技能士 | 30,000円; （AFP登録時は5,000円加算） |",
        "申請は人事部へ。",
    ]


def test_html_headings_h1_to_h3_with_offsets() -> None:
    doc = parse_file("security.htm", HTML_PAGE.encode())
    assert _titles(doc) == [(1, "情報セキュリティ規程"), (2, "第1章 パスワード"), (3, "1.1 例外")]
    assert _heading_lines(doc) == ["情報セキュリティ規程", "第1章 パスワード", "1.1 例外"]


def test_deeply_nested_html_does_not_crash() -> None:
    page = "<div>" * 5000 + "深い本文" + "</div>" * 5000
    assert parse_file("deep.html", page.encode()).text == "深い本文"


# --- PDF ------------------------------------------------------------------------------------


def test_pdf_pages_become_sections_with_page_headings() -> None:
    data = make_pdf(
        [
            "第1章 総則\n有給休暇は入社6ヶ月後に10日付与されます。",
            "第2章 申請\n申請は3日前までに行ってください。",
            "",  # a blank page gets no heading
            "附則 この規程は2024年4月1日から施行する。",
        ]
    )
    doc = parse_file("rules.pdf", data)
    assert doc.kind == "pdf"
    assert _titles(doc) == [(1, "p. 1"), (1, "p. 2"), (1, "p. 4")]
    pages = doc.text.split("\n\n")
    assert pages[0] == "第1章 総則\n有給休暇は入社6ヶ月後に10日付与されます。"
    assert pages[1] == "第2章 申請\n申請は3日前までに行ってください。"
    assert pages[2] == "附則 この規程は2024年4月1日から施行する。"
    assert [doc.text[h.start :].split("\n", 1)[0] for h in doc.headings] == [
        "第1章 総則",
        "第2章 申請",
        "附則 この規程は2024年4月1日から施行する。",
    ]


def test_pdf_without_text_layer_is_refused() -> None:
    error = _parse_error("scan.pdf", make_image_only_pdf())
    assert error.code == "no_text_layer"
    assert error.user_message == "PDFに文字情報がありません（スキャン画像のPDFは読み込めません）"


@pytest.mark.parametrize(
    "mangle",
    [
        lambda d: d[: len(d) // 2],
        lambda d: b"%PDF-1.4\n" + bytes(range(1, 256)) * 10,
        lambda d: b"%PDF-1.7\n",
    ],
    ids=["truncated", "garbage-after-header", "header-only"],
)
def test_corrupt_pdf_is_refused(mangle) -> None:
    error = _parse_error("broken.pdf", mangle(make_pdf(["本文です。"])))
    assert error.code == "corrupt_pdf"
    assert error.user_message == "PDFファイルが壊れているため読み込めません"


def test_pdf_extension_on_plain_text_is_corrupt_pdf() -> None:
    assert _parse_error("fake.pdf", "これはPDFではありません".encode()).code == "corrupt_pdf"


def test_pdf_extension_on_a_word_file_says_what_it_is() -> None:
    error = _parse_error("renamed.pdf", make_docx([("p", "本文")]))
    assert error.code == "unsupported_type"
    assert "ZIP" in error.user_message


# --- DOCX -----------------------------------------------------------------------------------


def test_docx_paragraphs_tables_and_heading_styles() -> None:
    data = make_docx(
        [
            ("title", "出張旅費規程"),
            ("h1", "第1章 総則"),
            ("p", "この規程は出張旅費について定める。"),
            ("p", ""),
            ("p", ""),
            ("h2", "1.1 日当"),
            ("table", [["区分", "日当"], ["国内", "2,000円"], ["海外", "5,000円"]]),
            ("jh1", "第2章 精算"),
            ("p", "帰着後1週間以内に精算すること。"),
        ]
    )
    doc = parse_file("travel.docx", data)
    assert doc.kind == "docx"
    assert doc.text.split("\n") == [
        "出張旅費規程",
        "第1章 総則",
        "この規程は出張旅費について定める。",
        "",  # two empty paragraphs collapse into one blank line
        "1.1 日当",
        "区分 | 日当",
        "国内 | 2,000円",
        "海外 | 5,000円",
        "第2章 精算",
        "帰着後1週間以内に精算すること。",
    ]
    assert _titles(doc) == [(0, "出張旅費規程"), (1, "第1章 総則"), (2, "1.1 日当"), (1, "第2章 精算")]
    assert _heading_lines(doc) == ["出張旅費規程", "第1章 総則", "1.1 日当", "第2章 精算"]


def test_docx_merged_cells_appear_once() -> None:
    import io

    import docx

    document = docx.Document()
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).merge(table.cell(0, 1)).text = "見出しセル"
    table.cell(1, 0).text = "左"
    table.cell(1, 1).text = "右"
    buffer = io.BytesIO()
    document.save(buffer)
    assert parse_file("t.docx", buffer.getvalue()).text == "見出しセル\n左 | 右"


@pytest.mark.parametrize(
    "data",
    [
        b"not a zip at all, just text",
        make_docx([("p", "本文")])[:300],
        zip_bytes({"hello.txt": b"hi"}),
        docx_with_broken_body(),
    ],
    ids=["text", "truncated", "zip-without-body", "malformed-xml"],
)
def test_corrupt_docx_is_refused(data: bytes) -> None:
    error = _parse_error("broken.docx", data)
    assert error.code == "corrupt_docx"
    assert error.user_message == "Wordファイルが壊れているため読み込めません"


def test_docx_whose_body_inflates_beyond_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import documents.inflation

    data = make_docx([("p", "本文" * 1000)])
    assert parse_file("ok.docx", data).text == "本文" * 1000
    monkeypatch.setattr(documents.inflation, "MAX_ZIP_MEMBER_BYTES", 2 * 1024 * 1024)
    monkeypatch.setattr(documents.inflation, "ZIP_RATIO_FLOOR", 10**9)
    big = make_docx([("p", "本文" * 400_000)])  # word/document.xml inflates to about 2.4 MB
    error = _parse_error("bomb.docx", big)
    assert error.code == "too_large"
    assert error.user_message == "展開後のサイズが大きすぎるため、このファイルは受け付けられません（上限 2 MB）"


def test_old_word_file_renamed_to_docx_is_unsupported() -> None:
    error = _parse_error("old.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 500)
    assert error.code == "unsupported_type"
    assert ".docx で保存し直してください" in error.user_message


def test_docx_extension_on_a_pdf_is_unsupported() -> None:
    error = _parse_error("renamed.docx", make_pdf(["本文"]))
    assert error.code == "unsupported_type"
    assert "PDF" in error.user_message


def test_docx_without_text_is_empty() -> None:
    assert _parse_error("blank.docx", make_docx([("p", ""), ("p", "  ")])).code == "empty"


# --- other bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("filename", [f"a{ext}" for ext in SUPPORTED_EXTENSIONS])
def test_empty_file_is_refused_for_every_type(filename: str) -> None:
    error = _parse_error(filename, b"")
    assert error.code == "empty"
    assert error.user_message == "ファイルが空です"


@pytest.mark.parametrize(
    "data",
    [b"   \r\n\t\n", codecs.BOM_UTF8, codecs.BOM_UTF8 + "\u3000\u3000\n".encode(), "\u3000".encode("cp932")],
    ids=["ascii-space", "bom-only", "ideographic-space", "sjis-ideographic-space"],
)
def test_whitespace_only_text_is_empty(data: bytes) -> None:
    assert _parse_error("blank.txt", data).code == "empty"


def test_html_with_only_scripts_is_empty() -> None:
    assert _parse_error("x.html", b"<html><script>var a = 1;</script></html>").code == "empty"


@pytest.mark.parametrize("filename", ["setup.exe", "notes.doc", "README", "sheet.xlsx", "archive.zip"])
def test_unknown_extension_is_unsupported(filename: str) -> None:
    error = _parse_error(filename, b"some content")
    assert error.code == "unsupported_type"
    assert error.user_message == "対応していない形式です（.md .txt .html .pdf .docx）"


@pytest.mark.parametrize(
    ("filename", "data"),
    [
        ("notes.txt", "本文".encode() + b"\x00\x01\x02binary"),
        ("notes.txt", make_pdf(["本文"])),
        ("notes.md", make_docx([("p", "本文")])),
        ("page.html", b"\x89PNG\r\n\x1a\n" + b"\x10" * 64),
        ("notes.txt", bytes(range(1, 32)) * 20),
    ],
    ids=["nul-bytes", "pdf-as-txt", "docx-as-md", "png-as-html", "control-chars"],
)
def test_binary_content_behind_a_text_extension_is_unsupported(filename: str, data: bytes) -> None:
    error = _parse_error(filename, data)
    assert error.code == "unsupported_type"
    assert "バイナリ" in error.user_message


def test_undecodable_text_is_refused() -> None:
    error = _parse_error("weird.txt", b"\xff\xfd\xfc\xfb\xfa" * 20)
    assert error.code == "undecodable"
    assert error.user_message == "文字コードを判別できません（UTF-8 / Shift_JIS / EUC-JP で保存してください）"


def test_file_over_the_size_limit_is_refused_before_parsing() -> None:
    limit = 2 * 1024 * 1024
    error = _parse_error("big.pdf", b"x" * (limit + 1), max_bytes=limit)
    assert error.code == "too_large"
    assert error.user_message == "ファイルサイズが上限（2 MB）を超えています"
    # At the limit is fine.
    assert parse_file("ok.txt", "あ".encode() * (limit // 3), max_bytes=limit).text.startswith("あ")


def test_parse_error_messages_are_japanese_for_every_code() -> None:
    samples = {
        "empty": ("a.txt", b""),
        "unsupported_type": ("a.exe", b"x"),
        "too_large": ("a.txt", b"xx"),
        "no_text_layer": ("a.pdf", make_image_only_pdf()),
        "corrupt_pdf": ("a.pdf", b"%PDF-1.4 junk"),
        "corrupt_docx": ("a.docx", b"junk"),
        "undecodable": ("a.txt", b"\xfd\xfc\xfb" * 3 + b"\xff"),
    }
    for code, (filename, data) in samples.items():
        error = _parse_error(filename, data, max_bytes=1 if code == "too_large" else None)
        assert error.code == code
        assert any("\u3040" <= ch <= "\u30ff" for ch in error.user_message), error.user_message


# --- normalisation for the index ------------------------------------------------------------


def test_half_width_text_is_kept_for_display_and_folded_only_for_the_index() -> None:
    original = "ﾊﾟｽﾜｰﾄﾞ"
    doc = parse_file("a.txt", original.encode("cp932"))
    assert doc.text == original  # display text (and citation offsets) keep the half-width form
    assert tokens(doc.text) == tokens("パスワード")
