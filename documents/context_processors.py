"""Template context: which portal sections the signed-in user may open."""

from __future__ import annotations

from django.http import HttpRequest

from documents.roles import is_owner, is_reviewer


def roles(request: HttpRequest) -> dict[str, bool]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"is_document_owner": False, "is_reviewer": False}
    return {"is_document_owner": is_owner(user), "is_reviewer": is_reviewer(user)}
