"""A database that is locked for too long or cannot be reached: a 503 that says so, not a 500.

SQLite waits ``DATABASE_LOCK_TIMEOUT_S`` for another writer's lock and PostgreSQL
``DATABASE_CONNECT_TIMEOUT_S`` for a connection (settings.py); a brief lock is
waited out there and the request succeeds. When the wait runs out, or the
server is down, the driver raises ``OperationalError`` (or ``InterfaceError`` on a
connection that broke). The user then gets HTTP 503 with ``Retry-After`` and one
sentence in their language: ``{"detail": ...}`` under ``/api/``, the portal's
error page elsewhere. The real exception goes to the log only.

Both the middleware (exceptions raised by views, DRF's included: DRF re-raises
what it does not know) and ``server_error`` (the ``handler500`` for exceptions
raised in other middleware, such as saving the session) use the same response.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils.translation import gettext as _
from django.views.defaults import server_error as django_server_error

log = logging.getLogger(__name__)

# Seconds a client is told to wait before trying again: a lock or a restart is usually over by then.
RETRY_AFTER_S = 30


# The driver's "cannot work now" errors: a lock that outlasted the timeout, a refused or lost connection.
DATABASE_UNAVAILABLE_ERRORS = (OperationalError, InterfaceError)


def is_database_unavailable(exc: BaseException | None) -> bool:
    return isinstance(exc, DATABASE_UNAVAILABLE_ERRORS)


def unavailable_message() -> str:
    return _("データベースに一時的に接続できません。しばらくしてからもう一度お試しください。")


def database_unavailable_response(request: HttpRequest, exc: BaseException) -> HttpResponse:
    """The 503 for ``request``: JSON under /api/, else the portal's error page (rendered without the database)."""
    log.error("database unavailable during %s %s: %s", request.method, request.path, exc, exc_info=exc)
    message = unavailable_message()
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(
            {"detail": message}, status=503, json_dumps_params={"ensure_ascii": False}
        )
    else:
        # No request context: its processors (the signed-in user, their roles) would query the database again.
        body = loader.get_template("503.html").render({"error_message": message})
        response = HttpResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


class DatabaseUnavailableMiddleware:
    """Turns a view's database lock or connection failure into the 503 above."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if is_database_unavailable(exception):
            return database_unavailable_response(request, exception)
        return None


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: the 503 when the unhandled exception is a database outage, else Django's 500 page.

    Django calls this while it handles the exception, so ``sys.exc_info()`` is that exception.
    """
    exc = sys.exc_info()[1]
    if is_database_unavailable(exc):
        assert exc is not None
        return database_unavailable_response(request, exc)
    return django_server_error(request)
