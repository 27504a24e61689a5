"""The review queue: which answers reviewers must look at, and the writes they make.

One rule, one place: the admin changelist, the overview page, the CSV export and
the owners' "needs a document fix" notices (``verification.review.notices``) all
start from the functions here.

An answer needs review when any of these holds:

- its final confidence is ``low``;
- it carries one of the flags in :data:`QUEUE_FLAGS` (a fabricated source or
  quote, low grounding, an unsupported claim, a provider error);
- someone rated it 👎.

Answers that were fine (and perhaps rated 👍) stay out of the queue.
"""

from __future__ import annotations


from django.contrib.auth.models import User
from django.db.models import Count, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from qa.models import Answer, Feedback
from verification.flags import REVIEW_FLAGS

# The flags that put an answer in the queue by themselves (``needs_review`` in the
# registry). The softer flags (no/weak citation, not found, low retrieval) only
# matter through the confidence they lower, which the verdict already folded in.
QUEUE_FLAGS: tuple[str, ...] = tuple(sorted(REVIEW_FLAGS))


def _feedback_exists(rating: int) -> Exists:
    return Exists(Feedback.objects.filter(answer=OuterRef("pk"), rating=rating))


def _feedback_count(rating: int) -> Coalesce:
    counted = (
        Feedback.objects.filter(answer=OuterRef("pk"), rating=rating)
        .order_by()
        .values("answer")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def flag_condition(name: str) -> Q:
    """Answers carrying the verification flag ``name`` (the queue's flag filter and the overview's flag rows)."""
    return Q(**{f"flag_{name}": True})


def confidence_condition(level: str) -> Q:
    """Answers whose final confidence is ``level``."""
    return Q(confidence=level)


def feedback_condition(kind: str) -> Q:
    """Answers rated 👍 (``up``), 👎 (``down``) or not at all (``none``).

    An answer rated both ways by different users meets both ``up`` and ``down``.
    """
    if kind == "none":
        return ~Q(Exists(Feedback.objects.filter(answer=OuterRef("pk"))))
    rating = Feedback.Rating.UP if kind == "up" else Feedback.Rating.DOWN
    return Q(_feedback_exists(rating))


def needs_review_condition() -> Q:
    """The queue rule as a filter condition on ``Answer`` (see the module docstring)."""
    condition = confidence_condition(Answer.Confidence.LOW)
    for name in QUEUE_FLAGS:
        condition |= flag_condition(name)
    return condition | feedback_condition("down")


def review_queue(qs: QuerySet[Answer] | None = None) -> QuerySet[Answer]:
    """Answers of ``qs`` (default: all answers) that need review, newest first.

    Each row is annotated with ``thumbs_up`` and ``thumbs_down`` (feedback counts),
    computed by correlated subqueries so that listing N answers costs no extra
    query per row and no join that would multiply rows.
    """
    if qs is None:
        qs = Answer.objects.all()
    return (
        qs.filter(needs_review_condition())
        .annotate(thumbs_up=_feedback_count(Feedback.Rating.UP), thumbs_down=_feedback_count(Feedback.Rating.DOWN))
        .order_by("-created_at", "-pk")
    )


def queue_set_status(*, answers: QuerySet[Answer], status: str) -> int:
    """Set the review status of ``answers``; returns how many rows changed.

    Rows already in ``status`` are not counted, so the number reported to the
    reviewer is the number of answers the action actually moved.
    """
    if status not in Answer.ReviewStatus.values:
        raise ValueError(f"unknown review status: {status!r}")
    return Answer.objects.filter(pk__in=answers.values("pk")).exclude(review_status=status).update(review_status=status)


def queue_assign(*, answers: QuerySet[Answer], reviewer: User) -> int:
    """Assign ``answers`` to ``reviewer``; returns how many rows changed (already assigned ones are not counted)."""
    return Answer.objects.filter(pk__in=answers.values("pk")).exclude(assigned_to=reviewer).update(assigned_to=reviewer)
