"""An answer whose document was restricted after it was given is withheld from an asker who may no longer read it.

Real pipeline (issue 20, finding 5): the employee asks about a document open to
everyone; its owner then limits it to ``managers``. The stored answer stays (for
reviewers who may read it), but the employee's API, conversation page and
follow-up questions no longer carry its text, quotes or file name; a reader who
may still read the document sees it as before. A deleted document keeps the
answer readable (and stale) when it was open to everyone, and withheld when it
was restricted (its readers can no longer be told).
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from documents.services import document_delete
from qa.models import Answer
from qa.selectors import WITHHELD_MESSAGE
from qa.services import answer_question
from tests.conftest import as_user
from tests.qa.answer_rows import LEAVE_TEXT, make_answer
from tests.qa.conftest import anthropic_message, text_block
from tests.qa.providers.conftest import Reply

QUESTION = "有給休暇は何日もらえますか？"
MESSAGE = str(WITHHELD_MESSAGE)


@pytest.fixture
def answered(ingest, employee):
    """attendance.md open to everyone, and the employee's answer quoting it."""
    document = ingest("attendance.md")
    answer = answer_question(user=employee, text=QUESTION).answer
    assert answer.response_type == Answer.ResponseType.ANSWER and "10日" in answer.answer_text
    quotes = list(answer.citations.values_list("cited_text", flat=True))
    assert quotes and all(quotes)
    return document, answer, quotes


def _restrict(ingest, document, group: str = "managers") -> None:
    """The owner limits the document to ``group`` (same file again, new readers)."""
    ingest("attendance.md", document=document, groups=[group])


def _page(user, answer: Answer) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("qa:conversation", args=[answer.conversation_id]))
    assert response.status_code == 200
    return response.content.decode()


def _leaks(text: str, answer: Answer, quotes: list[str]) -> list[str]:
    """What of the answer's content ``text`` still shows (its text, quotes, source file name)."""
    pieces = ["10日", answer.answer_text.strip(), *quotes, "attendance.md"]
    return [piece for piece in pieces if piece in text]


def test_the_restricted_answer_is_withheld_in_the_api(answered, ingest, employee, api):
    document, answer, quotes = answered
    _restrict(ingest, document)

    response = as_user(api, employee).get(f"/api/v1/answers/{answer.pk}")
    assert response.status_code == 200
    body = response.json()
    assert body["withheld"] is True
    assert body["answer"] == MESSAGE
    assert body["citations"] == [] and body["sources"] == [] and body["sections"] == []
    assert body["question"] == QUESTION  # the asker's own words stay
    raw = json.dumps(body, ensure_ascii=False)
    assert _leaks(raw, answer, quotes) == []

    for listing in (f"/api/v1/answers?conversation={answer.conversation_id}", "/api/v1/answers"):
        raw = json.dumps(api.get(listing).json(), ensure_ascii=False)
        assert MESSAGE in raw and _leaks(raw, answer, quotes) == [], listing
    raw = json.dumps(api.get(f"/api/v1/conversations/{answer.conversation_id}").json(), ensure_ascii=False)
    assert MESSAGE in raw and _leaks(raw, answer, quotes) == []

    # Kept for reviewers who may read it.
    assert "10日" in Answer.objects.get(pk=answer.pk).answer_text


def test_the_restricted_answer_is_withheld_on_the_conversation_page(answered, ingest, employee):
    document, answer, quotes = answered
    assert _leaks(_page(employee, answer), answer, quotes) != []  # shown while the document is open

    _restrict(ingest, document)
    html = _page(employee, answer)
    assert MESSAGE in html
    assert QUESTION in html
    assert _leaks(html, answer, quotes) == []
    assert 'class="footnotes"' not in html and 'id="feedback-' not in html


def test_a_reader_who_may_still_read_it_sees_the_answer(answered, ingest, employee, api):
    document, answer, quotes = answered
    _restrict(ingest, document)
    employee.groups.add(Group.objects.get(name="managers"))

    body = as_user(api, employee).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["withheld"] is False
    assert "10日" in body["answer"] and [c["cited_text"] for c in body["citations"]] == quotes
    html = _page(employee, answer)
    assert MESSAGE not in html and "10日" in html and quotes[0] in html


def test_an_answer_about_a_deleted_open_document_stays_readable_and_stale(answered, employee, api):
    document, answer, _quotes = answered
    document_delete(document=document)
    body = as_user(api, employee).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["withheld"] is False and body["stale"] is True
    assert "10日" in body["answer"]


def test_an_answer_about_a_deleted_restricted_document_is_withheld(ingest, employee, api):
    managers = Group.objects.get_or_create(name="managers")[0]
    employee.groups.add(managers)
    document = ingest("attendance.md", groups=["managers"])
    answer = answer_question(user=employee, text=QUESTION).answer
    assert "10日" in answer.answer_text
    document_delete(document=document)

    body = as_user(api, employee).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["withheld"] is True and body["answer"] == MESSAGE and "10日" not in json.dumps(body, ensure_ascii=False)


def test_a_follow_up_does_not_hand_the_withheld_text_to_the_provider(ingest, employee, anthropic_server):
    attendance = ingest("attendance.md")
    ingest("expense.md")
    earlier = make_answer(employee, question=QUESTION)  # quotes attendance.md: 「…10日付与されます。」
    assert earlier.citations.get().document_id == attendance.pk
    _restrict(ingest, attendance)
    anthropic_server.script(Reply(body=anthropic_message(text_block("交通費は申請できます。"))))

    answer_question(user=employee, text="交通費の申請方法を教えてください。", conversation=earlier.conversation)

    assert anthropic_server.requests  # the answer and, ungrounded, its strict retry: each carries the history
    for request in anthropic_server.requests:
        assert request.body["messages"][:2] == [
            {"role": "user", "content": QUESTION},
            {"role": "assistant", "content": MESSAGE},
        ]
        assert LEAVE_TEXT not in json.dumps(request.body, ensure_ascii=False)
