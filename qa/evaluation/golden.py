"""The portal evaluation: the golden questions asked through the answering service, scored on answer keys.

Each question is asked by one user (the demo ``employee``, who belongs to no
group) in a fresh conversation through :func:`qa.services.answer_question`,
and read back as the API returns it (:func:`qa.presenters.answer_payload`):
what is scored is what ``POST /api/v1/ask`` would answer. Scoring is
:func:`qa.evaluation.scoring.is_correct`; the summary gives accuracy overall, per kind and
per split, the reliability table per confidence level, how many clear
questions were asked back, and the ask latency.

The ``evaluate_portal`` command decides which database and index this runs
against (a throw-away copy of the demo by default).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model

from qa.evaluation.evaluate import read_jsonl
from qa.evaluation.scoring import is_correct, percentile, reliability, reliability_lines
from qa.models import Conversation
from qa.presenters import answer_payload
from qa.services import answer_question

GOLDEN_QUERIES = Path(settings.BASE_DIR) / "documents" / "demo_corpus" / "golden" / "queries.jsonl"
SPLITS = ("dev", "held_out")


@dataclass(frozen=True)
class GoldenQuery:
    """One golden question and what the employee must get (documents/demo_corpus/golden/build_corpus.py)."""

    qid: str
    question: str
    kind: str
    expect: str
    split: str
    lang: str = "ja"
    answers: tuple[str, ...] = ()
    answers_all: tuple[str, ...] = ()
    gold_doc_id: str | None = None

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> GoldenQuery:
        """A query from its JSONL line; ``expect`` defaults to ``answer`` and ``split`` to ``dev``."""
        return cls(
            qid=str(row["qid"]),
            question=str(row["question"]),
            kind=str(row.get("kind") or ""),
            expect=str(row.get("expect") or "answer"),
            split=str(row.get("split") or "dev"),
            lang=str(row.get("lang") or "ja"),
            answers=tuple(row.get("answers") or ()),
            answers_all=tuple(row.get("answers_all") or ()),
            gold_doc_id=row.get("gold_doc_id"),
        )


def load_golden(path: Path = GOLDEN_QUERIES, *, split: str | None = None, kind: str | None = None) -> list[GoldenQuery]:
    """The golden queries of ``path``, only those of ``split`` and ``kind`` when given."""
    queries = [GoldenQuery.from_json(row) for row in read_jsonl(path)]
    return [q for q in queries if (split is None or q.split == split) and (kind is None or q.kind == kind)]


@dataclass(frozen=True)
class Result:
    """How one golden question was answered, and whether that was right."""

    query: GoldenQuery
    response_type: str
    confidence: str
    flags: tuple[str, ...]
    answer: str
    withheld: bool
    correct: bool
    latency_ms: float
    sources: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        q = self.query
        return {
            "qid": q.qid,
            "question": q.question,
            "kind": q.kind,
            "split": q.split,
            "lang": q.lang,
            "expect": q.expect,
            "gold_doc_id": q.gold_doc_id,
            "answers": list(q.answers),
            "answers_all": list(q.answers_all),
            "response_type": self.response_type,
            "confidence": self.confidence,
            "flags": list(self.flags),
            "withheld": self.withheld,
            "answer": self.answer,
            "sources": list(self.sources),
            "correct": self.correct,
            "latency_ms": round(self.latency_ms, 1),
        }


def score_payload(query: GoldenQuery, payload: Mapping[str, Any], *, latency_ms: float = 0.0) -> Result:
    """Score one API answer body (``answer_payload``) against ``query``."""
    withheld = bool((payload.get("verification") or {}).get("replaced_text"))
    response_type = str(payload.get("response_type") or "")
    text = str(payload.get("answer") or "")
    return Result(
        query=query,
        response_type=response_type,
        confidence=str(payload.get("confidence") or ""),
        flags=tuple(payload.get("flags") or ()),
        answer=text,
        withheld=withheld,
        correct=is_correct(
            query.expect,
            response_type=response_type,
            answer_text=text,
            withheld=withheld,
            answers=query.answers,
            answers_all=query.answers_all,
        ),
        latency_ms=latency_ms,
        sources=tuple(payload.get("sources") or ()),
    )


def ask_golden(
    queries: Sequence[GoldenQuery],
    *,
    username: str = "employee",
    progress: Callable[[int, int], None] | None = None,
) -> list[Result]:
    """Ask every query as ``username``, each in a fresh conversation, and score the answers.

    The conversations (and their answers) are deleted afterwards, so a review
    queue never sees them. Raises ValueError when the user does not exist or
    belongs to a group: the golden set's expectations are an employee's.
    """
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ValueError(f"no user named {username!r}: load_demo creates the demo employee")
    groups = sorted(user.groups.values_list("name", flat=True))
    if groups:
        raise ValueError(f"{username!r} belongs to {groups}: the golden set expects a user without groups")
    results: list[Result] = []
    conversations: list[int] = []
    try:
        for i, query in enumerate(queries, start=1):
            started = time.perf_counter()
            answer = answer_question(user=user, text=query.question).answer
            latency_ms = (time.perf_counter() - started) * 1000
            conversations.append(answer.conversation_id)
            results.append(score_payload(query, answer_payload(answer), latency_ms=latency_ms))
            if progress:
                progress(i, len(queries))
    finally:
        Conversation.objects.filter(pk__in=conversations).delete()  # their answers, sources and citations too
    return results


def _accuracy(results: Iterable[Result], key: Callable[[Result], str]) -> dict[str, dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for result in results:
        group = groups.setdefault(key(result), {"n": 0, "correct": 0})
        group["n"] += 1
        group["correct"] += result.correct
    for group in groups.values():
        group["accuracy"] = round(group["correct"] / group["n"], 4)
    return groups


def summarise(results: Sequence[Result]) -> dict[str, Any]:
    """The numbers of a run: accuracy (overall, per kind, per split), reliability, asked-back clear questions, latency.

    ``reliability`` covers every response; ``reliability_answers`` only the
    ``answer`` responses (not-found and clarification responses are always
    ``low``, which would flatter that level).
    """
    n = len(results)
    correct = sum(r.correct for r in results)
    clear = [r for r in results if r.query.expect == "answer"]
    latencies = [r.latency_ms for r in results]
    return {
        "n": n,
        "correct": correct,
        "accuracy": round(correct / n, 4) if n else 0.0,
        "by_kind": _accuracy(results, lambda r: r.query.kind),
        "by_split": _accuracy(results, lambda r: r.query.split),
        "reliability": reliability((r.confidence, r.correct) for r in results),
        "reliability_answers": reliability((r.confidence, r.correct) for r in results if r.response_type == "answer"),
        "clear_questions": len(clear),
        "clear_asked_back": sum(r.response_type == "clarification" for r in clear),
        "response_types": _accuracy(results, lambda r: r.response_type),
        "latency_ms": {"p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95)},
    }


def summary_text(summary: Mapping[str, Any]) -> str:
    """The summary as the command prints it."""
    lines = [f"accuracy {summary['accuracy']:.3f} ({summary['correct']} of {summary['n']} questions)", ""]
    for title, groups in (("kind", summary["by_kind"]), ("split", summary["by_split"])):
        lines.append(f"{title:12} {'n':>5} {'correct':>8} {'accuracy':>9}")
        for name, group in sorted(groups.items(), key=lambda item: (-item[1]["n"], item[0])):
            lines.append(f"{name:12} {group['n']:>5} {group['correct']:>8} {group['accuracy']:>9.3f}")
        lines.append("")
    lines.append("reliability (share correct per confidence level)")
    lines.extend(
        reliability_lines(
            {"all responses": summary["reliability"], "answers only": summary["reliability_answers"]}, indent="  "
        )
    )
    types = ", ".join(f"{name} {group['n']}" for name, group in sorted(summary["response_types"].items()))
    lines += [
        "",
        f"response types: {types}",
        f"clear questions asked back: {summary['clear_asked_back']} of {summary['clear_questions']}",
        f"ask latency ms: p50 {summary['latency_ms']['p50']}  p95 {summary['latency_ms']['p95']}",
    ]
    return "\n".join(lines)


def failures_text(results: Iterable[Result], *, limit: int = 200) -> str:
    """One line per wrong response: qid, kind, expectation, what came back and at which confidence."""
    lines = []
    for r in (r for r in results if not r.correct):
        got = r.response_type + (" (withheld)" if r.withheld else "")
        answer = " ".join(r.answer.split())[:limit]
        lines.append(
            f"{r.query.qid} [{r.query.kind}] expect {r.query.expect}, got {got} {r.confidence}: "
            f"{r.query.question} → {answer}"
        )
    return "\n".join(lines)
