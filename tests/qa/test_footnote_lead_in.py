"""A chat footnote shows the same lead-in as the review page (the demo's lost-PC answer, real pipeline)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from qa.models import Feedback
from qa.services import answer_question

pytestmark = pytest.mark.django_db

LEAD_IN = "紛失・盗難に気づいたら、"
QUOTE = "ITサポートが遠隔で端末をロックし、データを消去します。"


@pytest.mark.usefixtures("demo_glossary")  # a demo question: the demo answers it with its glossary loaded
def test_lost_pc_footnote_keeps_the_lead_in_the_evidence_page_shows(ingest, employee, reviewer):
    ingest("equipment.md")
    answer = answer_question(user=employee, text="PCを紛失したらどうすればいいですか？").answer
    citation = answer.citations.get(cited_text=QUOTE)
    Feedback.objects.create(answer=answer, user=employee, rating=Feedback.Rating.DOWN)  # puts it in the queue

    chat = Client()
    chat.force_login(employee)
    page = chat.get(reverse("qa:conversation", args=[answer.conversation_id])).content.decode()
    review = Client()
    review.force_login(reviewer)
    evidence = review.get(reverse("admin:qa_answer_change", args=[answer.pk])).content.decode()

    # Stored from the start of its sentence, not from the middle of 「紛失・盗難」.
    assert citation.context_before.startswith(f"- {LEAD_IN}")
    assert f'<span class="rv-ctx">- {LEAD_IN}' in evidence
    assert f'<blockquote class="fn-context">{LEAD_IN}' in page
    assert f'<mark class="cited">{QUOTE}</mark>' in page
