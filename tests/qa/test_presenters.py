"""The answer as the chat page and the API present it: markers, marks, Markdown, sanitising, payload."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from qa.models import Answer
from qa.presenters import answer_payload, answer_view, render_answer_html, render_markdown
from tests.qa.answer_rows import LEAVE_TEXT, make_answer
from verification.flags import WARNING_NONE

pytestmark = pytest.mark.django_db

S1 = "有給休暇は入社6ヶ月後に10日付与されます。"
S2 = "申請は3日前までに行います。"


def _two_sentence_answer(user, **fields):
    citations = [
        {"n": 1, "filename": "attendance.md", "section": "有給休暇", "cited_text": S1, "quote_verified": True},
        {"n": 2, "filename": "attendance.md", "section": "申請", "cited_text": S2, "quote_verified": True},
    ]
    blocks = [{"text": S1 + "\n", "citations": [1]}, {"text": S2, "citations": [2]}]
    return make_answer(user, blocks=blocks, citations=citations, **fields)


def test_footnote_markers_follow_the_sentence_they_support(employee):
    answer = _two_sentence_answer(employee)
    html = str(render_answer_html(answer))
    first = html.index("付与されます。")
    marker1 = html.index(">[1]</a>")
    second = html.index("申請は")
    marker2 = html.index(">[2]</a>")
    assert first < marker1 < second < marker2
    # The marker sits before the line break that ends its sentence, and links to its footnote.
    assert re.search(r"付与されます。<sup class=\"fnref\"><a href=\"#fn-%d-1\"" % answer.pk, html)


def test_a_block_citing_two_chunks_gets_both_markers(employee):
    answer = make_answer(employee, blocks=[{"text": LEAVE_TEXT, "citations": [1, 2]}])
    html = str(render_answer_html(answer))
    assert html.index(">[1]<") < html.index(">[2]<")


def test_unsupported_sentences_are_marked_and_supported_ones_are_not(employee):
    verification = {
        "sentences": [
            {"text": S1, "start": 0, "end": len(S1), "supported": True, "reason": ""},
            {
                "text": S2,
                "start": len(S1) + 1,
                "end": len(S1) + 1 + len(S2),
                "supported": False,
                "reason": "no citation",
            },
        ]
    }
    answer = _two_sentence_answer(employee, verification=verification)
    html = str(render_answer_html(answer))
    marked = re.findall(r'<mark class="unsupported">(.*?)</mark>', html)
    assert marked == [S2]


def test_offsets_that_do_not_fit_the_shown_text_mark_nothing(employee):
    # The verifier's offsets are the one location of a sentence; they are not re-guessed by text.
    verification = {"sentences": [{"text": S2, "start": 999, "end": 1005, "supported": False}]}
    answer = _two_sentence_answer(employee, verification=verification)
    html = str(render_answer_html(answer))
    assert "<mark" not in html and S2 in html


def test_marking_a_list_item_keeps_the_list(employee):
    text = "- 項目A\n- 項目B\n"
    verification = {"sentences": [{"text": "- 項目B", "start": 6, "end": 11, "supported": False}]}
    answer = make_answer(employee, blocks=[{"text": text, "citations": []}], citations=[], verification=verification)
    html = str(render_answer_html(answer))
    assert "<li>項目A</li>" in html
    assert '<li><mark class="unsupported">項目B</mark></li>' in html


def test_markdown_formatting_survives():
    html = str(render_markdown("**重要**な点:\n\n- 一つ目\n- 二つ目\n\n| 項目 | 日数 |\n|---|---|\n| 有給 | 10 |\n"))
    assert "<strong>重要</strong>" in html
    assert "<li>一つ目</li>" in html
    assert "<table>" in html and "<td>10</td>" in html


INJECTION = (
    "<script>alert('xss')</script>\n\n"
    '<img src=x onerror="alert(1)">\n\n'
    "[押してください](javascript:alert(2))\n\n"
    '<a href="javascript:alert(3)">link</a> <b onmouseover="alert(4)">太字</b>\n\n'
    "![画像](https://evil.example/pixel.png)"
)


def _elements(html: str) -> list:
    return BeautifulSoup(html, "html.parser").find_all(True)


def test_html_and_dangerous_markdown_are_shown_as_text_not_markup():
    html = str(render_markdown(INJECTION))
    elements = _elements(html)
    assert {e.name for e in elements} <= {"p", "a"}
    assert not [e for e in elements if any(attr.startswith("on") for attr in e.attrs)]
    assert not [e for e in elements if e.name == "a" and e.get("href")]
    # The text itself is still there for the reader, as text.
    text = BeautifulSoup(html, "html.parser").get_text()
    assert "<script>alert('xss')</script>" in text
    assert '<img src=x onerror="alert(1)">' in text


def test_answer_text_cannot_forge_footnote_markers(employee):
    forged = "偽物\ue002999\ue003です。"
    answer = make_answer(employee, blocks=[{"text": forged, "citations": []}], citations=[])
    html = str(render_answer_html(answer))
    assert "fnref" not in html
    assert "偽物999です。" in html


def test_safe_links_keep_working_with_rel_noopener():
    html = str(render_markdown("[規程](https://intra.example/policy)"))
    assert 'href="https://intra.example/policy"' in html
    assert "noopener" in html


def test_a_documents_relative_links_are_shown_as_text_not_as_links_into_the_portal(employee):
    # A handbook links its own pages by path; followed from the portal they open a page not found.
    quoted = (
        "[休業ポリシー](/handbook/people-policies/leave/)と[手順](../relocation.md)、[上記](#considerations)を参照。"
    )
    answer = make_answer(employee, blocks=[{"text": quoted, "citations": [1]}])
    html = str(render_answer_html(answer))
    soup = BeautifulSoup(html, "html.parser")
    assert "休業ポリシーと手順、上記を参照。" in soup.get_text()
    hrefs = [a["href"] for a in soup.find_all("a", href=True)]
    # Only the answer's own footnote marker is a link; the address keeps working beside it.
    assert hrefs == [f"#fn-{answer.pk}-1"]
    assert 'href="https://intra.example/p"' in str(render_markdown("[規程](https://intra.example/p)"))


def test_replaced_text_is_shown_without_markers_and_styled_as_abstention(employee):
    answer = make_answer(
        employee,
        answer_text="関連する文書を十分に見つけられませんでした",
        flag_low_grounding=True,
        confidence=Answer.Confidence.LOW,
    )
    view = answer_view(answer)
    assert "fnref" not in str(view.html)
    assert view.is_abstention
    assert view.confidence_label == "信頼度: 低"


def test_view_lists_footnotes_with_context_and_warnings(employee):
    answer = make_answer(employee, warnings=[WARNING_NONE], flag_no_citation=True)
    view = answer_view(answer)
    [note] = view.footnotes
    assert (note.n, note.filename, note.section) == (1, "attendance.md", "有給休暇")
    assert note.context_before.endswith("有給休暇は") and note.context_after.startswith("\n申請は")
    assert view.warnings == [WARNING_NONE]


def test_flags_without_stored_warning_text_still_warn(employee):
    answer = make_answer(employee, flag_fabricated_quote=True)
    assert answer_view(answer).warnings == ["引用が文書中に見つかりません"]


def test_clarification_view_offers_documents(employee):
    clarification = {
        "message": "どの文書についての質問ですか？",
        "options": [
            {"document_id": 7, "filename": "expense.md", "title": "経費規程", "section": "出張", "score": 0.1},
            {"document_id": "bad", "filename": "x.md"},
        ],
    }
    answer = make_answer(
        employee, response_type=Answer.ResponseType.CLARIFICATION, clarification=clarification, citations=[], blocks=[]
    )
    view = answer_view(answer)
    assert view.clarification_message == "どの文書についての質問ですか？"
    assert [(o.document_id, o.filename) for o in view.clarification_options] == [(7, "expense.md")]
    assert view.confidence == ""  # asked back, not graded: no 信頼度 badge (issue 25 #4)


def test_a_not_found_answer_carries_no_confidence(employee):
    not_found = make_answer(
        employee, response_type=Answer.ResponseType.NOT_FOUND, confidence=Answer.Confidence.LOW, citations=[], blocks=[]
    )
    view = answer_view(not_found)
    assert view.is_abstention
    assert (view.confidence, view.confidence_label) == ("", "")
    assert answer_view(make_answer(employee)).confidence == "high"


def test_payload_has_the_reference_shape_plus_citations_and_flags(employee):
    answer = make_answer(
        employee,
        expanded_query="有給休暇は何日もらえますか？ 有給 休み",
        added_keywords=["有給", "休み"],
        verification={
            "citation_presence": {"has_citation": True, "citation_quality": "strong"},
            "grounded_ratio": 1.0,
            "replaced_text": None,
        },
        flag_weak_citation=True,
    )
    payload = answer_payload(answer)
    assert payload["id"] == answer.pk
    assert payload["conversation"] == answer.conversation_id
    assert payload["question"] == "有給休暇は何日もらえますか？"
    assert payload["added_keywords"] == ["有給", "休み"]
    assert payload["response_type"] == "answer"
    assert payload["answer"] == LEAVE_TEXT
    assert payload["sources"] == ["attendance.md"]
    assert payload["sections"] == [{"filename": "attendance.md", "section_title": "有給休暇", "similarity_score": 0.91}]
    assert payload["confidence"] == "high"
    assert payload["version"] == "ragportal-1"
    assert payload["verification"]["citation_presence"]["citation_quality"] == "strong"
    assert payload["verification"]["grounded_ratio"] == 1.0
    assert payload["flags"] == payload["verification"]["flags"] == ["weak_citation"]
    assert payload["citations"] == [
        {
            "n": 1,
            "filename": "attendance.md",
            "section": "有給休暇",
            "cited_text": "入社6ヶ月後に10日付与されます。",
            "start": 12,
            "end": 28,
            "quote_verified": True,
        }
    ]
    assert payload["clarification"] is None


def test_verification_warnings_are_shown_in_the_readers_language(employee):
    """Warnings are stored as (msgid, params) and translated when shown, not when stored."""
    from django.utils import translation

    from qa.presenters import answer_warnings
    from tests.qa.answer_rows import make_answer
    from verification.verdict import WARNING_UNSUPPORTED

    answer = make_answer(employee, warnings=[{"template": WARNING_UNSUPPORTED, "params": {"count": 2}}])
    with translation.override("ja"):
        assert answer_warnings(answer) == ["文書で確認できない記述が含まれています（2文）"]
    with translation.override("en"):
        assert answer_warnings(answer) == [
            "Contains statements that could not be verified in the documents (2 sentences)"
        ]
