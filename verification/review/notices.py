"""The owners' notices from the review side: answers a reviewer marked "needs a document fix".

Registered with :mod:`documents.notices` by the app's config, so an owner's
document pages list them without the documents app knowing where they come from.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db.models import Q, QuerySet

from documents.models import Document
from documents.notices import DocumentNotice
from qa.models import Answer
from verification.review.access import READABLE, REDACTED, with_readability


def documents_needing_fix(user: User) -> QuerySet[Answer]:
    """Answers marked ``needs_document_fix`` that involve a document ``user`` owns.

    "Involve" means: a citation points at the document (by foreign key, or by file
    name when the document row was re-created), the question was restricted to it,
    or it is in the retrieved snapshot (matched by file name, which is unique and
    survives re-indexing, unlike chunk ids). Newest first; empty for anonymous users.
    Each answer carries ``viewer_may_read``: an answer that also drew on a document
    the owner may not read is listed without its text (``verification.review.access``).
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


def fix_notices(user: User, documents: Sequence[Document]) -> dict[int, list[DocumentNotice]]:
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
