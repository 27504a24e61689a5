"""Login throttling (django-axes): the login page, the admin login and API tokens.

The security report (issue 20, item 8): 40 wrong passwords for ``admin`` in 14 s,
then the right one logged in. Now, after ``AXES_FAILURE_LIMIT`` failures from one
address or for one account, the right password is refused too, with a message on
the form and 429 + ``Retry-After``; a wrong API token counts the same way (by
address). Once the cool-off has passed, the right password works again.
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from ragportal.login_throttle import client_ip
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

LIMIT = 5
LOCKED_JA = "ログインの失敗が続いたため、しばらくログインできません。"
LOCKED_EN = "Too many failed sign-ins"
WRONG_JA = "ユーザー名またはパスワードが正しくありません。"


def _post(client: Client, url: str, username: str, password: str, address: str = "127.0.0.1", **headers: str):
    return client.post(url, {"username": username, "password": password}, REMOTE_ADDR=address, headers=headers)


def _signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.parametrize("url", ["/accounts/login/", "/admin/login/"])
def test_the_right_password_is_refused_after_repeated_failures(url: str, admin_user: User) -> None:
    client = Client()
    for attempt in range(1, LIMIT):
        response = _post(client, url, "admin", f"wrong-{attempt}")
        assert response.status_code == 200, attempt  # the form again, with "wrong password"
    locking = _post(client, url, "admin", "wrong-last")
    refused = _post(client, url, "admin", PASSWORD)

    for response in (locking, refused):
        body = response.content.decode()
        assert response.status_code == 429
        assert int(response["Retry-After"]) == 15 * 60
        assert LOCKED_JA in body and "15 分ほど待ってから" in body
        assert 'name="password"' in body  # still the login form, with the message on it
    assert not _signed_in(client)


def test_the_portal_form_keeps_its_plain_message_below_the_limit(employee: User) -> None:
    response = _post(Client(), "/accounts/login/", "employee", "wrong")
    assert response.status_code == 200
    assert WRONG_JA in response.content.decode() and LOCKED_JA not in response.content.decode()


def test_the_message_is_translated(employee: User) -> None:
    client = Client()
    for attempt in range(LIMIT):
        response = _post(client, "/accounts/login/", "employee", f"wrong-{attempt}", **{"accept-language": "en"})
    assert response.status_code == 429
    assert LOCKED_EN in response.content.decode()


def test_failures_count_per_address_across_accounts(employee: User) -> None:
    """Guessing one password for many accounts from one address: the address is locked."""
    client = Client()
    for attempt in range(LIMIT):
        _post(client, "/accounts/login/", f"someone-{attempt}", "wrong", address="10.0.0.9")

    assert _post(client, "/accounts/login/", "employee", PASSWORD, address="10.0.0.9").status_code == 429
    assert not _signed_in(client)
    elsewhere = Client()
    assert _post(elsewhere, "/accounts/login/", "employee", PASSWORD, address="10.0.0.10").status_code == 302
    assert _signed_in(elsewhere)


def test_failures_count_per_account_across_addresses(employee: User) -> None:
    """Guessing one account's password from many addresses: the account is locked."""
    for attempt in range(LIMIT):
        _post(Client(), "/accounts/login/", "employee", "wrong", address=f"10.0.1.{attempt}")

    client = Client()
    assert _post(client, "/accounts/login/", "employee", PASSWORD, address="10.0.2.1").status_code == 429
    assert not _signed_in(client)


def test_a_forged_forwarded_address_does_not_escape_the_count(employee: User) -> None:
    """Without a configured proxy, X-Forwarded-For is the client's own words and is ignored."""
    client = Client()
    for attempt in range(LIMIT):
        _post(client, "/accounts/login/", f"someone-{attempt}", "wrong", **{"x-forwarded-for": f"192.0.2.{attempt}"})
    response = _post(client, "/accounts/login/", "employee", PASSWORD, **{"x-forwarded-for": "192.0.2.200"})
    assert response.status_code == 429


def test_behind_a_proxy_the_client_address_is_the_one_the_proxy_appended(rf) -> None:
    request = rf.get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.5, 10.0.0.7")
    assert client_ip(request) == "127.0.0.1"  # no proxy configured: the connection's address
    with override_settings(RAG_PROXY_COUNT=1):
        assert client_ip(request) == "10.0.0.7"  # what the client wrote on the left is not trusted
    with override_settings(RAG_PROXY_COUNT=2):
        assert client_ip(request) == "203.0.113.5"


@override_settings(AXES_COOLOFF_TIME=timedelta(seconds=1))
def test_the_right_password_works_again_after_the_cool_off(employee: User) -> None:
    client = Client()
    for attempt in range(LIMIT):
        _post(client, "/accounts/login/", "employee", f"wrong-{attempt}")
    refused = _post(client, "/accounts/login/", "employee", PASSWORD)
    assert refused.status_code == 429 and refused["Retry-After"] == "1"

    time.sleep(1.2)
    response = _post(client, "/accounts/login/", "employee", PASSWORD)
    assert response.status_code == 302 and _signed_in(client)


def test_wrong_api_tokens_get_429_with_retry_after_then_even_a_right_one(employee: User) -> None:
    token = Token.objects.create(user=employee)
    api = APIClient()
    statuses = [
        api.get(
            "/api/v1/conversations", HTTP_AUTHORIZATION=f"Token wrong{attempt:036d}", REMOTE_ADDR="10.0.3.1"
        ).status_code
        for attempt in range(LIMIT)
    ]
    assert statuses == [401] * (LIMIT - 1) + [429]

    refused = api.get("/api/v1/conversations", HTTP_AUTHORIZATION=f"Token {token.key}", REMOTE_ADDR="10.0.3.1")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) == 15 * 60
    assert LOCKED_JA in refused.json()["detail"]
    # Another address is not affected, and the token itself still works there.
    assert (
        api.get("/api/v1/conversations", HTTP_AUTHORIZATION=f"Token {token.key}", REMOTE_ADDR="10.0.3.2").status_code
        == 200
    )


def test_failed_tokens_from_many_addresses_do_not_lock_everybody(employee: User) -> None:
    """A wrong token names no account: failures count per address only, never all together."""
    token = Token.objects.create(user=employee)
    api = APIClient()
    for attempt in range(LIMIT * 2):
        api.get("/api/v1/conversations", HTTP_AUTHORIZATION="Token nope", REMOTE_ADDR=f"10.0.4.{attempt}")
    assert (
        api.get("/api/v1/conversations", HTTP_AUTHORIZATION=f"Token {token.key}", REMOTE_ADDR="10.0.5.1").status_code
        == 200
    )
