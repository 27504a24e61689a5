"""Reads of conversations and answers that enforce whose they are and what their reader may still see.

An employee sees only their own conversations and answers (and so only the
citations of their own answers). Another user's object is a 404, never a 403,
so ids reveal nothing.

An answer is built from every document retrieved for it, so its content is
readable only by a user who may read each of those documents now
(:func:`answer_readable_condition`, the one rule; the review side uses it too).
An own answer that fails it because a document was restricted since is listed
but *withheld*: its text, citations and sources are replaced by
:data:`WITHHELD_MESSAGE` wherever it is shown or folded into a follow-up.
"""

from __future__ import annotations

from typing import NamedTuple

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import BooleanField, Case, Exists, OuterRef, Prefetch, Q, QuerySet, Subquery, Value, When
from django.http import Http404
from django.utils.translation import gettext_lazy as _

from documents.selectors import visible_documents
from qa.models import Answer, AnswerSource, Citation, Conversation

WITHHELD_MESSAGE = _("閲覧権限が変更された文書を含むため表示できません")

# The annotation :func:`answers_for_user` adds: whether the viewer may no longer read the answer.
WITHHELD = "withheld"


def answer_readable_condition(user: AbstractBaseUser | AnonymousUser) -> Q:
    """A filter on ``Answer``: the answers whose content ``user`` may read.

    Each source document (every document retrieved for the answer), each cited
    document and the document the question was restricted to must be one of
    :func:`documents.selectors.visible_documents`. A source deleted since counts
    as readable only if it was open to everyone at answer time (``AnswerSource.restricted``),
    so deleting a restricted document never opens its text. Superusers read
    everything; anonymous users nothing.
    """
    if not user.is_authenticated:
        return Q(pk__in=[])
    if user.is_superuser:
        return Q(pk__isnull=False)
    visible = visible_documents(user).values("pk")
    hidden_source = AnswerSource.objects.filter(answer=OuterRef("pk")).filter(
        Q(document__isnull=False) & ~Q(document__in=visible) | Q(document__isnull=True, restricted=True)
    )
    # Citations are covered by the sources; checked too so that a citation row
    # written without its source row can never open a restricted text.
    hidden_citation = Citation.objects.filter(answer=OuterRef("pk"), document__isnull=False).exclude(
        document__in=visible
    )
    return (
        ~Q(Exists(hidden_source))
        & ~Q(Exists(hidden_citation))
        & (Q(restricted_document__isnull=True) | Q(restricted_document__in=visible))
    )


def conversations_for_user(user) -> QuerySet[Conversation]:  # noqa: ANN001 - any user, including AnonymousUser
    """The user's conversations, most recently active first; none for an anonymous user."""
    if not user.is_authenticated:
        return Conversation.objects.none()
    return Conversation.objects.filter(user=user).order_by("-updated_at", "-pk")


def conversation_list_for_user(user) -> QuerySet[Conversation]:  # noqa: ANN001
    """:func:`conversations_for_user`, each annotated with ``answer_preview``.

    ``answer_preview`` is the text of the conversation's latest answer that the
    user may still read ("" or None when there is none), so that conversations
    asking the same question can be told apart in the sidebar.
    """
    if not user.is_authenticated:
        return Conversation.objects.none()
    latest = (
        Answer.objects.filter(answer_readable_condition(user), conversation=OuterRef("pk"), user=user)
        .order_by("-created_at", "-pk")
        .values("answer_text")[:1]
    )
    return conversations_for_user(user).annotate(answer_preview=Subquery(latest))


def answers_for_user(user) -> QuerySet[Answer]:  # noqa: ANN001
    """The user's answers, each annotated with ``withheld`` (see :func:`is_withheld`); none for an anonymous user."""
    if not user.is_authenticated:
        return Answer.objects.none()
    withheld = Case(
        When(answer_readable_condition(user), then=Value(False)), default=Value(True), output_field=BooleanField()
    )
    return (
        Answer.objects.filter(user=user)
        .select_related("conversation", "restricted_document")
        .annotate(**{WITHHELD: withheld})
    )


def is_withheld(answer: Answer) -> bool:
    """Whether ``answer``'s content is hidden from its own asker now (a source was restricted, or deleted restricted).

    Uses the annotation of :func:`answers_for_user` when present, else one query.
    """
    annotated = getattr(answer, WITHHELD, None)
    if annotated is not None:
        return bool(annotated)
    return not Answer.objects.filter(answer_readable_condition(answer.user), pk=answer.pk).exists()


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


class Turn(NamedTuple):
    """One earlier exchange of a conversation as its user may see it now."""

    question: str
    answer_text: str
    search_query: str


def conversation_turns(conversation: Conversation, user) -> list[Turn]:  # noqa: ANN001
    """The conversation's earlier turns, oldest first, as ``user`` may see them now.

    A withheld answer's text is replaced by :data:`WITHHELD_MESSAGE`, so a
    follow-up never hands a provider text its asker may no longer read.
    """
    rows = answers_for_user(user).filter(conversation=conversation).order_by("created_at", "pk")
    return [
        Turn(question, str(WITHHELD_MESSAGE) if withheld else text, searched)
        for question, text, searched, withheld in rows.values_list("question", "answer_text", "search_query", WITHHELD)
    ]
