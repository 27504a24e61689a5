"""Every step from the retrieval's similarities to the badge the employee sees (verification.confidence)."""

from __future__ import annotations

import pytest

from verification.confidence import (
    HIGH,
    LOW,
    MEDIUM,
    STEP_CHECKS,
    STEP_CITATION,
    STEP_RETRIEVAL,
    adjust_confidence_by_citation,
    after_checks,
    answer_confidence,
    retrieval_confidence,
    shown_confidence,
    step_down,
)

THRESHOLDS = (0.88, 0.83)
STRONG = {"has_citation": True, "citation_quality": "strong", "unexpected_sources": []}


@pytest.mark.parametrize(
    ("similarity", "level"), [(0.95, HIGH), (0.88, HIGH), (0.85, MEDIUM), (0.83, MEDIUM), (0.7, LOW), (None, LOW)]
)
def test_step_1_retrieval_sets_the_starting_level(similarity: float | None, level: str) -> None:
    assert retrieval_confidence(similarity, THRESHOLDS) == level


@pytest.mark.parametrize(
    ("result", "level"),
    [
        (None, HIGH),
        (STRONG, HIGH),
        ({**STRONG, "citation_quality": "weak"}, HIGH),
        ({"has_citation": False, "citation_quality": "none", "unexpected_sources": []}, MEDIUM),
        ({**STRONG, "unexpected_sources": ["company_policy.md"]}, LOW),
    ],
)
def test_step_2_the_citation_rules_of_the_reference_article(result: dict | None, level: str) -> None:
    assert adjust_confidence_by_citation(HIGH, result) == level


@pytest.mark.parametrize(
    ("kwargs", "level"),
    [
        ({"flags": set()}, HIGH),
        ({"flags": {"fabricated_quote"}}, LOW),
        ({"flags": {"low_grounding"}}, LOW),
        ({"flags": {"unsupported_claim"}, "unsupported": 1}, MEDIUM),
        ({"flags": {"answer_mismatch"}, "fit_failed": ["type"]}, MEDIUM),
        ({"flags": {"answer_mismatch"}, "fit_failed": ["type", "terms"]}, LOW),
        ({"flags": set(), "unsupported": 1, "fit_failed": ["meaning"]}, LOW),  # two steps down
        ({"flags": set(), "terms_unchecked_across_languages": True}, MEDIUM),
    ],
)
def test_step_3_what_verification_found_lowers_it(kwargs: dict, level: str) -> None:
    assert after_checks(HIGH, **kwargs) == level


def test_an_answer_across_languages_that_was_already_medium_stays_medium() -> None:
    assert after_checks(MEDIUM, flags=set(), terms_unchecked_across_languages=True) == MEDIUM


def test_step_4_the_badge() -> None:
    assert shown_confidence(HIGH) == HIGH
    assert shown_confidence(HIGH, stale=True) == MEDIUM  # its evidence changed since
    assert shown_confidence(LOW, stale=True) == LOW
    assert shown_confidence(LOW, graded=False) == ""  # asked back or not found: no badge


def test_each_step_is_recorded_so_a_high_or_a_low_can_be_explained() -> None:
    steps = answer_confidence(
        top_similarity=0.9, thresholds=THRESHOLDS, citation_result=STRONG, flags={"unsupported_claim"}, unsupported=1
    )
    assert steps.steps == ((STEP_RETRIEVAL, HIGH), (STEP_CITATION, HIGH), (STEP_CHECKS, MEDIUM))
    assert steps.level == MEDIUM and steps.retrieval == HIGH


def test_step_down_stops_at_low() -> None:
    assert [step_down(level) for level in (HIGH, MEDIUM, LOW)] == [MEDIUM, LOW, LOW]
