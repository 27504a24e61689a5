"""Citation presence (verification/citations.py): the first reference article's contract, right on Japanese text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.citations import (
    SUPPORTED_EXTENSIONS,
    WARNING_FABRICATED,
    WARNING_NONE,
    WARNING_WEAK,
    adjust_confidence_by_citation,
    file_names_in,
    verify_citation_presence,
)

SOURCES = ["attendance.md"]
FABRICATED_WARNING = WARNING_FABRICATED.format(names="company_policy.md")


def test_warnings_are_the_reference_texts() -> None:
    assert WARNING_FABRICATED.format(names="a.md, b.md") == "回答に検索結果にない出典が含まれています: a.md, b.md"
    assert WARNING_NONE == "回答に出典が含まれていません"
    assert WARNING_WEAK == "出典の表記が不完全です（*.md形式での明示を推奨）"


def test_every_uploadable_format_is_recognised_as_a_file_name() -> None:
    from documents.parsing import SUPPORTED_EXTENSIONS as UPLOADABLE

    assert {f".{extension}" for extension in SUPPORTED_EXTENSIONS} == set(UPLOADABLE)


# The article's four examples, with the confidence it shows for each (starting from "high").
@pytest.mark.parametrize(
    ("answer", "quality", "confidence", "warning"),
    [
        ("有給休暇は入社6ヶ月後に10日付与されます。(attendance.md)", "strong", "high", None),
        ("attendanceの資料によると、有給休暇は10日付与されます。", "weak", "high", WARNING_WEAK),
        ("有給休暇は入社6ヶ月後に10日付与されます。", "none", "medium", WARNING_NONE),
        ("company_policy.md によると、有給休暇は10日付与されます。", "none", "low", FABRICATED_WARNING),
    ],
    ids=["strong", "weak", "none", "fabricated"],
)
def test_article_examples(answer: str, quality: str, confidence: str, warning: str | None) -> None:
    result = verify_citation_presence(answer, SOURCES)
    assert result is not None
    assert result["citation_quality"] == quality
    assert result["warning"] == warning
    assert adjust_confidence_by_citation("high", result) == confidence


def test_result_has_the_article_keys_plus_mentioned_files() -> None:
    result = verify_citation_presence("company_policy.md によると10日です。attendance.md", SOURCES)
    assert result == {
        "has_citation": True,
        "citation_quality": "strong",
        "mentioned_sources": ["attendance.md"],
        "expected_sources": ["attendance.md"],
        "mentioned_files": ["attendance.md", "company_policy.md"],
        "unexpected_sources": ["company_policy.md"],
        "warning": FABRICATED_WARNING,
    }


def test_no_sources_means_nothing_to_check() -> None:
    assert verify_citation_presence("attendance.mdによると10日です。", []) is None


@pytest.mark.parametrize(
    ("answer", "quality"),
    [
        # File names touching Japanese text, where \b never fires.
        ("attendance.mdによると、有給休暇は10日です。", "strong"),
        ("資料attendance.mdを参照してください。", "strong"),
        ("詳しくはattendance.md。", "strong"),
        ("「attendance.md」に記載があります。", "strong"),
        ("（出典：attendance.md）", "strong"),
        ("出典:attendance.md", "strong"),
        ("attendance.md の通りです。", "strong"),
        ("See attendance.md.", "strong"),
        # Case and width.
        ("Attendance.mdによると10日です。", "strong"),
        ("ATTENDANCE.MDによると10日です。", "strong"),
        ("ａｔｔｅｎｄａｎｃｅ．ｍｄによると10日です。", "strong"),
        # Paths and links count as the source.
        ("docs/attendance.md によると10日です。", "strong"),
        ("./docs/attendance.mdを参照", "strong"),
        ("[勤怠](attendance.md)によると10日です。", "strong"),
        ("https://intra.example/docs/attendance.md?rev=2 を参照", "strong"),
        (r"C:\docs\attendance.md を参照", "strong"),
        # Base name only: weak.
        ("attendanceの資料によると、10日です。", "weak"),
        ("勤怠の資料（attendance）によると10日です。", "weak"),
        ("Attendanceによると10日です。", "weak"),
        ("ａｔｔｅｎｄａｎｃｅの資料によると10日です。", "weak"),
        # A base name inside a longer Latin word is not a citation.
        ("attendancesの資料によると10日です。", "none"),
        ("myattendanceの資料によると10日です。", "none"),
        ("attendance_oldの資料によると10日です。", "none"),
        ("attendance-rulesによると10日です。", "none"),
        ("勤怠関連の資料によると、10日です。", "none"),
        ("有給休暇は入社6ヶ月後に10日付与されます。", "none"),
        ("", "none"),
    ],
)
def test_quality_on_japanese_text(answer: str, quality: str) -> None:
    result = verify_citation_presence(answer, SOURCES)
    assert result is not None
    assert result["citation_quality"] == quality
    assert result["has_citation"] == (quality != "none")
    assert result["unexpected_sources"] == []


@pytest.mark.parametrize("extension", SUPPORTED_EXTENSIONS)
def test_every_supported_extension_is_a_strong_citation(extension: str) -> None:
    source = f"handbook.{extension}"
    result = verify_citation_presence(f"有給は10日です（{source}）。", [source])
    assert result is not None
    assert result["citation_quality"] == "strong"
    assert result["mentioned_sources"] == [source]


@pytest.mark.parametrize("extension", SUPPORTED_EXTENSIONS)
def test_every_supported_extension_can_be_fabricated(extension: str) -> None:
    result = verify_citation_presence(f"policy.{extension}によると10日です。", SOURCES)
    assert result is not None
    assert result["unexpected_sources"] == [f"policy.{extension}"]
    assert adjust_confidence_by_citation("high", result) == "low"


@pytest.mark.parametrize(
    ("answer", "unexpected"),
    [
        ("company_policy.mdによると、10日です。", ["company_policy.md"]),
        ("資料company_policy.mdを参照", ["company_policy.md"]),
        ("myattendance.mdによると10日です。", ["myattendance.md"]),
        ("attendance.pdfによると10日です。", ["attendance.pdf"]),
        ("attendance.md.bakによると10日です。", []),
        ("社内の就業規則.pdfによると10日です。", ["就業規則.pdf"]),
        ("資料マニュアル.docxによると10日です。", ["マニュアル.docx"]),
        ("Company_Policy.md と company_policy.md", ["Company_Policy.md"]),
        ("規程.htmlとrules.txtによると", ["rules.txt", "規程.html"]),
        # Not file names: an extension alone, a version number, a domain.
        ("Markdown（.md）形式で書かれています。", []),
        ("これは.mdファイルです。", []),
        ("version 1.2 を参照", []),
        ("example.com を参照", []),
    ],
)
def test_fabricated_file_names(answer: str, unexpected: list[str]) -> None:
    result = verify_citation_presence(answer, SOURCES)
    assert result is not None
    assert result["unexpected_sources"] == unexpected
    if unexpected:
        assert result["warning"] == WARNING_FABRICATED.format(names=", ".join(unexpected))


def test_fabricated_warning_wins_over_missing_and_weak() -> None:
    weak_and_fabricated = verify_citation_presence("attendanceの資料とcompany_policy.mdによると", SOURCES)
    assert weak_and_fabricated is not None
    assert weak_and_fabricated["citation_quality"] == "weak"
    assert weak_and_fabricated["warning"] == FABRICATED_WARNING


def test_base_name_inside_a_fabricated_file_name_is_not_weak() -> None:
    result = verify_citation_presence("attendance.pdfによると10日です。", SOURCES)
    assert result is not None
    assert result["citation_quality"] == "none"


def test_strong_and_weak_over_several_sources() -> None:
    sources = ["attendance.md", "expense.md", "it_support.md"]
    result = verify_citation_presence("attendance.mdとexpenseの資料によると…", sources)
    assert result is not None
    # As in the article: weak matches are only looked for when no strong one exists.
    assert result["mentioned_sources"] == ["attendance.md"]
    assert result["expected_sources"] == sources
    weak_only = verify_citation_presence("expenseとit_supportの資料によると…", sources)
    assert weak_only is not None
    assert weak_only["mentioned_sources"] == ["expense.md", "it_support.md"]


def test_japanese_source_names() -> None:
    sources = ["就業規則.pdf"]
    strong = verify_citation_presence("就業規則.pdfによると10日です。", sources)
    weak = verify_citation_presence("就業規則によると10日です。", sources)
    assert strong is not None and strong["citation_quality"] == "strong"
    assert weak is not None and weak["citation_quality"] == "weak"


def test_source_given_with_a_path_is_matched_by_its_file_name() -> None:
    result = verify_citation_presence("attendance.mdによると", ["docs/attendance.md"])
    assert result is not None
    assert result["citation_quality"] == "strong"
    assert result["mentioned_sources"] == ["docs/attendance.md"]


@pytest.mark.parametrize(
    ("confidence", "result", "expected"),
    [
        ("high", None, "high"),
        ("medium", None, "medium"),
        ("high", {"has_citation": True, "unexpected_sources": ["x.md"]}, "low"),
        ("medium", {"has_citation": False, "unexpected_sources": ["x.md"]}, "low"),
        ("high", {"has_citation": False, "unexpected_sources": []}, "medium"),
        ("medium", {"has_citation": False, "unexpected_sources": []}, "low"),
        ("low", {"has_citation": False, "unexpected_sources": []}, "low"),
        ("high", {"has_citation": True, "citation_quality": "weak", "unexpected_sources": []}, "high"),
        ("medium", {"has_citation": True, "citation_quality": "strong", "unexpected_sources": []}, "medium"),
    ],
)
def test_adjust_confidence_rules(confidence: str, result: dict | None, expected: str) -> None:
    assert adjust_confidence_by_citation(confidence, result) == expected


@pytest.mark.parametrize("answer", ["attendance.md0", "attendance.mdx", "attendance.md_v2", "6attendance.md"])
def test_latin_letters_or_digits_touching_the_name_make_another_name(answer: str) -> None:
    result = verify_citation_presence(answer, SOURCES)
    assert result is not None
    assert result["citation_quality"] != "strong"


def test_file_names_in() -> None:
    assert file_names_in("ａｔｔｅｎｄａｎｃｅ．ｍｄと資料expense.pdfによると") == ["attendance.md", "expense.pdf"]


# --- property: Japanese text around a file name never changes the verdict --------------------

JAPANESE = st.text(
    alphabet=st.sampled_from(
        list("あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん")
        + list("アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲンー")
        + list("有給休暇入社付与申請勤怠資料規程経費精算出典参照によるとの記載")
        + list("。、「」『』（）・！？ 　\n")
        + list("0123456789０１２３")
    ),
    max_size=40,
)
# Digits are ASCII after NFKC: "attendance.md0" is another name, so digits may not touch the name.
BEFORE = JAPANESE.filter(lambda text: not text[-1:].isdigit())
AFTER = JAPANESE.filter(lambda text: not text[:1].isdigit())


def _verdict(answer: str) -> tuple[object, ...]:
    result = verify_citation_presence(answer, SOURCES)
    assert result is not None
    return (
        result["citation_quality"],
        result["has_citation"],
        tuple(result["mentioned_sources"]),
        tuple(result["unexpected_sources"]),
        result["warning"],
        adjust_confidence_by_citation("high", result),
    )


@settings(max_examples=200, deadline=None)
@given(before=BEFORE, after=AFTER)
def test_property_japanese_around_a_source_file_name(before: str, after: str) -> None:
    assert _verdict(before + "attendance.md" + after) == _verdict("attendance.md")


@settings(max_examples=200, deadline=None)
@given(before=BEFORE, after=AFTER)
def test_property_japanese_around_a_base_name(before: str, after: str) -> None:
    assert _verdict(before + "attendance" + after) == _verdict("attendance")


@settings(max_examples=200, deadline=None)
@given(before=BEFORE, after=AFTER)
def test_property_japanese_around_a_fabricated_file_name(before: str, after: str) -> None:
    assert _verdict(before + "company_policy.md" + after) == _verdict("company_policy.md")


@settings(max_examples=200, deadline=None)
@given(text=JAPANESE)
def test_property_japanese_alone_is_no_citation(text: str) -> None:
    assert _verdict(text) == _verdict("")


# --- sources named by their path in the portal (folders of an imported tree) ----------------------


def test_a_source_in_a_folder_is_cited_by_its_path_or_by_its_file_name_when_no_other_source_has_it() -> None:
    sources = ["people-group/leave/_index.md", "attendance.md"]
    for answer in ("people-group/leave/_index.mdによると10日です。", "_index.mdによると10日です。"):
        result = verify_citation_presence(answer, sources)
        assert result is not None
        assert result["citation_quality"] == "strong"
        assert result["mentioned_sources"] == ["people-group/leave/_index.md"]
        assert result["unexpected_sources"] == []


def test_a_file_name_two_sources_share_is_cited_by_path_and_each_path_names_its_own_source() -> None:
    sources = ["people-group/leave/_index.md", "total-rewards/benefits/_index.md"]
    result = verify_citation_presence("total-rewards/benefits/_index.mdによると10日です。", sources)
    assert result is not None
    assert result["citation_quality"] == "strong"
    assert result["mentioned_sources"] == ["total-rewards/benefits/_index.md"]
    assert result["unexpected_sources"] == [] and result["warning"] is None


def test_a_shared_file_name_alone_is_a_weak_citation_of_every_source_that_has_it_not_a_fabricated_one() -> None:
    sources = ["people-group/leave/_index.md", "total-rewards/benefits/_index.md"]
    result = verify_citation_presence("_index.mdによると10日です。", sources)
    assert result is not None
    assert result["citation_quality"] == "weak"
    assert result["mentioned_sources"] == sorted(sources)
    assert result["unexpected_sources"] == []


def test_a_file_name_no_source_has_is_still_fabricated_beside_paths() -> None:
    sources = ["people-group/leave/_index.md", "total-rewards/benefits/_index.md"]
    result = verify_citation_presence("people-group/leave/_index.mdとbonus.mdによると", sources)
    assert result is not None
    assert result["unexpected_sources"] == ["bonus.md"]
