"""Login throttling with django-axes: the login forms, the admin login and API tokens.

django-axes counts failed sign-ins in the database (so every web process sees the
same counts) and, after ``AXES_FAILURE_LIMIT`` failures from one address or for one
account within ``AXES_COOLOFF_TIME``, refuses further attempts, the right password
included, until the cool-off has passed. This module adds what the portal needs
on top of it, one place for each:

- the message (Japanese through gettext), shown on the login form and the admin login
  (:class:`ThrottledAuthenticationForm`, :class:`ThrottledAdminAuthenticationForm`);
- the response: status 429 with ``Retry-After`` (``AXES_LOCKOUT_CALLABLE``), keeping
  the page the view rendered, so the user sees the form with the message;
- the API: a wrong token counts as a failed sign-in from that address, and a locked
  address gets 429 with ``Retry-After`` (:class:`ThrottledTokenAuthentication`);
- which counts apply (``AXES_LOCKOUT_PARAMETERS``): by address and by account, or by
  address alone when no account was named (an API token), so that failures without a
  name never add up across addresses into a lock on everybody.
"""

from __future__ import annotations

import math
from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessBase
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed, Throttled
from rest_framework.request import Request

LOCKED_OUT_CODE = "locked_out"


def retry_after_seconds(request: HttpRequest | None = None) -> int:
    """How long a locked-out client waits at most: the configured cool-off, in whole seconds (at least 1)."""
    cool_off = get_cool_off(request)
    return max(1, math.ceil(cool_off.total_seconds())) if cool_off else 1


def lockout_message(request: HttpRequest | None = None) -> str:
    """The message a locked-out user reads, with the wait in minutes (rounded up)."""
    minutes = max(1, math.ceil(retry_after_seconds(request) / 60))
    return _(
        "ログインの失敗が続いたため、しばらくログインできません。%(minutes)d 分ほど待ってから、もう一度お試しください。"
    ) % {"minutes": minutes}


def lockout_parameters(request_or_attempt: HttpRequest | AccessBase, credentials: dict | None = None) -> list[str]:
    """``AXES_LOCKOUT_PARAMETERS``: count by address and by account; by address alone when no account is named."""
    if isinstance(request_or_attempt, AccessBase):
        username = request_or_attempt.username
    else:
        username = get_client_username(request_or_attempt, credentials)
    return ["ip_address", "username"] if username else ["ip_address"]


def client_ip(request: HttpRequest) -> str | None:
    """``AXES_CLIENT_IP_CALLABLE``: the address a failure is counted against.

    Without a proxy (``RAG_PROXY_COUNT=0``) it is ``REMOTE_ADDR``; X-Forwarded-For is
    ignored, since a client can send anything there. Behind ``RAG_PROXY_COUNT`` proxies
    that each append the address they received from, the client is that many entries
    from the right (what the client itself put to the left is not trusted).
    """
    count = settings.RAG_PROXY_COUNT
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    if count and len(forwarded) >= count:
        return forwarded[-count]
    return request.META.get("REMOTE_ADDR")


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict | None = None
) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: the view's own page (the form with the message) as a 429 with ``Retry-After``."""
    response = original_response if original_response is not None else HttpResponse(lockout_message(request))
    response.status_code = 429
    response["Retry-After"] = str(retry_after_seconds(request))
    return response


class _LockoutMessage:
    """Form mixin: when django-axes refused the attempt, say so instead of "wrong password"."""

    request: HttpRequest | None

    def get_invalid_login_error(self) -> ValidationError:
        if self.request is not None and getattr(self.request, "axes_locked_out", False):
            return ValidationError(lockout_message(self.request), code=LOCKED_OUT_CODE)
        return super().get_invalid_login_error()  # type: ignore[misc]

    @property
    def locked_out(self) -> str:
        """The lockout message when the throttle refused this attempt, else "" (for the portal's template)."""
        errors = self.non_field_errors().as_data()  # type: ignore[attr-defined]
        return next((" ".join(e.messages) for e in errors if e.code == LOCKED_OUT_CODE), "")


class ThrottledAuthenticationForm(_LockoutMessage, AuthenticationForm):
    """The portal's login form (``/accounts/login/``)."""


class ThrottledAdminAuthenticationForm(_LockoutMessage, AdminAuthenticationForm):
    """The admin's login form (``/admin/login/``)."""


class ThrottledTokenAuthentication(TokenAuthentication):
    """DRF token authentication whose failures count with the login forms' (by address).

    A locked address gets 429 with ``Retry-After`` before its token is looked at,
    so guessing tokens is as slow as guessing passwords.
    """

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        http_request = request._request
        if self.keyword_in(request) and not AxesProxyHandler.is_allowed(http_request, {}):
            raise self._throttled(http_request)
        try:
            return super().authenticate(request)
        except AuthenticationFailed:
            user_login_failed.send(sender=type(self), credentials={"username": None}, request=http_request)
            if getattr(http_request, "axes_locked_out", False):
                raise self._throttled(http_request) from None
            raise

    def keyword_in(self, request: Request) -> bool:
        """Whether the request sends a token at all (a session or anonymous request is not a token attempt)."""
        header = request.META.get("HTTP_AUTHORIZATION", "")
        return header.split(" ", 1)[0].lower() == self.keyword.lower()

    @staticmethod
    def _throttled(request: HttpRequest) -> Throttled:
        return Throttled(wait=retry_after_seconds(request), detail=lockout_message(request))
