"""The queue page must not issue queries per row."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from qa.models import Answer, Conversation, Feedback

pytestmark = pytest.mark.django_db


def test_queue_with_1000_answers_renders_with_a_bounded_number_of_queries(
    employee, outsider, reviewer, reviewer_client, django_assert_max_num_queries
):
    conversation = Conversation.objects.create(user=employee)
    providers = ("extractive", "anthropic", "gemini")
    Answer.objects.bulk_create(
        Answer(
            conversation=conversation,
            user=employee if i % 2 else outsider,
            question=f"質問 {i}",
            answer_text=f"回答 {i}",
            response_type="answer",
            provider=providers[i % 3],
            model_name="m",
            confidence="low" if i % 3 else "medium",
            flag_fabricated_quote=i % 5 == 0,
            flag_unsupported_claim=i % 3 == 0,  # with low confidence otherwise: every answer is queued
            flag_low_grounding=i % 7 == 0,
            assigned_to=reviewer if i % 4 == 0 else None,
        )
        for i in range(1000)
    )
    raters = [User.objects.create_user(f"rater{i}") for i in range(2)]
    Feedback.objects.bulk_create(
        Feedback(answer=answer, user=raters[i % 2], rating=1 if i % 2 else -1)
        for i, answer in enumerate(Answer.objects.all()[:300])
    )

    with django_assert_max_num_queries(20):
        response = reviewer_client.get("/admin/qa/answer/", {"all": ""})  # every row on one page

    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == 1000
    with django_assert_max_num_queries(20):
        assert reviewer_client.get("/admin/qa/answer/", {"flag": "fabricated_quote", "q": "質問"}).status_code == 200
