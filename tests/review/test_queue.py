"""The queue rule and the owners' "needs a document fix" list, straight on the ORM."""

from __future__ import annotations

import pytest

from documents.models import Document
from qa.models import Answer, Feedback
from tests.review.conftest import cite, snapshot
from verification.review.notices import documents_needing_fix
from verification.review.queue import queue_assign, queue_set_status, review_queue

pytestmark = pytest.mark.django_db


def test_queue_takes_low_confidence_flagged_and_disliked_answers_only(make_answer, rate, reviewer):
    low = make_answer("低い", confidence=Answer.Confidence.LOW)
    fabricated_quote = make_answer("引用", confidence=Answer.Confidence.MEDIUM, flag_fabricated_quote=True)
    unsupported = make_answer("主張", flag_unsupported_claim=True)
    provider_error = make_answer(
        "失敗", response_type=Answer.ResponseType.ERROR, flag_provider_error=True, confidence=""
    )
    disliked = make_answer("👎")
    rate(disliked, reviewer, Feedback.Rating.DOWN)
    liked = make_answer("👍")
    rate(liked, reviewer, Feedback.Rating.UP)
    fine = make_answer("問題なし")
    # Soft flags alone do not queue an answer: they already lowered its confidence.
    weak_only = make_answer("弱い出典", confidence=Answer.Confidence.MEDIUM, flag_weak_citation=True)

    queued = list(review_queue())

    assert set(queued) == {low, fabricated_quote, unsupported, provider_error, disliked}
    assert liked not in queued and fine not in queued and weak_only not in queued
    assert queued[0] == disliked and queued[-1] == low  # newest first


def test_queue_rows_carry_feedback_counts(make_answer, rate, reviewer, employee, outsider):
    answer = make_answer(confidence=Answer.Confidence.LOW)
    rate(answer, reviewer, Feedback.Rating.DOWN)
    rate(answer, outsider, Feedback.Rating.DOWN)
    rate(answer, employee, Feedback.Rating.UP)

    row = review_queue().get()

    assert (row.thumbs_up, row.thumbs_down) == (1, 2)


def test_set_status_counts_only_rows_that_moved(make_answer):
    a = make_answer(confidence="low")
    b = make_answer(confidence="low", review_status=Answer.ReviewStatus.RESOLVED)

    moved = queue_set_status(answers=review_queue(), status=Answer.ReviewStatus.RESOLVED)

    assert moved == 1
    a.refresh_from_db()
    assert a.review_status == Answer.ReviewStatus.RESOLVED
    with pytest.raises(ValueError):
        queue_set_status(answers=review_queue(), status="bogus")
    assert b.review_status == Answer.ReviewStatus.RESOLVED


def test_assign_counts_only_rows_that_changed(make_answer, reviewer):
    make_answer(confidence="low")
    make_answer(confidence="low", assigned_to=reviewer)

    assert queue_assign(answers=review_queue(), reviewer=reviewer) == 1
    assert set(review_queue().values_list("assigned_to", flat=True)) == {reviewer.pk}


def test_documents_needing_fix_lists_answers_involving_the_owners_documents(
    make_answer, attendance, owner, other_owner
):
    fix = Answer.ReviewStatus.NEEDS_DOCUMENT_FIX
    cited = make_answer("引用あり", confidence="low", review_status=fix)
    cite(cited, attendance, "入社6ヶ月後に10日付与されます。")
    retrieved_only = make_answer("検索のみ", confidence="low", review_status=fix, retrieved=[snapshot(attendance)])
    resolved = make_answer("解決済み", confidence="low", review_status=Answer.ReviewStatus.RESOLVED)
    cite(resolved, attendance, "入社6ヶ月後に10日付与されます。")
    foreign_doc = Document.objects.create(title="経費", filename="expense.md", owner=other_owner)
    foreign = make_answer(
        "他人の文書",
        confidence="low",
        review_status=fix,
        retrieved=[{"chunk_id": 999, "filename": foreign_doc.filename, "text": "経費は月末締め", "score": 0.1}],
    )

    mine = list(documents_needing_fix(owner))

    assert mine == [retrieved_only, cited]
    assert list(documents_needing_fix(other_owner)) == [foreign]


def test_documents_needing_fix_survives_the_chunk_being_deleted(make_answer, attendance, owner):
    answer = make_answer(confidence="low", review_status=Answer.ReviewStatus.NEEDS_DOCUMENT_FIX)
    cite(answer, attendance, "申請は3日前までに行ってください。")
    attendance.delete()

    assert list(documents_needing_fix(owner)) == [answer]
