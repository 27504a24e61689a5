"""Issue 14: an unsupported sentence is marked in the chat with its reason in words (ja, en)."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.utils import translation

from qa.presenters import answer_view
from tests.qa.answer_rows import make_answer

pytestmark = pytest.mark.django_db

S1 = "有給休暇は入社6ヶ月後に20日付与されます。"
S2 = "申請は総務部へ連絡してください。"
S3 = "未消化分は翌年度に買い取られます。"


def _answer(user):
    text = S1 + S2 + S3
    spans = [(0, len(S1)), (len(S1), len(S1) + len(S2)), (len(S1) + len(S2), len(text))]
    verification = {
        "sentences": [
            {
                "text": S1,
                "start": spans[0][0],
                "end": spans[0][1],
                "supported": False,
                "reason": "number_not_in_evidence",
                "missing": ["20日"],
                "closest": "有給休暇は入社6ヶ月後に10日付与されます",
            },
            {
                "text": S2,
                "start": spans[1][0],
                "end": spans[1][1],
                "supported": False,
                "reason": "unknown_term",
                "missing": ["総務部"],
            },
            {
                "text": S3,
                "start": spans[2][0],
                "end": spans[2][1],
                "supported": False,
                "reason": "meaning_not_in_evidence",
                "missing": [],
            },
        ]
    }
    return make_answer(user, blocks=[{"text": text, "citations": []}], citations=[], verification=verification)


def test_each_marked_sentence_gets_its_reason_in_japanese(employee):
    with translation.override("ja"):
        view = answer_view(_answer(employee))
    assert [(u.text, u.reason) for u in view.unsupported] == [
        (S1, "『20日』が根拠の文書にありません"),
        (S2, "『総務部』が根拠の文書にありません"),
        (S3, "根拠の文書に書かれていない内容を含みます"),
    ]


def test_reasons_in_english(employee):
    with translation.override("en"):
        view = answer_view(_answer(employee))
    assert [u.reason for u in view.unsupported] == [
        "“20日” is not in the source documents",
        "“総務部” is not in the source documents",
        "Says something the source documents do not",
    ]


def test_the_chat_fragment_shows_the_reason_beside_the_marked_sentence(employee):
    answer = _answer(employee)
    request = RequestFactory().get("/")
    request.user = employee
    with translation.override("ja"):
        html = render_to_string(
            "qa/partials/_answer.html", {"view": answer_view(answer), "answer": answer}, request=request
        )
    assert '<mark class="unsupported">有給休暇は入社6ヶ月後に20日付与されます。</mark>' in html
    assert "『20日』が根拠の文書にありません" in html
    assert "根拠の文書に書かれていない内容を含みます" in html


def test_a_supported_answer_lists_no_reasons(employee):
    answer = make_answer(
        employee,
        verification={
            "sentences": [{"text": S1, "start": 0, "end": len(S1), "supported": True, "reason": "supported"}]
        },
    )
    assert answer_view(answer).unsupported == []
