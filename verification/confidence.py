"""Confidence, from the retrieval's similarities to the badge the employee sees. Every step, here only.

Pure Python, no Django, no app imports. The steps, in order (each a function
tested on its own in tests/verification/test_confidence.py):

1. :func:`retrieval_confidence`: the dense similarity of the passage the answer
   stands on (the one it quotes first, ``qa.services.evidence_similarity``)
   against the calibrated thresholds (高 ≥ ``high``, 中 ≥ ``medium``, else 低);
2. :func:`adjust_confidence_by_citation`: the first reference article's rules
   (a fabricated file name → 低; no citation → one step down);
3. :func:`after_checks`: what verification found: a fabricated source or quote,
   or a failed grounding gate → 低; an unsupported sentence → one step down; an
   answer beside the question (answer fit) → one step down per failed signal,
   低 from two; across languages, where the question's terms cannot be checked
   against the quotes, never 高;
4. :func:`shown_confidence`: the badge: none for a question asked back or a
   "not found"; a stale answer (its evidence changed since) never shows 高.

:func:`answer_confidence` runs steps 1–3 and records each level on the way
(:class:`ConfidenceSteps`), so "why 高?" is answered by reading the steps.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

HIGH = "high"
MEDIUM = "medium"
LOW = "low"
LEVELS = (LOW, MEDIUM, HIGH)

# Findings that make an answer untrustworthy whatever else holds.
FORCING_LOW = frozenset({"fabricated_source", "fabricated_quote", "low_grounding"})

STEP_RETRIEVAL = "retrieval"
STEP_CITATION = "citation"
STEP_CHECKS = "checks"


def step_down(confidence: str) -> str:
    """One confidence step down; ``"low"`` (and unknown values) stay as they are."""
    if confidence in LEVELS:
        return LEVELS[max(0, LEVELS.index(confidence) - 1)]
    return confidence


def retrieval_confidence(top_similarity: float | None, thresholds: tuple[float, float]) -> str:
    """Step 1: ``"high"`` at or above ``thresholds[0]``, ``"medium"`` at or above ``thresholds[1]``, else ``"low"``."""
    high, medium = thresholds
    if top_similarity is None:
        return LOW
    if top_similarity >= high:
        return HIGH
    if top_similarity >= medium:
        return MEDIUM
    return LOW


def adjust_confidence_by_citation(confidence: str, citation_result: dict | None) -> str:
    """Step 2: the first reference article's confidence rules applied to ``confidence``.

    ``None`` result → unchanged; fabricated sources → ``"low"``; no citation →
    one step down (``"low"`` stays ``"low"``); weak or strong → unchanged.
    """
    if citation_result is None:
        return confidence
    if citation_result.get("unexpected_sources"):
        return LOW
    if not citation_result.get("has_citation"):
        return step_down(confidence)
    return confidence


def after_checks(
    confidence: str,
    *,
    flags: Collection[str],
    unsupported: int = 0,
    fit_failed: Sequence[str] | None = None,
    terms_unchecked_across_languages: bool = False,
) -> str:
    """Step 3: ``confidence`` after verification's findings (see the module docstring).

    ``flags``: the verifier's flags; ``unsupported``: how many sentences lack
    support; ``fit_failed``: the answer-fit signals that failed (None: not
    judged); ``terms_unchecked_across_languages``: an English question over
    Japanese quotes, whose key terms could not be checked.
    """
    if set(flags) & FORCING_LOW:
        confidence = LOW
    elif unsupported:
        confidence = step_down(confidence)
    if fit_failed:
        # One failed signal costs a step; two or more mean the answer is probably beside the point.
        confidence = LOW if len(fit_failed) > 1 else step_down(confidence)
    if terms_unchecked_across_languages and confidence == HIGH:
        confidence = MEDIUM
    return confidence


@dataclass(frozen=True)
class ConfidenceSteps:
    """The confidence after each step (``steps``: (step name, level) in order); ``level`` is the last."""

    steps: tuple[tuple[str, str], ...]

    @property
    def level(self) -> str:
        return self.steps[-1][1]

    @property
    def retrieval(self) -> str:
        return self.steps[0][1]


def answer_confidence(
    *,
    top_similarity: float | None,
    thresholds: tuple[float, float],
    citation_result: dict | None,
    flags: Collection[str],
    unsupported: int = 0,
    fit_failed: Sequence[str] | None = None,
    terms_unchecked_across_languages: bool = False,
) -> ConfidenceSteps:
    """Steps 1–3 for one answer, each level recorded."""
    base = retrieval_confidence(top_similarity, thresholds)
    cited = adjust_confidence_by_citation(base, citation_result)
    checked = after_checks(
        cited,
        flags=flags,
        unsupported=unsupported,
        fit_failed=fit_failed,
        terms_unchecked_across_languages=terms_unchecked_across_languages,
    )
    return ConfidenceSteps(((STEP_RETRIEVAL, base), (STEP_CITATION, cited), (STEP_CHECKS, checked)))


def shown_confidence(confidence: str, *, stale: bool = False, graded: bool = True) -> str:
    """Step 4, the badge: "" for an answer that is not graded (asked back, not found); 高 never when ``stale``."""
    if not graded:
        return ""
    return MEDIUM if stale and confidence == HIGH else confidence
