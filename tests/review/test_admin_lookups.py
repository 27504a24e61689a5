"""The admin filters only by what it offers: no URL lookup turns a hidden answer into an oracle.

The security report's scenario: as ``reviewer``, ``/admin/qa/answer/?pk=<id>&answer_text__contains=S 1.5``
listed one row and ``…S 1.9`` none, so a binary search with ``__regex`` read a
managers-only answer. Now any parameter the list does not offer is refused before
a query runs (Django's redirect to ``?e=1``, with a message), whatever its value.
Runs the real pipeline for the restricted answer (tests/review/test_access.py).
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from documents.models import Chunk, Document
from qa.models import Answer, SynonymEntry
from ragportal.admin_lookups import UNOFFERED_FILTER
from tests.review.conftest import client_for
from tests.review.test_access import (  # noqa: F401 - fixtures, used by name
    SECRETS,
    ingest,
    manager,
    manager_reviewer,
    managers,
    restricted_answer,
)

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:qa_answer_changelist"
EXPORT = "admin:qa_answer_export"


def _probes(answer: Answer) -> list[tuple[str, str, str]]:
    """(lookup, a value matching the hidden answer, a value matching nothing): the report's probes."""
    retrieved = answer.retrieved[0]
    return [
        ("answer_text__contains", answer.answer_text[:12], "S 1.9 存在しない"),
        ("answer_text__regex", "^" + answer.answer_text[:3], "^zzz"),
        ("question__startswith", answer.question[:4], "存在しない質問"),
        ("retrieved__0__text__icontains", retrieved["text"][:8], "存在しない本文"),
        ("retrieved__0__filename", retrieved["filename"], "nothing.md"),
        ("review_notes__contains", "評価係数", "存在しない"),
        ("pk", str(answer.pk), "0"),
    ]


def _fingerprint(response) -> tuple[int, str, bytes]:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response.status_code, response.get("Location", ""), body


@pytest.mark.parametrize("view", [CHANGELIST, EXPORT])
def test_a_reviewer_learns_nothing_from_lookups_on_a_hidden_answer(
    restricted_answer: Answer, reviewer: User, view: str
) -> None:
    client = client_for(reviewer)
    url = reverse(view)
    for lookup, matching, nothing in _probes(restricted_answer):
        # Each probe really was an oracle: the matching value selects the hidden answer, the other does not.
        this = Answer.objects.filter(pk=restricted_answer.pk)
        assert this.filter(**{lookup: matching}).exists(), lookup
        assert not this.filter(**{lookup: nothing}).exists(), lookup

        hit = client.get(url, {"pk": restricted_answer.pk, lookup: matching})
        miss = client.get(url, {"pk": restricted_answer.pk, lookup: nothing})

        assert _fingerprint(hit) == _fingerprint(miss), lookup
        assert hit.status_code == 302 and hit["Location"] == reverse(CHANGELIST) + "?e=1", lookup


def test_the_refused_list_says_why_and_shows_the_unfiltered_queue_redacted(
    restricted_answer: Answer, reviewer: User
) -> None:
    client = client_for(reviewer)
    response = client.get(reverse(CHANGELIST), {"answer_text__regex": "^S"}, follow=True)
    html = response.content.decode()

    assert response.status_code == 200
    assert str(UNOFFERED_FILTER) in html
    assert list(response.context["cl"].result_list) == [restricted_answer]  # the whole queue, unfiltered
    for secret in SECRETS:
        assert secret not in html


def test_a_reviewer_who_may_read_it_is_refused_the_same_way(restricted_answer: Answer, manager_reviewer: User) -> None:
    """The rule is about what the list offers, not about who asks: one rule, no per-user branch."""
    response = client_for(manager_reviewer).get(reverse(CHANGELIST), {"answer_text__contains": "1.5"})
    assert response.status_code == 302 and response["Location"].endswith("?e=1")


@pytest.mark.parametrize("view", [CHANGELIST, EXPORT])
def test_json_containment_is_a_redirect_not_a_server_error(
    restricted_answer: Answer, admin_user: User, view: str
) -> None:
    """``retrieved__contains`` raised NotSupportedError on SQLite (a 500), even for a superuser."""
    response = client_for(admin_user).get(reverse(view), {"retrieved__contains": "x"})
    assert response.status_code == 302 and response["Location"] == reverse(CHANGELIST) + "?e=1"


def test_offered_filters_search_ordering_paging_and_dates_still_work(
    restricted_answer: Answer, make_answer, reviewer: User
) -> None:
    other = make_answer("あいさつの決まりは？", confidence=Answer.Confidence.LOW)
    client = client_for(reviewer)
    year = restricted_answer.created_at.year

    for params in (
        {"confidence": "low", "status": "open", "flag": "no_citation"},
        {"created_at__year": str(year)},
        {"created_at__gte": "2000-01-01 00:00:00+09:00", "created_at__lt": "2999-01-01 00:00:00+09:00"},
        {"q": "あいさつ", "o": "-7", "p": "1"},
        {"all": "", "_facets": "1"},
    ):
        response = client.get(reverse(CHANGELIST), params)
        assert response.status_code == 200, (params, response.get("Location"))
    assert list(client.get(reverse(CHANGELIST), {"q": "あいさつ"}).context["cl"].result_list) == [other]
    export = client.get(reverse(EXPORT), {"q": "あいさつ"})
    assert export.status_code == 200 and "あいさつの決まりは？" in b"".join(export.streaming_content).decode(
        "utf-8-sig"
    )


def test_sorting_by_question_does_not_place_a_hidden_answer_by_its_text(
    restricted_answer: Answer, make_answer, reviewer: User
) -> None:
    """Hidden questions sort as if empty: their position says nothing about their words."""
    # "あ" sorts before the hidden question (「賞与…」) and "ん" before it too; both are readable.
    readable = [make_answer(q, confidence=Answer.Confidence.LOW) for q in ("あいさつの決まりは？", "んー、休暇は？")]
    client = client_for(reviewer)
    column = 1  # the question, after the action checkbox

    ascending = list(client.get(reverse(CHANGELIST), {"o": str(column)}).context["cl"].result_list)
    descending = list(client.get(reverse(CHANGELIST), {"o": f"-{column}"}).context["cl"].result_list)

    assert ascending == [restricted_answer, *readable]
    assert descending == [*reversed(readable), restricted_answer]


# --- every other admin list of answers' material: conversations, documents, versions, chunks --------------


@pytest.fixture
def listed_rows(restricted_answer: Answer) -> dict[str, tuple[str, str, str]]:
    """Per admin list: (URL, a text lookup matching a row, its value)."""
    chunk = Chunk.objects.filter(document__filename="evaluation.md").first()
    document = Document.objects.get(filename="evaluation.md")
    SynonymEntry.objects.create(term="賞与係数", expansions="評価係数")
    return {
        "conversation": ("/admin/qa/conversation/", "title__contains", restricted_answer.conversation.title[:3]),
        "document": ("/admin/documents/document/", "title__contains", document.title[:2]),
        "documentversion": ("/admin/documents/documentversion/", "text__contains", chunk.text[:8]),
        "chunk": ("/admin/documents/chunk/", "text__contains", chunk.text[:8]),
        "synonymentry": ("/admin/qa/synonymentry/", "expansions__contains", "評価係数"),
    }


@pytest.mark.parametrize("name", ["conversation", "document", "documentversion", "chunk", "synonymentry"])
def test_every_admin_list_refuses_lookups_it_does_not_offer(
    listed_rows: dict[str, tuple[str, str, str]], admin_user: User, reviewer: User, name: str
) -> None:
    url, lookup, matching = listed_rows[name]
    admin = client_for(admin_user)

    assert admin.get(url).status_code == 200
    hit, miss = admin.get(url, {lookup: matching}), admin.get(url, {lookup: "存在しない値"})
    assert _fingerprint(hit) == _fingerprint(miss)
    assert hit.status_code == 302 and hit["Location"] == url + "?e=1"
    # A reviewer is refused these lists altogether (the synonym dictionary excepted), whatever the value.
    as_reviewer = client_for(reviewer)
    hit, miss = as_reviewer.get(url, {lookup: matching}), as_reviewer.get(url, {lookup: "存在しない値"})
    assert hit.status_code == miss.status_code == (302 if name == "synonymentry" else 403)
    assert hit.get("Location") == miss.get("Location")


def test_the_document_lists_keep_their_own_filters(restricted_answer: Answer, admin_user: User) -> None:
    admin = client_for(admin_user)
    document = Document.objects.get(filename="evaluation.md")
    for url, params in (
        ("/admin/documents/document/", {"status__exact": "ready", "q": "evaluation"}),
        ("/admin/documents/document/", {"groups__id__exact": str(document.groups.first().pk)}),
        ("/admin/documents/chunk/", {"document__id__exact": str(document.pk)}),
        ("/admin/documents/documentversion/", {"created_at__year": str(document.created_at.year)}),
    ):
        response = admin.get(url, params)
        assert response.status_code == 200, (url, params, response.get("Location"))
        assert response.context["cl"].result_count >= 1, (url, params)


def test_anonymous_lookups_go_to_the_login_page(restricted_answer: Answer) -> None:
    response = Client().get(reverse(CHANGELIST), {"answer_text__contains": "1.5"})
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
