"""Inputs that were server errors (issue 20, finding 6) are refused with a 4xx and a message, with DEBUG off.

- a lone surrogate (``"\\ud800"``) anywhere in a JSON body: ``UnicodeEncodeError``;
- a group id too large for its column in the upload form (and any ``pk__in``): ``OverflowError``;
- a 5,000-digit group id in the documents API: ``ValueError`` from ``int()``;
- ``OPTIONS /api/docs/``: ``TemplateDoesNotExist``.

Each is fixed where the input enters (the JSON parser, the ``in`` lookup, the
id parser, the docs view's methods), so no endpoint has its own copy.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from documents.models import Document
from qa.models import Feedback
from tests.conftest import as_user
from tests.documents.conftest import TRAVEL_MD
from tests.qa.answer_rows import make_answer

pytestmark = pytest.mark.django_db

SURROGATE_MESSAGE = "JSONの文字列に使えない文字（対になっていないサロゲート）が含まれています。"
TOO_LARGE = "9" * 20  # beyond SQLite's (and PostgreSQL's) integer columns
HUGE = "9" * 5000  # beyond what int() converts from a string


@pytest.fixture(autouse=True)
def _production_errors(settings: Any) -> None:
    settings.DEBUG = False


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.raise_request_exception = False  # an exception must show up as the 500 a user would get
    return as_user(client, user)


def _browser(user: Any) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def _travel() -> SimpleUploadedFile:
    return SimpleUploadedFile("travel.md", TRAVEL_MD.encode(), content_type="text/markdown")


@pytest.mark.parametrize(
    "body",
    [
        '{"rating": "\\ud800"}',
        '{"rating": -1, "reason": "\\ud800"}',
        '{"rating": 1, "comment": "a\\udfffb"}',
        '{"rating": 1, "\\ud800": 1}',
    ],
    ids=["rating", "reason", "comment", "key"],
)
def test_a_lone_surrogate_in_feedback_json_is_a_400_with_a_message(employee, body):
    answer = make_answer(employee)
    response = _api(employee).post(f"/api/v1/answers/{answer.pk}/feedback", body, content_type="application/json")

    assert response.status_code == 400
    assert response.json() == {"detail": SURROGATE_MESSAGE}
    assert not Feedback.objects.exists()


def test_a_lone_surrogate_reaches_no_json_endpoint(employee):
    client = _api(employee)
    for path in ("/api/v1/ask", "/api/v1/search"):
        response = client.post(path, '{"text": "\\ud800", "query": "\\ud800"}', content_type="application/json")
        assert (response.status_code, response.json()) == (400, {"detail": SURROGATE_MESSAGE}), path


def test_a_paired_surrogate_escape_is_an_ordinary_character(employee):
    answer = make_answer(employee)
    body = '{"rating": 1, "comment": "\\ud83d\\ude00"}'  # one emoji, escaped as JSON spells it

    response = _api(employee).post(f"/api/v1/answers/{answer.pk}/feedback", body, content_type="application/json")

    assert response.status_code == 200
    assert Feedback.objects.get().comment == "\U0001f600"


def test_the_feedback_form_refuses_a_reason_that_is_not_one_of_its_choices(employee):
    """The HTMX form posts form-encoded bytes: the surrogate's would-be UTF-8 decodes to U+FFFD, a wrong choice."""
    answer = make_answer(employee)
    response = _browser(employee).post(
        f"/answers/{answer.pk}/feedback/",
        "rating=-1&reason=%ED%A0%80",
        content_type="application/x-www-form-urlencoded",
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 200  # htmx swaps 2xx only: the error comes back in the fragment
    assert "理由の選択肢が正しくありません。" in response.content.decode()
    assert not Feedback.objects.exists()


def test_the_upload_form_refuses_a_group_id_too_large_for_the_database(owner):
    response = _browser(owner).post("/documents/upload/", {"file": _travel(), "groups": [TOO_LARGE]})

    assert response.status_code == 400
    assert f"正しく選択してください。 {TOO_LARGE} は候補にありません。" in response.content.decode()
    assert not Document.objects.exists()


def test_an_in_lookup_ignores_numbers_its_column_cannot_hold(owner):
    """The cause of the upload form's 500, fixed for every integer column (the admin's group pickers too)."""
    owners = Group.objects.get(name="owners")
    assert list(Group.objects.filter(pk__in=[10**20, owners.pk, -(10**20)])) == [owners]
    assert list(Group.objects.filter(pk__in=[10**20])) == []
    assert Group.objects.exclude(pk__in=[10**20]).count() == Group.objects.count()


@pytest.mark.parametrize("group", [HUGE, TOO_LARGE], ids=["5000-digits", "20-digits"])
def test_the_documents_api_refuses_a_group_id_it_cannot_hold(owner, group):
    response = _api(owner).post("/api/v1/documents/", {"file": _travel(), "groups": [group]}, format="multipart")

    assert response.status_code == 400
    assert f"「{group}」というグループはありません。" in str(response.json()["groups"])
    assert not Document.objects.exists()


def test_options_on_the_api_docs_page_is_a_405_with_a_message(employee):
    client = _browser(employee)
    response = client.options("/api/docs/")

    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"
    assert "このページは表示（GET）のみに対応しています。" in response.content.decode()
    assert client.get("/api/docs/").status_code == 200  # the page itself still opens
