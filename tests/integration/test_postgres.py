"""The portal on PostgreSQL and a Chroma server, as `make run-prod-services` runs it.

The same scenarios as tests/documents/test_worker.py and test_chroma_server.py
(tests/portal.py), against a database of their own on RAGPORTAL_TEST_POSTGRES and
a collection of their own on RAGPORTAL_TEST_CHROMA.
"""

from __future__ import annotations

import pytest

from tests.portal import (
    TRAVEL_V1,
    Portal,
    chroma_server_stopped,
    upload_is_made_live_by_a_worker,
    worker_killed_while_embedding_a_new_version,
)
from tests.servers import chroma_server

pytestmark = pytest.mark.integration


def test_an_upload_is_indexed_by_a_worker_and_answers_a_question(portal):
    upload_is_made_live_by_a_worker(portal)
    assert portal.row("SELECT count(*) FROM documents_document") == (1,)  # the rows are in PostgreSQL

    out = portal.manage("ask", "国内出張の日当はいくらですか", "--user", "owner")

    assert "2,000円" in out
    assert "travel.md" in out  # the footnote names the file


def test_a_worker_killed_while_embedding_a_new_version(portal, worker):
    """The old version keeps answering; the retry makes the new one live; check_index is clean."""
    worker_killed_while_embedding_a_new_version(portal, worker)


def test_the_chroma_server_stopping(tmp_path, pg_database):
    """Health says error and a question gets a clear 503 that stores nothing (a Chroma server of its own, stopped)."""
    with chroma_server(tmp_path / "chroma-server") as (process, port):
        portal = Portal(tmp_path / "portal", database_url=pg_database, chroma=("127.0.0.1", port, "chunks"))
        portal.manage("migrate", "--noinput", "-v0")
        assert "status indexing" in portal.ingest(TRAVEL_V1)
        portal.manage("index_worker", "--batch", "--nice", "0")
        assert "200 {'status': 'ok'" in portal.health()

        chroma_server_stopped(portal, process)

        assert portal.row("SELECT count(*) FROM qa_answer") == (0,)


def test_benchmark_retrieval_compares_keyword_hits_with_fts5(portal, tmp_path):
    """On PostgreSQL the latency benchmark also says whether keyword search finds what SQLite FTS5 finds."""
    import json

    corpus, queries = tmp_path / "corpus.jsonl", tmp_path / "queries.jsonl"
    records = [
        {"doc_id": f"d{i}", "title": f"規程{i}", "text": f"# 規程{i}\n{topic}の申請は{i + 3}日前までに行います。"}
        for i, topic in enumerate(["出張", "経費精算", "有給休暇"])
    ]
    corpus.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records), encoding="utf-8")
    asked = [{"qid": "q1", "question": "経費精算の申請はいつまで？", "gold_doc_id": "d1"}]
    queries.write_text(json.dumps(asked[0], ensure_ascii=False), encoding="utf-8")

    out = portal.manage(
        "benchmark_retrieval", "--corpus", str(corpus), "--queries", str(queries), "--chunks", "30", "--n", "1"
    )

    report = json.JSONDecoder().raw_decode(out, out.index("{"))[0]["sizes"]["30"]  # progress lines follow
    assert report["keyword_backend"] == "postgresql"
    parity = report["keyword_parity"]
    assert parity["postgresql"]["hit@1"] == parity["sqlite-fts5"]["hit@1"] == 1.0
    assert parity["difference"] == {"hit@1": 0.0, "hit@3": 0.0, "hit@5": 0.0}
