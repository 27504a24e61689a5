"""`manage.py ask`: the whole pipeline from the command line, as text or as the API's JSON."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from qa.models import Answer
from qa.presenters import answer_payload
from verification.grounding import NOT_FOUND_MESSAGE

pytestmark = pytest.mark.django_db

QUESTION = "有給休暇は何日もらえますか？"


def ask(*args: str, **options: object) -> str:
    out = StringIO()
    call_command("ask", *args, stdout=out, **options)
    return out.getvalue()


def test_ask_prints_the_answer_with_its_footnotes(ingest, employee):
    ingest("attendance.md")
    printed = ask(QUESTION, user="employee")

    answer = Answer.objects.get(user=employee)
    assert answer.question == QUESTION and answer.response_type == Answer.ResponseType.ANSWER
    assert f"Q: {QUESTION}" in printed
    assert answer.answer_text in printed and "10日" in printed
    citations = list(answer.citations.all())
    assert citations
    for citation in citations:
        assert f"[{citation.n}] attendance.md — {citation.section}" in printed
        assert f"「{citation.cited_text}」" in printed
    assert f"confidence: {answer.confidence}" in printed


def test_ask_json_prints_the_api_body(ingest, employee):
    ingest("attendance.md")
    body = json.loads(ask(QUESTION, user="employee", json=True))

    answer = Answer.objects.get(user=employee)
    expected = answer_payload(answer)
    assert set(body) == set(expected)
    assert body["id"] == answer.pk and body["response_type"] == "answer"
    assert body["citations"] == expected["citations"] and body["citations"]
    assert body["citations"][0]["filename"] == "attendance.md"
    assert body["answer"] == answer.answer_text
    assert "有給休暇" in body["expanded_query"]


def test_ask_reports_not_found_as_text(ingest, employee):
    ingest("attendance.md")
    printed = ask("社員食堂のメニューは？", user="employee")
    assert NOT_FOUND_MESSAGE in printed
    assert "type: not_found" in printed
    assert "[1]" not in printed


def test_ask_defaults_to_the_first_superuser(ingest, admin_user):
    ingest("attendance.md")
    ask(QUESTION)
    assert Answer.objects.get().user == admin_user


def test_ask_errors_are_command_errors(db):
    with pytest.raises(CommandError, match="no superuser"):
        ask(QUESTION)
    with pytest.raises(CommandError, match="nobody"):
        ask(QUESTION, user="nobody")


def test_ask_rejects_an_empty_question(employee):
    with pytest.raises(CommandError, match="質問を入力してください"):
        ask("   ", user="employee")
    assert not Answer.objects.exists()


def test_benchmark_api_times_the_ask_endpoint_and_cleans_up(ingest, employee, tmp_path):
    ingest("attendance.md")
    out = tmp_path / "bench.json"
    printed = StringIO()
    call_command("benchmark_api", n=3, skip_load=True, user="employee", json_out=str(out), stdout=printed)

    report = json.loads(out.read_text("utf-8"))
    assert report["n"] == 3 and report["provider"] == "extractive"
    assert 0 < report["api_ms"]["p50"] <= report["api_ms"]["p95"]
    assert 0 < report["pipeline_ms"]["p50"] <= report["pipeline_ms"]["p95"]
    assert sum(report["response_types"].values()) == 3  # the warm-up request is not counted
    assert "p50" in printed.getvalue() and "p95" in printed.getvalue()
    assert not Answer.objects.exists()  # the benchmark's answers are removed without --keep


def test_benchmark_retrieval_reports_latency_per_index_size(db, tmp_path):
    import json as _json
    from io import StringIO

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "\n".join(
            _json.dumps(
                {"doc_id": f"d{i}", "title": f"規程{i}", "text": f"# 規程{i}\n第{i}条の申請は{i}日前までに行います。"},
                ensure_ascii=False,
            )
            for i in range(3)
        ),
        encoding="utf-8",
    )
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        _json.dumps({"qid": "q", "question": "申請は何日前まで？", "gold_doc_id": "d1"}, ensure_ascii=False), "utf-8"
    )
    out = StringIO()
    call_command("benchmark_retrieval", corpus=str(corpus), queries=str(queries), chunks=[5, 20], n=1, stdout=out)
    result = _json.loads(out.getvalue())
    assert set(result["sizes"]) == {"5", "20"}
    for size in result["sizes"].values():
        assert 0 < size["p50_ms"] <= size["p95_ms"]
        assert size["acl_filtered_p50_ms"] > 0
        for stage in ("embed", "dense", "keyword", "fusion", "rerank"):  # where the time goes
            assert 0 <= size[f"{stage}_p50_ms"] <= size[f"{stage}_p95_ms"]
        assert size["embed_p50_ms"] > 0
