"""The review admin in the reader's words: the queue's name on the admin index, the evidence page's labels."""

from __future__ import annotations

import re

import pytest

from qa.models import Answer
from tests.review.conftest import client_for

pytestmark = pytest.mark.django_db

VERDICT = {
    "confidence": "low",
    "flags": ["fabricated_quote"],
    "warnings": [],
    "needs_review": True,
    "grounded_ratio": 0.5,
    "citation_presence": {"has_citation": True, "citation_quality": "strong", "unexpected_sources": []},
    "quote_checks": [
        {"block": 0, "citation": 0, "chunk_index": 1, "verified": False, "start": None, "end": None,
         "reason": "not_found", "found_in_chunk": None, "cited_text": "20日付与"},
    ],
    "sentences": [{"text": "有給は20日です。", "start": 0, "end": 9, "supported": False,
                   "reason": "number_not_in_evidence", "missing": ["20日"]}],
    "replaced_text": None,
    "retrieval_confidence": "medium",
}  # fmt: skip


def _tables(html: str) -> str:
    """The evidence tables of the page, without the full JSON shown for the curious."""
    return re.sub(r"<details>.*?</details>", "", html, flags=re.S)


def test_admin_index_names_the_queue_for_what_a_reviewer_does(reviewer):
    html = client_for(reviewer).get("/admin/").content.decode()
    assert "レビュー待ちの回答" in html
    assert re.search(r'href="/admin/qa/answer/"[^>]*>\s*回答\s*<', html) is None


def test_evidence_page_shows_words_not_raw_keys(make_answer, reviewer):
    answer = make_answer(confidence=Answer.Confidence.LOW, flag_fabricated_quote=True, verification=VERDICT)
    html = _tables(client_for(reviewer).get(f"/admin/qa/answer/{answer.pk}/change/").content.decode())
    for raw in (
        "has_citation",
        "citation_quality",
        ">block<",
        ">chunk_index<",
        ">not_found<",
        ">strong<",
        "number_not_in_evidence",
        "retrieval_confidence",
        ">needs_review<",
        ">medium<",
    ):
        assert raw not in html, raw
    for words in (
        "出典の記載",
        "ファイル名で明示",
        "回答の段落",
        "原文に見つからない",
        "数値が根拠にない",
        "検索の信頼度",
        "レビューが必要",
        "✓ はい",
        "<td>50%</td>",
    ):
        assert words in html, words


def test_evidence_page_in_english_uses_english_words(make_answer, reviewer):
    answer = make_answer(confidence=Answer.Confidence.LOW, flag_fabricated_quote=True, verification=VERDICT)
    response = client_for(reviewer).get(f"/admin/qa/answer/{answer.pk}/change/", headers={"accept-language": "en"})
    html = _tables(response.content.decode())
    assert "Cites a source" in html
    assert "Not found in the source" in html
    assert "has_citation" not in html
