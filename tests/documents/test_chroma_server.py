"""The portal against a Chroma server (`chroma run`, shipped with chromadb) instead of the embedded directory.

Web requests, the indexing worker and the commands all talk to one server on
127.0.0.1 (CHROMA_HOST/CHROMA_PORT); stopping it turns health into "error".
tests/integration/test_postgres.py runs the same on PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.portal import IMMEDIATE, TRAVEL_V1, Portal, chroma_server_stopped
from tests.servers import chroma_command
from tests.servers import chroma_server as started_chroma_server


@pytest.fixture
def chroma_server(tmp_path: Path):
    if chroma_command() is None:
        pytest.skip("the chroma command (from the chromadb package) is not installed")
    with started_chroma_server(tmp_path / "chroma-server") as (process, port):
        yield process, port


def test_upload_worker_and_answers_through_a_chroma_server_and_health_when_it_stops(tmp_path, chroma_server):
    process, port = chroma_server
    portal = Portal(tmp_path / "portal", chroma=("127.0.0.1", port, "chunks"))
    portal.manage("migrate", "--noinput", "-v0")

    assert "status indexing" in portal.ingest(TRAVEL_V1)
    portal.manage("index_worker", "--batch", "--nice", "0")

    assert portal.row("SELECT status FROM documents_document") == ("ready",)
    assert "2,000円" in portal.answer_text()
    assert not (tmp_path / "portal" / "chroma").exists()  # nothing went to an embedded directory
    assert "consistent" in portal.manage("check_index")
    assert "200 {'status': 'ok'" in portal.health()

    chroma_server_stopped(portal, process)

    # A replacement indexed meanwhile fails in words; the live version stays and nothing of the new one is indexed.
    out = portal.ingest(TRAVEL_V1.replace("2,000円", "3,500円"), TASKS_BACKEND=IMMEDIATE)
    assert "status failed" in out
    status, message, live = portal.row(
        "SELECT d.status, d.status_message, v.number FROM documents_document d"
        " JOIN documents_documentversion v ON v.id = d.live_version_id"
    )
    assert (status, live) == ("failed", 1)
    assert "ベクトル索引）のサーバーに接続できませんでした" in message
    assert portal.row(
        "SELECT count(*) FROM documents_chunk_fts WHERE version_id != (SELECT live_version_id FROM documents_document)"
    ) == (0,)
