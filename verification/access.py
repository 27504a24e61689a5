"""Which answers a reviewer may read: the review side's access rule, one place.

An answer is built from every document retrieved for it (the provider saw them
all), so its question, text, citations, retrieved chunks, notes and feedback
comments are readable only by a user who may read each of those documents
(:func:`documents.selectors.visible_documents`). A document deleted since counts
as readable only if it was open to everyone at answer time.

Answers a reviewer may not read stay in the queue: they are listed, counted,
filtered and can be assigned to someone who may read them; only their content
is replaced by :data:`REDACTED`. Superusers read everything.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import BooleanField, Case, Exists, OuterRef, Q, QuerySet, Value, When
from django.utils.translation import gettext_lazy as _

from documents.selectors import visible_documents
from qa.models import Answer, AnswerSource, Citation

REDACTED = _("閲覧権限のない文書を含むため表示できません")

# The annotation :func:`with_readability` adds to each answer.
READABLE = "viewer_may_read"


def readable_condition(user: AbstractBaseUser | AnonymousUser) -> Q:
    """A filter on ``Answer``: the answers ``user`` may read (see the module docstring)."""
    if not user.is_authenticated:
        return Q(pk__in=[])
    if user.is_superuser:
        return Q(pk__isnull=False)
    visible = visible_documents(user).values("pk")
    hidden_source = AnswerSource.objects.filter(answer=OuterRef("pk")).filter(
        Q(document__isnull=False) & ~Q(document__in=visible)
        | Q(document__isnull=True, restricted=True)
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


def with_readability(answers: QuerySet[Answer], user: AbstractBaseUser | AnonymousUser) -> QuerySet[Answer]:
    """``answers``, each annotated with ``viewer_may_read`` for ``user`` (idempotent)."""
    if READABLE in answers.query.annotations:
        return answers
    return answers.annotate(
        **{READABLE: Case(When(readable_condition(user), then=Value(True)), default=Value(False), output_field=BooleanField())}
    )


def may_read(answer: Answer, user: AbstractBaseUser | AnonymousUser) -> bool:
    """Whether ``user`` may read ``answer``; uses the annotation when present, else one query."""
    annotated = getattr(answer, READABLE, None)
    if annotated is not None:
        return bool(annotated)
    return Answer.objects.filter(readable_condition(user), pk=answer.pk).exists()


def readers_of(answer: Answer, candidates: QuerySet) -> list[int]:
    """Primary keys of the ``candidates`` (users) who may read ``answer``: who it can be assigned to."""
    return [user.pk for user in candidates if Answer.objects.filter(readable_condition(user), pk=answer.pk).exists()]
