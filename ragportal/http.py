"""Typing a signed-in request: the portal's own pages past ``@login_required``, and DRF and admin users.

django-stubs types ``request.user`` as possibly anonymous and knows nothing of
the ``htmx`` attribute django-htmx's middleware sets; views that require a
signed-in user annotate their request with this class instead (the pattern
both projects document), so the services they call get a ``User``.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class AuthenticatedHttpRequest(HttpRequest):
    user: User
    htmx: HtmxDetails


def signed_in(user: User | AnonymousUser) -> User:
    """``user``, known to be signed in: for code behind an authentication check (DRF permissions, the admin).

    Raises ``PermissionDenied`` for an anonymous user, which such code never sees.
    """
    if not isinstance(user, User):
        raise PermissionDenied
    return user
