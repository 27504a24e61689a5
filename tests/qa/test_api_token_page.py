"""The API token page: a signed-in user creates, sees once, replaces and revokes a personal token."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from qa import api_tokens

pytestmark = pytest.mark.django_db

PAGE = "/api-token/"


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)  # Client.login has no request, which django-axes needs
    return client


def _api_status(key: str) -> int:
    return APIClient().get("/api/v1/conversations", HTTP_AUTHORIZATION=f"Token {key}").status_code


def test_anonymous_user_is_sent_to_sign_in(client):
    response = client.get(PAGE)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert client.post(PAGE, {"action": "create"}).status_code == 302
    assert not Token.objects.exists()


def test_employee_creates_a_token_sees_it_once_and_it_works_with_the_api(employee):
    client = _signed_in(employee)
    assert "トークンはまだありません" in client.get(PAGE).content.decode()

    response = client.post(PAGE, {"action": "create"})
    assert response.status_code == 302 and response["Location"] == PAGE  # POST-redirect-GET
    token = Token.objects.get(user=employee)
    response = client.get(PAGE)
    body = response.content.decode()
    assert response.status_code == 200
    assert token.key in body
    assert "今だけ表示されます" in body
    assert f"Authorization: Token {token.key}" in body  # the curl example is ready to paste
    assert "no-store" in response["Cache-Control"]
    assert _api_status(token.key) == 200

    later = client.get(PAGE).content.decode()
    assert token.key not in later
    assert "有効なトークンがあります" in later


def test_reloading_the_page_after_creating_keeps_the_token_and_hides_the_key(employee):
    """Issue 25 #1: a reload after 「トークンを作成」 re-sends nothing; the copied key keeps working."""
    client = _signed_in(employee)
    shown = client.post(PAGE, {"action": "create"}, follow=True).content.decode()
    key = Token.objects.get(user=employee).key
    assert key in shown

    reloaded = client.get(PAGE)  # what the browser's reload of the redirected page sends
    assert reloaded.status_code == 200
    assert key not in reloaded.content.decode()
    assert "有効なトークンがあります" in reloaded.content.decode()
    assert Token.objects.get(user=employee).key == key
    assert _api_status(key) == 200


def test_a_key_replaced_in_another_tab_is_not_shown(employee):
    client = _signed_in(employee)
    client.post(PAGE, {"action": "create"})  # redirect not followed yet
    api_tokens.api_token_create(user=employee)  # another tab made a newer one
    body = client.get(PAGE).content.decode()
    assert Token.objects.get(user=employee).key not in body
    assert "今だけ表示されます" not in body


def test_a_new_token_replaces_the_old_one(employee):
    client = _signed_in(employee)
    client.post(PAGE, {"action": "create"})
    old = Token.objects.get(user=employee).key
    client.post(PAGE, {"action": "create"})
    new = Token.objects.get(user=employee).key
    assert new != old
    assert _api_status(old) == 401
    assert _api_status(new) == 200


def test_revoking_stops_the_token_and_touches_nobody_elses(employee, outsider):
    client = _signed_in(employee)
    client.post(PAGE, {"action": "create"})
    mine = Token.objects.get(user=employee).key
    theirs = Token.objects.create(user=outsider).key

    response = client.post(PAGE, {"action": "revoke"}, follow=True)
    assert "APIトークンを無効にしました" in response.content.decode()
    assert not Token.objects.filter(user=employee).exists()
    assert _api_status(mine) == 401
    assert _api_status(theirs) == 200


def test_the_page_is_linked_from_the_header(employee):
    assert f'href="{PAGE}"' in _signed_in(employee).get("/").content.decode()


def test_the_readme_curl_example_asks_with_a_token_from_the_page(employee):
    """The README's curl example, sent as written, with a token the page made."""
    import json
    import re
    import shlex
    from pathlib import Path

    from django.conf import settings

    readme = (Path(settings.BASE_DIR) / "README.md").read_text("utf-8")
    section = readme.split("## API tokens", 1)[1].split("\n## ", 1)[0]
    assert "/api-token/" in section
    command = re.search(r"```\n(curl .*?)```", section, re.S).group(1).replace("\\\n", " ")
    args = shlex.split(command)
    url = next(a for a in args if a.startswith("http"))
    headers = dict(args[i + 1].split(": ", 1) for i, a in enumerate(args) if a == "-H")
    body = args[args.index("-d") + 1]

    _signed_in(employee).post(PAGE, {"action": "create"})
    key = Token.objects.get(user=employee).key
    assert headers["Authorization"] == "Token $RAGPORTAL_TOKEN"
    response = APIClient().post(
        url.split("127.0.0.1:8000", 1)[1], data=body, content_type=headers["Content-Type"],
        HTTP_AUTHORIZATION=f"Token {key}",
    )  # fmt: skip
    assert response.status_code == 200, response.content
    payload = response.json()
    assert payload["question"] == json.loads(body)["text"]
    assert {"answer", "citations", "confidence", "verification", "conversation"} <= payload.keys()
