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
