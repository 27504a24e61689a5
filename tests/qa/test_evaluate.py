"""`manage.py evaluate` on a tiny corpus: the metrics JSON, and the live data left alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from documents.keyword_index import TABLE
from documents.models import Chunk, Document
from documents.vectorstore import live_collection
from qa.models import Answer

pytestmark = pytest.mark.django_db

CORPUS = [
    {
        "doc_id": "leave",
        "title": "休暇規程",
        "text": "# 休暇規程\n\n## 有給休暇\n有給休暇は入社6ヶ月後に10日付与されます。申請は3日前までに行います。",
    },
    {
        "doc_id": "expense",
        "title": "経費規程",
        "text": "# 経費規程\n\n## 申請期限\n経費精算の申請期限は支払日から1ヶ月以内です。領収書を添付してください。",
    },
    {
        "doc_id": "remote",
        "title": "在宅勤務規程",
        "text": "# 在宅勤務規程\n\n## 回数\n在宅勤務は週2日まで認められます。前日までに上長の承認を得てください。",
    },
    {
        "doc_id": "security",
        "title": "情報セキュリティ規程",
        "text": "# 情報セキュリティ規程\n\n## パスワード\nパスワードは12文字以上とし、90日ごとに変更してください。",
    },
]
QUERIES = [
    {"qid": "q1", "question": "有給休暇は入社後何日付与されますか？", "gold_doc_id": "leave", "answers": ["10日"]},
    {
        "qid": "q2",
        "question": "経費精算の申請期限はいつまでですか？",
        "gold_doc_id": "expense",
        "answers": ["1ヶ月以内"],
    },
    {"qid": "q3", "question": "在宅勤務は週に何日まで認められますか？", "gold_doc_id": "remote", "answers": ["週2日"]},
    {"qid": "q4", "question": "パスワードは何文字以上にしますか？", "gold_doc_id": "security", "answers": ["12文字"]},
    # Deliberately wrong gold document: the metrics must count it as a miss.
    {"qid": "q5", "question": "パスワードは何日ごとに変更しますか？", "gold_doc_id": "leave", "answers": ["90日"]},
]
MODES = ("dense", "keyword", "hybrid")


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def live_state() -> tuple[int, int, int, int, int]:
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*) FROM {TABLE}")  # noqa: S608 - constant table name
        fts_rows = cur.fetchone()[0]
    return Document.objects.count(), Chunk.objects.count(), fts_rows, live_collection().count(), Answer.objects.count()


def test_evaluate_writes_the_metrics_and_leaves_live_data_alone(tmp_path, ingest, capsys):
    ingest("attendance.md")  # something live that must survive untouched
    before = live_state()
    assert before[3] > 0 and before[2] > 0
    corpus = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    queries = write_jsonl(tmp_path / "queries.jsonl", QUERIES)
    out = tmp_path / "report.json"

    call_command(
        "evaluate", corpus=str(corpus), queries=str(queries), json_out=str(out), compare=True, answers=True, quiet=True
    )

    assert live_state() == before
    report = json.loads(out.read_text("utf-8"))
    assert report["n"] == len(QUERIES)
    assert report["corpus"]["documents"] == len(CORPUS)
    assert set(report["modes"]) == set(MODES)
    for mode in MODES:
        m = report["modes"][mode]
        assert m["n"] == len(QUERIES)
        for key in ("hit@1", "hit@3", "hit@5", "mrr"):
            assert 0.0 <= m[key] <= 1.0, (mode, key)
        assert m["hit@1"] <= m["hit@3"] <= m["hit@5"]
        assert m["hit@1"] <= m["mrr"] <= m["hit@5"]
        latency = m["latency_ms"]
        assert 0 < latency["p50"] <= latency["p95"]
        for stages in (latency["stages_p50"], latency["stages_p95"]):
            assert set(stages) == {"expansion", "embed", "dense", "keyword", "fusion", "sentences", "rerank"}
    hybrid = report["modes"]["hybrid"]
    # Four obvious questions at rank 1; the fifth's "gold" is the wrong document.
    assert hybrid["hit@1"] == pytest.approx(0.8)
    assert hybrid["mrr"] < 1.0
    # Answers come from the answering service, once (it searches as the portal does).
    answers = report["answers"]
    assert answers["n"] == len(QUERIES)
    assert answers["response_types"] == {"answer": len(QUERIES)}
    # The decoy's answer contains its gold string ("90日") but cites the security document,
    # not the stated gold one.
    assert answers["answer_contains_gold"] == pytest.approx(1.0)
    assert answers["citation_hits_gold"] == pytest.approx(0.8)
    # Every answer's shown confidence lands in one level; the correct ones are those containing gold.
    table = answers["reliability"]
    assert table["n"] == len(QUERIES)
    assert sum(row["n"] for row in table["levels"].values()) == len(QUERIES)
    assert sum(row["correct"] for row in table["levels"].values()) == round(
        answers["answer_contains_gold"] * len(QUERIES)
    )
    printed = capsys.readouterr().out
    assert "hybrid" in printed and "hit@1" in printed
    assert "wrong_high_rate" in printed and "confidence" in printed


def test_an_obvious_question_is_hit_at_1_in_every_mode(tmp_path):
    corpus = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    queries = write_jsonl(tmp_path / "queries.jsonl", QUERIES[:1])
    out = tmp_path / "report.json"
    call_command("evaluate", corpus=str(corpus), queries=str(queries), json_out=str(out), compare=True, quiet=True)
    report = json.loads(out.read_text("utf-8"))
    for mode in MODES:
        m = report["modes"][mode]
        assert (m["hit@1"], m["mrr"]) == (1.0, 1.0), mode
    assert "answers" not in report  # only with --answers


def test_questions_that_expect_no_answer_are_left_to_evaluate_portal(tmp_path):
    corpus = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    off_topic = {"qid": "o1", "question": "株価は？", "gold_doc_id": None, "answers": [], "expect": "not_found"}
    queries = write_jsonl(tmp_path / "queries.jsonl", [QUERIES[0], off_topic])
    out = tmp_path / "report.json"
    call_command("evaluate", corpus=str(corpus), queries=str(queries), json_out=str(out), quiet=True)
    report = json.loads(out.read_text("utf-8"))
    assert report["n"] == 1 and report["skipped_expect_no_answer"] == 1
    assert report["modes"]["hybrid"]["hit@1"] == 1.0


def test_bad_input_is_a_command_error(tmp_path):
    corpus = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    with pytest.raises(CommandError, match="not found"):
        call_command("evaluate", corpus=str(corpus), queries=str(tmp_path / "missing.jsonl"), quiet=True)
    bad = write_jsonl(tmp_path / "queries.jsonl", [{"qid": "x", "question": "有給は？"}])
    with pytest.raises(CommandError, match="gold_doc_id"):
        call_command("evaluate", corpus=str(corpus), queries=str(bad), quiet=True)


def test_answers_are_what_the_portal_serves_off_topic_included(tmp_path):
    """An off-topic question gets the portal's "not found" (its off-topic step), scored as not answered."""
    corpus = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    weather = {"qid": "w1", "question": "明日の東京の天気は？", "gold_doc_id": "leave", "answers": ["晴れ"]}
    queries = write_jsonl(tmp_path / "queries.jsonl", [QUERIES[0], weather])
    out = tmp_path / "report.json"
    call_command("evaluate", corpus=str(corpus), queries=str(queries), json_out=str(out), answers=True, quiet=True)
    answers = json.loads(out.read_text("utf-8"))["answers"]
    assert answers["response_types"] == {"answer": 1, "not_found": 1}
    assert answers["answer_contains_gold"] == pytest.approx(0.5)
    assert answers["reliability"]["levels"]["low"]["n"] >= 1  # "not found" is shown as low confidence
    # Every answer is written, so two runs can be compared question by question.
    by_qid = {r["qid"]: r for r in answers["results"]}
    assert by_qid["w1"]["response_type"] == "not_found" and not by_qid["w1"]["correct"]
    assert by_qid[QUERIES[0]["qid"]]["correct"] and by_qid[QUERIES[0]["qid"]]["cites_gold"]
