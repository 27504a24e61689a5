"""The review queue: which answers reviewers must look at, and the writes they make.

One rule, one place: the admin changelist, the overview page, the CSV export and
the owners' "needs a document fix" list all start from the functions here.

An answer needs review when any of these holds:

- its final confidence is ``low``;
- it carries one of the flags in :data:`QUEUE_FLAGS` (a fabricated source or
  quote, low grounding, an unsupported claim, a provider error);
- someone rated it 👎.

Answers that were fine (and perhaps rated 👍) stay out of the queue.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from documents.models import Document
from documents.notices import DocumentNotice
from qa.models import Answer, Feedback
from verification.access import READABLE, REDACTED, with_readability
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


def documents_needing_fix(user: AbstractBaseUser) -> QuerySet[Answer]:
    """Answers marked ``needs_document_fix`` that involve a document ``user`` owns.

    "Involve" means: a citation points at the document (by foreign key, or by file
    name when the document row was re-created), the question was restricted to it,
    or it is in the retrieved snapshot (matched by file name, which is unique and
    survives re-indexing, unlike chunk ids). Newest first; empty for anonymous users.
    Each answer carries ``viewer_may_read``: an answer that also drew on a document
    the owner may not read is listed without its text (``verification.access``).
    """
    if not user.is_authenticated:
        return Answer.objects.none()
    owned = list(Document.objects.filter(owner=user).values_list("filename", flat=True))
    if not owned:
        return Answer.objects.none()
    candidates = Answer.objects.filter(review_status=Answer.ReviewStatus.NEEDS_DOCUMENT_FIX)
    owned_set = set(owned)
    # JSON containment lookups are not available on SQLite, so the snapshot is
    # matched in Python; only answers awaiting a document fix are read, a small set.
    by_snapshot = [
        pk
        for pk, retrieved in candidates.values_list("pk", "retrieved")
        if any(isinstance(item, dict) and item.get("filename") in owned_set for item in retrieved or [])
    ]
    return with_readability(
        candidates.filter(
            Q(citations__document__owner=user)
            | Q(citations__filename__in=owned)
            | Q(restricted_document__owner=user)
            | Q(pk__in=by_snapshot)
        )
        .distinct()
        .order_by("-created_at", "-pk"),
        user,
    )


# At most this many answers are turned into notices per page view.
FIX_NOTICE_LIMIT = 50


def fix_notices(user: AbstractBaseUser, documents: Sequence[Document]) -> dict[int, list[DocumentNotice]]:
    """The owner's notices: answers needing a document fix, grouped by the shown document they name.

    An answer names a document through a citation (its row or its file name), the
    document the question was restricted to, or its retrieved snapshot. An answer
    that also drew on a document the owner may not read is listed without its text.
    Registered with :mod:`documents.notices` by this app's config.
    """
    by_name = {d.filename: d.pk for d in documents}
    if not by_name:
        return {}
    answers = documents_needing_fix(user).prefetch_related("citations").select_related("restricted_document")
    notices: dict[int, list[DocumentNotice]] = {}
    for answer in answers[:FIX_NOTICE_LIMIT]:
        notice = _fix_notice(answer)
        for pk in _named_documents(answer, by_name) & set(by_name.values()):
            notices.setdefault(pk, []).append(notice)
    return notices


def _named_documents(answer: Answer, by_name: dict[str, int]) -> set[int]:
    ids = {c.document_id for c in answer.citations.all() if c.document_id}
    ids |= {by_name[c.filename] for c in answer.citations.all() if c.filename in by_name}
    if answer.restricted_document_id:
        ids.add(answer.restricted_document_id)
    ids |= {
        by_name[item["filename"]]
        for item in answer.retrieved or []
        if isinstance(item, dict) and item.get("filename") in by_name
    }
    return ids


def _fix_notice(answer: Answer) -> DocumentNotice:
    readable = bool(getattr(answer, READABLE))
    return DocumentNotice(
        text=answer.question if readable else str(REDACTED),
        created_at=answer.created_at,
        note=answer.review_notes if readable else "",
        withheld=not readable,
    )


def queue_set_status(*, answers: QuerySet[Answer], status: str) -> int:
    """Set the review status of ``answers``; returns how many rows changed.

    Rows already in ``status`` are not counted, so the number reported to the
    reviewer is the number of answers the action actually moved.
    """
    if status not in Answer.ReviewStatus.values:
        raise ValueError(f"unknown review status: {status!r}")
    return Answer.objects.filter(pk__in=answers.values("pk")).exclude(review_status=status).update(review_status=status)


def queue_assign(*, answers: QuerySet[Answer], reviewer: AbstractBaseUser) -> int:
    """Assign ``answers`` to ``reviewer``; returns how many rows changed (already assigned ones are not counted)."""
    return Answer.objects.filter(pk__in=answers.values("pk")).exclude(assigned_to=reviewer).update(assigned_to=reviewer)
