"""What answering one question produced, handed forward to whatever shows it.

:class:`AnswerResult` is what ``qa.services.answer_question`` returns and what
``qa.presenters`` renders for the chat page, the API and the stream. A fresh
answer's result is built from the values the service already holds (the
stored row, its verdict, the numbered citation rows, the retrieved sections),
so nothing is read back from the database or re-parsed to show it. An answer
stored earlier (a conversation page, ``GET /api/v1/answers/<id>``) gets the same
shape from :meth:`AnswerResult.from_answer`, so both render identically.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from qa.models import Answer, Citation
from qa.selectors import is_withheld
from qa.types import RetrievedChunk
from verification.confidence import shown_confidence
from verification.flags import FLAGS
from verification.verdict import Verdict

STALE_MESSAGE = _("この回答の根拠となった文書は更新（または削除）されています")

# Shown when the verifier flagged something but stored no warning text for it.
FLAG_LABELS = {flag.name: _(flag.user_label) for flag in FLAGS if flag.user_label}


@dataclass(frozen=True)
class SourceSection:
    """One retrieved section the answer was built from, as the API lists it."""

    filename: str
    section: str
    similarity: float

    @classmethod
    def from_hit(cls, hit: RetrievedChunk) -> SourceSection:
        return cls(hit.filename or "", hit.section or "", float(hit.similarity or 0.0))

    @classmethod
    def from_snapshot(cls, item: dict[str, Any]) -> SourceSection:
        """A section from the answer's stored ``retrieved`` snapshot (``qa.services._snapshot``)."""
        return cls(
            str(item.get("filename") or ""), str(item.get("section") or ""), float(item.get("similarity") or 0.0)
        )


@dataclass(frozen=True)
class AnswerResult:
    """One answer as its reader sees it: the stored row, its verdict, citations and sections.

    ``citations`` are the stored, numbered rows (each with its ``document`` loaded:
    the footnote shows its title, staleness compares its live version).
    ``withheld``: its asker may no longer read it (``qa.selectors.is_withheld``);
    ``stale``: a version it quoted is no longer live (:func:`is_stale`).
    """

    answer: Answer
    verdict: Verdict
    citations: list[Citation] = field(default_factory=list)
    sections: list[SourceSection] = field(default_factory=list)
    stale: bool = False
    withheld: bool = False

    @classmethod
    def made(
        cls, answer: Answer, verdict: Verdict, citations: list[Citation], hits: Sequence[RetrievedChunk]
    ) -> AnswerResult:
        """The result of an answer just stored, from the values its service holds (nothing is read back).

        Its asker may read it (it was built from what they may read), so it is not withheld.
        """
        sections = [SourceSection.from_hit(h) for h in hits]
        return cls(answer, verdict, citations=citations, sections=sections, stale=_shown_stale(answer, citations))

    @classmethod
    def from_answer(cls, answer: Answer) -> AnswerResult:
        """The result of an answer stored earlier (prefetch its citations: ``qa.selectors.with_citations``)."""
        if is_withheld(answer):
            return cls(answer=answer, verdict=answer.verdict, withheld=True)
        citations = list(answer.citations.all())
        return cls(
            answer=answer,
            verdict=answer.verdict,
            citations=citations,
            sections=[SourceSection.from_snapshot(item) for item in answer.retrieved or [] if isinstance(item, dict)],
            stale=_shown_stale(answer, citations),
        )

    @property
    def response_type(self) -> str:
        return self.answer.response_type

    @property
    def confidence(self) -> str:
        """The badge level (verification.confidence.shown_confidence): never 高 when stale; "" when withheld."""
        if self.withheld:
            return ""
        return shown_confidence(self.answer.confidence or "", stale=self.stale)

    @property
    def warnings(self) -> list[str]:
        """The verifier's warnings in the reader's language, the stale notice first when stale."""
        warnings = verdict_warnings(self.verdict)
        return [str(STALE_MESSAGE), *warnings] if self.stale else warnings


def is_stale(citations: Iterable[Citation]) -> bool:
    """Whether a document version these citations quoted is no longer the live one (updated or deleted).

    Citations whose quote never checked out quoted nothing real and do not count.
    Uses ``citation.document`` (loaded with the rows, or one query each).
    """
    for citation in citations:
        if not citation.quote_verified:
            continue
        if citation.document is None or citation.version_id is None:
            return True
        if citation.document.live_version_id != citation.version_id:
            return True
    return False


def _shown_stale(answer: Answer, citations: list[Citation]) -> bool:
    """Whether ``answer`` is shown as stale: only an answer (not a question asked back) quotes documents."""
    return answer.response_type == Answer.ResponseType.ANSWER and is_stale(citations)


def verdict_warnings(verdict: Verdict) -> list[str]:
    """The verdict's warnings in the reader's language; labels for its flags when it has none.

    Each warning is kept as (msgid, params) (``Verdict.from_answer``), so it is
    translated when shown, not when stored.
    """
    warnings: list[str] = []
    for item in verdict.warning_templates:
        try:
            text = gettext(item["template"]).format(**(item.get("params") or {}))
        except (KeyError, IndexError, ValueError):
            text = item["template"]
        if text and text not in warnings:
            warnings.append(text)
    if not warnings:
        warnings = [str(FLAG_LABELS[f]) for f in verdict.flags if f in FLAG_LABELS]
    return warnings
