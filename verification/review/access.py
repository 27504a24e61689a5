"""Which answers a reviewer may read: the review side's access rule, one place.

An answer is built from every document retrieved for it (the provider saw them
all), so its question, text, citations, retrieved chunks, notes and feedback
comments are readable only by a user who may read each of those documents
(:func:`documents.selectors.visible_documents`). A document deleted since counts
as readable only if it was open to everyone at answer time. The condition is
:func:`qa.selectors.answer_readable_condition`, re-exported here as ``readable_condition``.

Answers a reviewer may not read stay in the queue: they are listed, counted,
filtered and can be assigned to someone who may read them; only their content
is replaced by :data:`REDACTED`. Superusers read everything.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import BooleanField, Case, QuerySet, Value, When
from django.utils.translation import gettext_lazy as _

from qa.models import Answer

# The rule itself lives with the answers it reads (the askers' own pages withhold by it too).
from qa.selectors import answer_readable_condition as readable_condition

REDACTED = _("閲覧権限のない文書を含むため表示できません")

# The annotation :func:`with_readability` adds to each answer.
READABLE = "viewer_may_read"


def with_readability(answers: QuerySet[Answer], user: User | AnonymousUser) -> QuerySet[Answer]:
    """``answers``, each annotated with ``viewer_may_read`` for ``user`` (idempotent)."""
    if READABLE in answers.query.annotations:
        return answers
    return answers.annotate(
        **{
            READABLE: Case(
                When(readable_condition(user), then=Value(True)), default=Value(False), output_field=BooleanField()
            )
        }
    )


def may_read(answer: Answer, user: User | AnonymousUser) -> bool:
    """Whether ``user`` may read ``answer``; uses the annotation when present, else one query."""
    annotated = getattr(answer, READABLE, None)
    if annotated is not None:
        return bool(annotated)
    return Answer.objects.filter(readable_condition(user), pk=answer.pk).exists()


def readers_of(answer: Answer, candidates: QuerySet) -> list[int]:
    """Primary keys of the ``candidates`` (users) who may read ``answer``: who it can be assigned to."""
    return [user.pk for user in candidates if Answer.objects.filter(readable_condition(user), pk=answer.pk).exists()]
