"""Personal API tokens: the portal page's writes and reads, on DRF's ``authtoken`` Token.

A user has at most one token (DRF's model is one per user). The key is shown
only in the response that created it; afterwards the portal shows when it was
created, never the key again. Creating a token replaces any earlier one, so a
lost or leaked key is fixed by making a new one or revoking it.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from rest_framework.authtoken.models import Token


def api_token_for_user(user: User) -> Token | None:
    """The user's current token, or None."""
    return Token.objects.filter(user=user).first()


@transaction.atomic
def api_token_create(*, user: User) -> Token:
    """A new token for ``user``; an earlier token stops working at once."""
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user)


def api_token_revoke(*, user: User) -> bool:
    """Delete the user's token; whether there was one."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted > 0
