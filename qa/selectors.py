"""Reads of conversations and answers that enforce whose they are.

An employee sees only their own conversations and answers (and so only the
citations of their own answers). Another user's object is a 404, never a 403,
so ids reveal nothing.
"""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet
from django.http import Http404

from qa.models import Answer, Citation, Conversation


def conversations_for_user(user) -> QuerySet[Conversation]:  # noqa: ANN001 - any user, including AnonymousUser
    """The user's conversations, most recently active first; none for an anonymous user."""
    if not user.is_authenticated:
        return Conversation.objects.none()
    return Conversation.objects.filter(user=user).order_by("-updated_at", "-pk")


def answers_for_user(user) -> QuerySet[Answer]:  # noqa: ANN001
    """The user's answers, newest first; none for an anonymous user."""
    if not user.is_authenticated:
        return Answer.objects.none()
    return Answer.objects.filter(user=user).select_related("conversation", "restricted_document")


def with_citations(answers: QuerySet[Answer]) -> QuerySet[Answer]:
    """``answers`` with their citations and what decides whether they are stale (the cited document's live version)."""
    return answers.prefetch_related(
        Prefetch("citations", queryset=Citation.objects.select_related("document").order_by("n"))
    )


def get_answer_for_user(user, pk: int) -> Answer:  # noqa: ANN001
    """The user's answer ``pk`` with its citations, else 404."""
    try:
        return with_citations(answers_for_user(user)).get(pk=pk)
    except Answer.DoesNotExist:
        raise Http404("No such answer") from None
