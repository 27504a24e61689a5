"""An answer sharing none of the question's terms, from a weakly retrieved passage, is "not found"
(qa.decision.answer_stands)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils.html import escape

from qa.decision import answer_stands
from qa.models import Answer
from qa.services import answer_question
from tests.qa.conftest import calibrated
from verification.grounding import NOT_FOUND_MESSAGE

CORPUS = {
    "住宅手当.md": (
        "# 住宅手当\n\n## 対象\n\n住宅手当の対象となるのは次の人です。\n\n"
        "- 新卒で入社した人のうち、実家から勤務地まで片道90分以上かかる人（入社から5年間）\n\n"
        "## 金額\n\n住宅手当は月額2万円です。\n"
    ),
    "出張旅費.md": (
        "# 出張旅費\n\n## 交通手段\n\n新幹線は普通車指定席を利用できます。部長以上はグリーン車も利用できます。\n\n"
        "## 宿泊費\n\n宿泊費の上限は1泊12,000円です。\n"
    ),
    "会社概要.md": "# 会社概要\n\n## 拠点\n\n本社は東京、支社は大阪にあります。\n",
}


def test_only_an_answer_sharing_no_term_from_a_weak_passage_is_withdrawn() -> None:
    assert not answer_stands(retrieval="low", shared_terms=0.0)
    assert answer_stands(retrieval="medium", shared_terms=0.0)  # a close passage worded otherwise
    assert answer_stands(retrieval="low", shared_terms=0.5)  # the question's words in a weakly retrieved passage
    assert answer_stands(retrieval="low", shared_terms=None)  # English: terms not compared
    assert answer_stands(retrieval="low", shared_terms=0.0, two_part=True)  # one part answered is still an answer


@pytest.mark.django_db
def test_a_question_no_sentence_answers_is_not_found_though_its_words_are_the_documents(
    ingest, employee, reviewer, settings
) -> None:
    """「新大阪から東京まで新幹線で何分？」 over documents that write 新幹線, 東京 and 大阪 and give no travel time: the
    commute rule's 「片道90分」 is minutes of something else, sharing none of the question's terms. With no passage
    as close as 中 needs, that is said as not found; the provider's text stays for reviewers. An answer sharing the
    question's words, from an equally weak passage, stays."""
    for filename, text in CORPUS.items():
        ingest(text=text, filename=filename)
    # Every passage below 中, and no off-topic rule: only verification's finding decides.
    calibrated(confident=0.995, medium=0.99)
    settings.RAG_OFF_TOPIC_SIMILARITY = 0.0

    trip = answer_question(user=employee, text="新大阪から東京まで新幹線で何分くらいかかる？").answer
    assert trip.response_type == Answer.ResponseType.NOT_FOUND, (trip.answer_text, trip.flags)
    assert trip.answer_text == NOT_FOUND_MESSAGE
    assert trip.usage["decision"] == {"outcome": "not_found", "reasons": ["on_topic", "no_fitting_answer"]}
    assert not trip.citations.exists()
    # What the provider wrote stays for reviewers, on the answer's evidence page.
    reviewer_client = Client()
    reviewer_client.force_login(reviewer)
    page = reviewer_client.get(f"/admin/qa/answer/{trip.pk}/change/").content.decode()
    assert "質問と別のことを述べていたため「見つかりませんでした」に置き換え" in page
    assert trip.original_answer_text and escape(trip.original_answer_text.splitlines()[0]) in page

    allowance = answer_question(user=employee, text="住宅手当は月額いくら？").answer
    assert allowance.response_type == Answer.ResponseType.ANSWER, allowance.flags
    assert "2万円" in allowance.answer_text
    assert "low_retrieval" in allowance.flags and allowance.confidence == "low"
