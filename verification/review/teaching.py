"""The review loop: what the portal could not answer, and what a reviewer's wording pair changes.

Reviewers see the answers that show a gap (not found, asked back, rated 👎)
with the passages retrieval came closest with (the stored snapshot). When a
question uses a word the documents do not (「ボーナス」 where the handbook says
「賞与」), the reviewer adds the wording pair to the glossary
(:func:`qa.glossary.wording_pair_add`), and :func:`questions_rerun` asks the
stored questions holding that word again, as the people who asked them and
through the served pipeline, storing nothing, so the reviewer sees at once
which questions the pair now answers; the pair can be removed as easily.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet

from documents.failures import DenseIndexUnavailableError
from qa.models import Answer, Feedback
from qa.services import answer_question
from ragportal.text import fold
from verification.review.access import READABLE, with_readability
from verification.review.queue import feedback_condition

# Answers that show a gap by what the portal did; 👎 shows one by what the asker said.
GAP_TYPES = (Answer.ResponseType.NOT_FOUND, Answer.ResponseType.CLARIFICATION)
# Passages shown per answer: the top of what retrieval found for it.
PASSAGES_SHOWN = 3
# Stored questions asked again after a pair is added (each costs one answering run),
# found among this many of the newest gaps.
RERUN_LIMIT = 10
RERUN_SCAN = 500


def gap_condition() -> Q:
    """Answers that show a gap: not found, asked back, or rated 👎 by someone."""
    return Q(response_type__in=GAP_TYPES) | feedback_condition("down")


def teaching_candidates(viewer: User | AnonymousUser) -> QuerySet[Answer]:
    """The gaps, newest first, each annotated with ``rated_down`` and whether ``viewer`` may read it (``verification.review.access``)."""
    rated_down = Exists(Feedback.objects.filter(answer=OuterRef("pk"), rating=Feedback.Rating.DOWN))
    gaps = (
        Answer.objects.filter(gap_condition())
        .annotate(rated_down=rated_down)
        .select_related("user", "restricted_document")
        .order_by("-created_at", "-pk")
    )
    return with_readability(gaps, viewer)


@dataclass(frozen=True)
class Passage:
    """One retrieved passage as stored with the answer (a later re-index does not change it)."""

    filename: str
    section: str
    text: str
    similarity: float | None


def closest_passages(answer: Answer, *, limit: int = PASSAGES_SHOWN) -> list[Passage]:
    """The first ``limit`` passages of the answer's retrieved snapshot, in retrieval order."""
    passages = []
    for item in answer.retrieved or []:
        if not isinstance(item, dict):
            continue
        similarity = item.get("similarity")
        passages.append(
            Passage(
                filename=str(item.get("filename", "")),
                section=str(item.get("section", "")),
                text=str(item.get("text", "")),
                similarity=float(similarity) if isinstance(similarity, int | float) else None,
            )
        )
        if len(passages) == limit:
            break
    return passages


@dataclass(frozen=True)
class Rerun:
    """A stored question asked again: what it got then, and what it gets now (``now`` is None if it cannot be asked)."""

    answer: Answer
    now: Answer | None

    @property
    def answered_now(self) -> bool:
        """It gets an answer now and did not then (or its 👎 answer changed)."""
        if self.now is None or self.now.response_type != Answer.ResponseType.ANSWER:
            return False
        return (
            self.answer.response_type != Answer.ResponseType.ANSWER or self.now.answer_text != self.answer.answer_text
        )


def questions_rerun(*, term: str, viewer: User | AnonymousUser) -> list[Rerun]:
    """Ask again the newest gaps whose question holds ``term`` (NFKC, case-insensitive), one per asker and question.

    Only questions ``viewer`` may read are asked; each is asked as its asker
    (their access decides what is found), at most ``RERUN_LIMIT`` of them.
    """
    needle = fold(" ".join(term.split()))
    if not needle:
        return []
    seen: set[tuple[int, str]] = set()
    reruns: list[Rerun] = []
    for answer in teaching_candidates(viewer).filter(**{READABLE: True})[:RERUN_SCAN]:
        key = (answer.user_id, answer.question)
        if key in seen or needle not in fold(answer.question):
            continue
        seen.add(key)
        reruns.append(Rerun(answer=answer, now=_asked_again(answer)))
        if len(reruns) == RERUN_LIMIT:
            break
    return reruns


def _asked_again(answer: Answer) -> Answer | None:
    """What ``answer``'s question gets now, answered as it would be served, then rolled back (nothing stored).

    None when it cannot be asked now: its asker lost access to the document it was restricted
    to, or the search index cannot be reached.
    """
    kwargs: dict[str, Any] = {"document": answer.restricted_document} if answer.restricted_document else {}
    try:
        with transaction.atomic():
            fresh = answer_question(user=answer.user, text=answer.question, **kwargs).answer
            transaction.set_rollback(True)
    except (ValidationError, DenseIndexUnavailableError):
        return None
    return fresh
