"""The portal evaluation: scoring API answer bodies, the summary, and `manage.py evaluate_portal` end to end."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command

from qa.models import Answer, Conversation
from qa.evaluation.golden import GOLDEN_QUERIES, GoldenQuery, Result, load_golden, score_payload, summarise

LEAVE = GoldenQuery("q1", "有給休暇は何日もらえますか？", "lexical", "answer", "dev", answers=("10日",))


def payload(response_type: str = "answer", text: str = "10日です", *, confidence: str = "high", replaced: bool = False):
    return {
        "response_type": response_type,
        "answer": text,
        "confidence": confidence,
        "flags": ["low_grounding"] if replaced else [],
        "sources": ["attendance.md"],
        "verification": {"replaced_text": replaced},
    }


def result(kind: str, split: str, confidence: str, correct: bool, *, expect: str = "answer", rtype: str = "answer"):
    query = GoldenQuery(f"{kind}-{split}-{confidence}", "?", kind, expect, split)
    return Result(query, rtype, confidence, (), "", False, correct, latency_ms=10.0)


def test_score_payload_reads_the_api_body() -> None:
    scored = score_payload(LEAVE, payload(), latency_ms=12.5)
    assert scored.correct and scored.confidence == "high" and scored.sources == ("attendance.md",)
    assert not score_payload(LEAVE, payload(text="11日です")).correct
    withheld = score_payload(LEAVE, payload(text="関連する文書を十分に見つけられませんでした", replaced=True))
    assert withheld.withheld and not withheld.correct
    off_topic = GoldenQuery("q2", "株価は？", "off_topic", "not_found", "held_out")
    assert score_payload(off_topic, payload(text="…", replaced=True, confidence="low")).correct
    assert not score_payload(off_topic, payload(text="株価は1,000円です")).correct


def test_summary_counts_accuracy_by_kind_and_split_and_the_reliability() -> None:
    results = [
        result("lexical", "dev", "high", True),
        result("lexical", "held_out", "high", False),
        result("table", "dev", "medium", True),
        result("off_topic", "dev", "low", True, expect="not_found", rtype="not_found"),
        result("table", "held_out", "low", False, rtype="clarification"),
    ]
    summary = summarise(results)
    assert (summary["n"], summary["correct"], summary["accuracy"]) == (5, 3, 0.6)
    assert summary["by_kind"]["lexical"] == {"n": 2, "correct": 1, "accuracy": 0.5}
    assert summary["by_split"]["held_out"] == {"n": 2, "correct": 0, "accuracy": 0.0}
    assert summary["reliability"]["levels"]["low"]["n"] == 2
    assert summary["reliability"]["wrong_high_rate"] == 0.2
    # Only answers: the not-found and the clarification are left out.
    assert summary["reliability_answers"]["n"] == 3
    assert (summary["clear_questions"], summary["clear_asked_back"]) == (4, 1)


def test_the_golden_file_loads_with_filters() -> None:
    every = load_golden()
    held_out = load_golden(split="held_out")
    assert 0 < len(held_out) < len(every)
    assert {q.split for q in held_out} == {"held_out"}
    two_fact = load_golden(kind="two_fact")
    assert two_fact and all(len(q.answers_all) >= 2 for q in two_fact)


# --- the command, end to end -------------------------------------------------------------


def golden_lines(tmp_path: Path, *qids: str) -> Path:
    lines = [line for line in GOLDEN_QUERIES.read_text("utf-8").splitlines() if json.loads(line)["qid"] in qids]
    assert len(lines) == len(qids)
    path = tmp_path / "queries.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def by_question(text: str) -> dict:
    return next(json.loads(line) for line in GOLDEN_QUERIES.read_text("utf-8").splitlines() if text in line)


@pytest.mark.django_db
def test_evaluate_portal_asks_as_the_employee_and_leaves_no_answers(tmp_path, ingest, employee):
    ingest("attendance.md")
    ingest("evaluation.md", groups=["managers"])
    leave = by_question('"有給休暇は何日もらえますか？"')
    weather = by_question("明日の東京の天気は？")
    self_review = by_question("自己評価はいつまでに入力しますか？")
    queries = golden_lines(tmp_path, leave["qid"], weather["qid"], self_review["qid"])
    out = tmp_path / "report.json"
    printed = StringIO()

    call_command("evaluate_portal", queries=str(queries), in_place=True, json_out=str(out), quiet=True, stdout=printed)

    report = json.loads(out.read_text("utf-8"))
    results = {r["qid"]: r for r in report["results"]}
    assert results[leave["qid"]]["response_type"] == "answer"
    assert "10日" in results[leave["qid"]]["answer"] and results[leave["qid"]]["correct"]
    # The restricted document is never retrieved for the employee.
    restricted = results[self_review["qid"]]
    assert "evaluation.md" not in restricted["sources"] and "10月7日" not in restricted["answer"]
    for r in results.values():
        assert r["confidence"] in ("high", "medium", "low")
        if r["expect"] == "not_found":
            assert r["correct"] == (r["response_type"] == "not_found" or r["withheld"])
    summary = report["summary"]
    assert summary["n"] == 3 and summary["correct"] == sum(r["correct"] for r in results.values())
    assert sum(row["n"] for row in summary["reliability"]["levels"].values()) == 3
    text = printed.getvalue()
    assert "accuracy" in text and "wrong_high_rate" in text
    # The questions were asked for the evaluation only: nothing stays behind for reviewers.
    assert not Answer.objects.exists() and not Conversation.objects.exists()


@pytest.mark.django_db
def test_evaluate_portal_refuses_an_employee_with_groups_or_no_employee(tmp_path, employee):
    employee.groups.add(Group.objects.create(name="managers"))
    with pytest.raises(CommandError, match="without groups"):
        call_command("evaluate_portal", in_place=True, quiet=True, kind="ambiguous", stdout=StringIO())
    employee.delete()
    with pytest.raises(CommandError, match="no user named 'employee'"):
        call_command("evaluate_portal", in_place=True, quiet=True, kind="ambiguous", stdout=StringIO())
    with pytest.raises(CommandError, match="no golden query"):
        call_command("evaluate_portal", in_place=True, kind="nonsense", stdout=StringIO())
