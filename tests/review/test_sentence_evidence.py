"""Issue 14: the evidence page shows each sentence's reason and the evidence sentence closest to it."""

from __future__ import annotations

import pytest

from qa.models import Answer
from tests.review.conftest import client_for

pytestmark = pytest.mark.django_db


def test_evidence_page_shows_reason_and_closest_evidence_sentence(make_answer, reviewer):
    verification = {
        "confidence": "medium",
        "flags": ["unsupported_claim"],
        "sentences": [
            {
                "text": "有給は20日です。",
                "start": 0,
                "end": 9,
                "supported": False,
                "reason": "number_not_in_evidence",
                "missing": ["20日"],
                "closest": "有給休暇は入社6ヶ月後に10日付与されます",
            },
            {
                "text": "未消化分は買い取られます。",
                "start": 9,
                "end": 22,
                "supported": False,
                "reason": "meaning_not_in_evidence",
                "missing": [],
                "closest": "有給申請は最低3日前までに申請してください",
            },
        ],
    }
    answer = make_answer(confidence=Answer.Confidence.MEDIUM, flag_unsupported_claim=True, verification=verification)
    html = client_for(reviewer).get(f"/admin/qa/answer/{answer.pk}/change/").content.decode()
    assert "最も近い根拠の文" in html
    assert "<td>有給休暇は入社6ヶ月後に10日付与されます</td>" in html
    assert "数値が根拠にない（根拠にない語: 20日）" in html
    assert "意味の近い根拠の文がない" in html
    assert "<td>有給申請は最低3日前までに申請してください</td>" in html
