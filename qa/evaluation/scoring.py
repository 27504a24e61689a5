"""Scoring answers against answer keys, and whether confidence tracks correctness.

Pure Python, no Django: shared by ``evaluate --answers`` (JSQuAD, ``qa.evaluation``)
and the portal evaluation over the golden set (``qa.evaluation.golden``).

A key is found in an answer after both are folded (NFKC, lower case) and spaces
are removed, so the key "10 日" is found in "１０日". The reliability table asks
of each confidence level how often an answer shown at that level was right;
``wrong_high_rate`` is the share of all responses that were high and wrong,
the failure the confidence exists to prevent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ragportal.text import fold

CONFIDENCE_LEVELS = ("high", "medium", "low")
EXPECTATIONS = ("answer", "not_found", "clarify")


def normalise(text: str) -> str:
    """The folded text without spaces: the form in which answer keys are looked for."""
    return fold(text).replace(" ", "")


def contains_answer(text: str, *, any_of: Sequence[str] = (), all_of: Sequence[str] = ()) -> bool:
    """True when ``text`` holds one of ``any_of`` (when given) and every key of ``all_of`` (when given).

    Empty keys are ignored; with no keys at all nothing can be found (False).
    """
    found = normalise(text)
    one_of = [normalise(key) for key in any_of if key]
    every = [normalise(key) for key in all_of if key]
    if not one_of and not every:
        return False
    return (not one_of or any(key in found for key in one_of)) and all(key in found for key in every)


def is_correct(
    expect: str,
    *,
    response_type: str,
    answer_text: str,
    withheld: bool = False,
    answers: Sequence[str] = (),
    answers_all: Sequence[str] = (),
) -> bool:
    """Whether a response is what a golden query expects.

    - ``answer``: an ``answer`` response, not withheld by the grounding gate,
      whose text holds the keys (:func:`contains_answer`);
    - ``not_found``: a ``not_found`` response, or an answer the grounding gate
      withheld (the user is told only that nothing suitable was found);
    - ``clarify``: a ``clarification`` response.

    Raises ValueError for an unknown expectation.
    """
    if expect == "answer":
        return (
            response_type == "answer"
            and not withheld
            and contains_answer(answer_text, any_of=answers, all_of=answers_all)
        )
    if expect == "not_found":
        return response_type == "not_found" or (response_type == "answer" and withheld)
    if expect == "clarify":
        return response_type == "clarification"
    raise ValueError(f"unknown expectation {expect!r}: one of {EXPECTATIONS}")


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile of ``values``, rounded to 2 places (0 for an empty list)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 2)


def reliability(outcomes: Iterable[tuple[str | None, bool]]) -> dict[str, Any]:
    """The reliability table of ``(confidence, correct)`` pairs.

    Returns ``{"n", "levels": {level: {"n", "correct", "share_correct"}},
    "wrong_high", "wrong_high_rate"}``. Every level of
    :data:`CONFIDENCE_LEVELS` is listed (``share_correct`` is None when it has
    no responses); a missing confidence counts under ``"none"``.
    ``wrong_high_rate`` is ``wrong_high / n`` (0.0 for no responses).
    """
    levels: dict[str, dict[str, Any]] = {level: {"n": 0, "correct": 0} for level in CONFIDENCE_LEVELS}
    n = wrong_high = 0
    for confidence, correct in outcomes:
        row = levels.setdefault(confidence or "none", {"n": 0, "correct": 0})
        row["n"] += 1
        row["correct"] += bool(correct)
        n += 1
        wrong_high += confidence == "high" and not correct
    for row in levels.values():
        row["share_correct"] = round(row["correct"] / row["n"], 4) if row["n"] else None
    return {
        "n": n,
        "levels": levels,
        "wrong_high": wrong_high,
        "wrong_high_rate": round(wrong_high / n, 4) if n else 0.0,
    }


def reliability_lines(columns: Mapping[str, Mapping[str, Any]], *, indent: str = "") -> list[str]:
    """The reliability tables as text, side by side: one column pair (n, share correct) per table.

    ``columns`` maps a heading to a table of :func:`reliability`; the
    ``wrong_high_rate`` line is that of the first.
    """
    tables = list(columns.values())
    levels = list(dict.fromkeys(level for table in tables for level in table["levels"]))
    lines = [f"{indent}{'':10}" + "".join(f" {heading:>20}" for heading in columns)]
    lines.append(f"{indent}{'confidence':10}" + f" {'n':>7} {'correct':>12}" * len(tables))
    for level in levels:
        cells = ""
        for table in tables:
            row = table["levels"].get(level, {"n": 0, "share_correct": None})
            share = "-" if row["share_correct"] is None else f"{row['share_correct']:.3f}"
            cells += f" {row['n']:>7} {share:>12}"
        lines.append(f"{indent}{level:10}{cells}")
    first = tables[0]
    lines.append(
        f"{indent}wrong_high_rate {first['wrong_high_rate']:.4f} "
        f"({first['wrong_high']} of {first['n']} responses were high and wrong)"
    )
    return lines
