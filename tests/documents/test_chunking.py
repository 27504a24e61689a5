"""Chunking: exact offsets, heading paths, sentence splitting, overlap. No database needed."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from documents.chunking import ChunkSpan, chunk_document, embedding_text
from documents.parsing import Heading, ParsedDocument, parse_file
from tests.documents.fixtures import POLICY_TEXT, make_docx, make_pdf


def _doc(text: str, headings: list[Heading] | None = None) -> ParsedDocument:
    return ParsedDocument(text=text, headings=headings or [], kind="txt")


def _assert_well_formed(doc: ParsedDocument, spans: list[ChunkSpan], max_chars: int) -> None:
    assert [s.ordinal for s in spans] == list(range(len(spans)))
    for span in spans:
        assert doc.text[span.start : span.end] == span.text
        assert span.text and span.text == span.text.strip()
        assert len(span.text) <= max_chars
    assert [s.end for s in spans] == sorted(s.end for s in spans)
    assert len({s.end for s in spans}) == len(spans), "every chunk must add new text"


def _covered(spans: list[ChunkSpan]) -> set[int]:
    return {i for s in spans for i in range(s.start, s.end)}


# --- every format, offsets exact -----------------------------------------------------------


def _markdown() -> tuple[str, bytes]:
    body = "有給休暇は入社6ヶ月後に10日付与されます。申請は3日前までに行ってください。" * 12
    return "rules.md", f"# 就業規則\n\n## 第3章 休暇\n{body}\n\n### 3.2 申請\n{body}\n".encode()


def _html() -> tuple[str, bytes]:
    para = "<p>パスワードは12文字以上とし、使い回しを禁止する。違反した場合は情報システム部に報告すること。</p>" * 8
    return "sec.html", f"<h1>情報セキュリティ</h1>{para}<h2>パスワード</h2>{para}<h3>例外</h3>{para}".encode()


def _docx() -> tuple[str, bytes]:
    para = "出張の日当は国内2,000円、海外5,000円とする。宿泊費は実費精算とする。" * 6
    blocks = [("title", "出張旅費規程"), ("h1", "総則"), ("p", para), ("h2", "日当"), ("p", para), ("p", para)]
    return "travel.docx", make_docx(blocks)  # type: ignore[arg-type]


def _pdf() -> tuple[str, bytes]:
    lines = "\n".join("在宅勤務の申請は前日までに上長の承認を得ること。" for _ in range(20))
    return "remote.pdf", make_pdf([lines, lines])


def _txt() -> tuple[str, bytes]:
    return "policy.txt", (POLICY_TEXT * 6).encode("cp932")


@pytest.mark.parametrize("build", [_markdown, _html, _docx, _pdf, _txt], ids=["md", "html", "docx", "pdf", "txt"])
@pytest.mark.parametrize(("max_chars", "overlap"), [(400, 60), (120, 30), (60, 0)])
def test_every_chunk_of_every_format_points_at_its_exact_text(
    build: Callable[[], tuple[str, bytes]], max_chars: int, overlap: int
) -> None:
    filename, data = build()
    doc = parse_file(filename, data)
    spans = chunk_document(doc, max_chars=max_chars, overlap=overlap)
    assert len(spans) >= 2
    _assert_well_formed(doc, spans, max_chars)
    # Nothing is lost: every visible character of the document is in some chunk
    # (headings that only announce a subsection are carried by the heading path).
    uncovered = [i for i, ch in enumerate(doc.text) if not ch.isspace() and i not in _covered(spans)]
    heading_starts = {h.start for h in doc.headings}
    for i in uncovered:
        line_start = doc.text.rfind("\n", 0, i) + 1
        assert line_start in heading_starts, f"lost text at {i}: {doc.text[line_start : i + 20]!r}"


# --- heading paths --------------------------------------------------------------------------


def test_markdown_heading_paths_follow_nesting() -> None:
    text = (
        "この文書は総務部が管理する。\n\n"
        "# 就業規則\n\n"
        "## 第3章 休暇\n休暇の種類を定める。\n\n"
        "### 3.2 申請\n3日前までに申請する。\n\n"
        "## 第4章 賃金\n賃金は月末締め翌月25日払いとする。\n"
    )
    spans = chunk_document(parse_file("rules.md", text.encode()))
    assert [(s.heading_path, s.text.split("\n")[-1]) for s in spans] == [
        ("", "この文書は総務部が管理する。"),
        ("就業規則 > 第3章 休暇", "休暇の種類を定める。"),
        ("就業規則 > 第3章 休暇 > 3.2 申請", "3日前までに申請する。"),
        ("就業規則 > 第4章 賃金", "賃金は月末締め翌月25日払いとする。"),
    ]
    # The heading line is part of its section's first chunk.
    assert spans[2].text == "### 3.2 申請\n3日前までに申請する。"


def test_heading_only_section_is_skipped_but_a_heading_only_document_is_kept() -> None:
    spans = chunk_document(parse_file("a.md", "# 規程\n\n## 第1条\n本文です。\n".encode()))
    assert [(s.heading_path, s.text) for s in spans] == [("規程 > 第1条", "## 第1条\n本文です。")]
    only = chunk_document(parse_file("b.md", "# タイトルだけ\n".encode()))
    assert [(s.heading_path, s.text) for s in only] == [("タイトルだけ", "# タイトルだけ")]


def test_html_heading_paths_h1_to_h3() -> None:
    page = "<h1>情報セキュリティ</h1><p>総則。</p><h2>パスワード</h2><p>12文字以上。</p><h3>例外</h3><p>管理者は別。</p><h2>持ち出し</h2><p>禁止。</p>"
    spans = chunk_document(parse_file("sec.html", page.encode()))
    assert [(s.heading_path, s.text) for s in spans] == [
        ("情報セキュリティ", "情報セキュリティ\n総則。"),
        ("情報セキュリティ > パスワード", "パスワード\n12文字以上。"),
        ("情報セキュリティ > パスワード > 例外", "例外\n管理者は別。"),
        ("情報セキュリティ > 持ち出し", "持ち出し\n禁止。"),
    ]


def test_docx_heading_styles_give_paths_under_the_title() -> None:
    data = make_docx(
        [
            ("title", "出張旅費規程"),
            ("h1", "第1章 総則"),
            ("p", "出張とは片道100km以上の移動をいう。"),
            ("h2", "1.1 日当"),
            ("table", [["国内", "2,000円"]]),
            ("jh1", "第2章 精算"),
            ("p", "帰着後1週間以内に精算する。"),
        ]
    )
    spans = chunk_document(parse_file("travel.docx", data))
    assert [(s.heading_path, s.text) for s in spans] == [
        ("出張旅費規程 > 第1章 総則", "第1章 総則\n出張とは片道100km以上の移動をいう。"),
        ("出張旅費規程 > 第1章 総則 > 1.1 日当", "1.1 日当\n国内 | 2,000円"),
        ("出張旅費規程 > 第2章 精算", "第2章 精算\n帰着後1週間以内に精算する。"),
    ]


def test_pdf_chunks_are_per_page() -> None:
    doc = parse_file("a.pdf", make_pdf(["1ページ目の本文です。", "2ページ目の本文です。"]))
    spans = chunk_document(doc)
    assert [(s.heading_path, s.text) for s in spans] == [
        ("p. 1", "1ページ目の本文です。"),
        ("p. 2", "2ページ目の本文です。"),
    ]


def test_very_long_heading_path_is_capped_for_the_database() -> None:
    headings = [Heading(level=i + 1, title="長" * 200, start=i * 2) for i in range(6)]
    text = "".join("x\n" for _ in range(6)) + "本文。"
    spans = chunk_document(_doc(text, headings))
    assert spans and all(len(s.heading_path) <= 500 for s in spans)


# --- sentence splitting and overlap ----------------------------------------------------------

SENTENCES = [
    "有給休暇は入社6ヶ月後に10日付与されます。",
    "申請は3日前までに勤怠システムから行ってください！",
    "半日単位の取得はできますか？",
    "はい、午前休と午後休を選べます。",
    "繰越しは最大20日までです。",
    "「勤怠くん」の使い方は別紙を参照してください。」",
    "The policy applies to all employees. ",
    "Is it retroactive? ",
    "No, it is not. ",
]


def test_chunks_end_at_sentence_ends() -> None:
    text = "".join(SENTENCES * 4)
    spans = chunk_document(_doc(text), max_chars=80, overlap=0)
    assert len(spans) > 3
    for span in spans:
        assert span.text.endswith(("。", "！", "？", ".", "?", "」")), span.text
    # Without overlap the chunks tile the text exactly.
    assert "".join(s.text for s in spans).replace(" ", "") == text.replace(" ", "")


def test_decimal_points_and_times_do_not_end_sentences() -> None:
    text = "標準勤務時間は9:00〜18:00で、手当は3.5倍です。" + "あ" * 30 + "。"
    spans = chunk_document(_doc(text), max_chars=40, overlap=0)
    assert spans[0].text == "標準勤務時間は9:00〜18:00で、手当は3.5倍です。"


def test_line_breaks_are_weaker_than_sentence_ends() -> None:
    # PDF-style text: sentences wrap across lines. A chunk should end at 。 rather than at a wrap.
    sentence = "在宅勤務を行う場合は前日までに\n上長の承認を得て、勤務開始と終了を\nチャットで報告すること。"
    text = "\n".join([sentence] * 6)
    # 110 characters would fit two sentences plus the first line of a third.
    spans = chunk_document(_doc(text), max_chars=110, overlap=0)
    assert len(spans) >= 2
    assert all(s.text.endswith("。") for s in spans)


def test_markdown_list_without_punctuation_splits_at_lines() -> None:
    text = "\n".join(f"- 項目{i}は備品として管理台帳に登録する" for i in range(30))
    spans = chunk_document(_doc(text), max_chars=100, overlap=0)
    for span in spans:
        assert span.text.startswith("- 項目") and span.text.endswith("登録する")


def test_overlong_sentence_is_cut_hard_and_nothing_is_lost() -> None:
    text = "この文は句点がないまま長く続き" * 40 + "。"
    spans = chunk_document(_doc(text), max_chars=100, overlap=30)
    assert len(spans) >= 6
    _assert_well_formed(_doc(text), spans, 100)
    assert _covered(spans) == set(range(len(text)))


def test_overlap_repeats_whole_previous_sentences() -> None:
    text = "".join(SENTENCES[:6] * 3)
    spans = chunk_document(_doc(text), max_chars=100, overlap=40)
    assert len(spans) >= 3
    for previous, current in zip(spans, spans[1:]):
        shared = previous.end - current.start
        assert 0 < shared <= 80, (previous.text, current.text)
        # The overlap starts at a sentence start: the character before it ends a sentence.
        assert text[current.start - 1] in "。！？」"
        assert previous.text.endswith(text[current.start : previous.end])


def test_zero_overlap_gives_disjoint_chunks() -> None:
    text = "".join(SENTENCES[:6] * 3)
    spans = chunk_document(_doc(text), max_chars=100, overlap=0)
    for previous, current in zip(spans, spans[1:]):
        assert current.start >= previous.end


def test_overlap_never_crosses_sections() -> None:
    body = "".join(SENTENCES[:5])
    doc = parse_file("a.md", f"# A\n{body}\n# B\n{body}\n".encode())
    spans = chunk_document(doc, max_chars=60, overlap=30)
    second = doc.headings[1].start
    assert all(s.end <= second or s.start >= second for s in spans)


def test_chunking_is_deterministic() -> None:
    doc = parse_file("rules.md", _markdown()[1])
    assert chunk_document(doc, max_chars=150, overlap=40) == chunk_document(doc, max_chars=150, overlap=40)


@pytest.mark.parametrize(("max_chars", "overlap"), [(0, 0), (100, -1), (100, 100)])
def test_bad_sizes_are_rejected(max_chars: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        chunk_document(_doc("本文。"), max_chars=max_chars, overlap=overlap)


def test_blank_document_gives_no_chunks() -> None:
    assert chunk_document(_doc(" \n\u3000\n")) == []


# --- what gets embedded ---------------------------------------------------------------------


def test_embedding_text_puts_title_and_heading_path_first() -> None:
    span = ChunkSpan(ordinal=0, heading_path="第3章 > 3.2 申請", start=0, end=9, text="3日前までに申請")
    assert embedding_text(span, "就業規則") == "就業規則 > 第3章 > 3.2 申請\n3日前までに申請"
    assert embedding_text(span) == "第3章 > 3.2 申請\n3日前までに申請"


def test_embedding_text_does_not_repeat_a_title_the_path_starts_with() -> None:
    span = ChunkSpan(ordinal=0, heading_path="勤怠管理ルール > 有給休暇", start=0, end=2, text="本文")
    assert embedding_text(span, "勤怠管理ルール") == "勤怠管理ルール > 有給休暇\n本文"
    bare = ChunkSpan(ordinal=0, heading_path="", start=0, end=2, text="本文")
    assert embedding_text(bare) == "本文"
    assert embedding_text(bare, "規程") == "規程\n本文"


# --- property: random documents -------------------------------------------------------------

_ALPHABET = st.sampled_from(list("あいう漢字カナｶﾅabc XYZ019。！？.!?、,「」()#\n\n\t\u3000 "))


@st.composite
def _documents(draw: st.DrawFn) -> ParsedDocument:
    text = draw(st.text(_ALPHABET, max_size=1500))
    offsets = draw(st.lists(st.integers(0, len(text)), max_size=8, unique=True))
    headings = [
        Heading(level=draw(st.integers(0, 4)), title=f"見出し{i}", start=offset) for i, offset in enumerate(offsets)
    ]
    return ParsedDocument(text=text, headings=headings, kind="md")


@settings(max_examples=300, deadline=None)
@given(doc=_documents(), max_chars=st.integers(1, 200), overlap_share=st.floats(0, 0.9))
def test_random_documents_keep_every_invariant(doc: ParsedDocument, max_chars: int, overlap_share: float) -> None:
    overlap = min(int(max_chars * overlap_share), max_chars - 1)
    spans = chunk_document(doc, max_chars=max_chars, overlap=overlap)
    _assert_well_formed(doc, spans, max_chars)
    # No text is lost (no section here is heading-only: titles never occur in the text).
    assert _covered(spans) >= {i for i, ch in enumerate(doc.text) if not ch.isspace()}
    # No chunk crosses a heading boundary.
    for heading in doc.headings:
        assert all(not (s.start < heading.start < s.end) for s in spans)
    assert chunk_document(doc, max_chars=max_chars, overlap=overlap) == spans
