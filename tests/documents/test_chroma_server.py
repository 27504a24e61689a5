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


# The owner deletes travel.md through the API, then through the page's form (as the owner's browser posts it).
DELETE_BOTH_WAYS = (
    "from django.contrib.auth.models import Group\nfrom django.test import Client\n"
    "owner.groups.add(Group.objects.get(name='owners'))\n"
    "client = Client()\nclient.force_login(owner)\n"
    "pk = Document.objects.get().pk\n"
    "r = client.delete(f'/api/v1/documents/{pk}/')\n"
    "print('api', r.status_code, r.json().get('detail') if r.status_code != 204 else '')\n"
    "r = client.post(f'/documents/{pk}/delete/')\n"
    "print('page', r.status_code, 'いまは文書を削除できません' in r.content.decode())\n"
)


def test_deleting_a_document_while_the_chroma_server_is_down_is_a_503_and_removes_nothing(tmp_path):
    """Both the API and the owner's delete form say the index cannot be reached (503); the document stays whole
    (rows, keyword entries, vectors), and once the server is back it deletes cleanly."""
    if chroma_command() is None:
        pytest.skip("the chroma command (from the chromadb package) is not installed")
    server_data = tmp_path / "chroma-server"
    portal = Portal(tmp_path / "portal")
    portal.manage("migrate", "--noinput", "-v0")
    with started_chroma_server(server_data) as (process, port):
        portal.use_chroma_server("127.0.0.1", port)
        portal.ingest(TRAVEL_V1, TASKS_BACKEND=IMMEDIATE)
        process.terminate()
        process.wait(10)

        out = portal.python(DELETE_BOTH_WAYS)

    assert "api 503 検索用の索引（ベクトル索引）に接続できないため、いまは文書を削除できません" in out, out
    assert "page 503 True" in out, out
    chunks = portal.row("SELECT count(*) FROM documents_chunk")[0]
    assert chunks > 0 and portal.row("SELECT status FROM documents_document") == ("ready",)
    assert portal.row("SELECT count(*) FROM documents_chunk_fts") == (chunks,)

    with started_chroma_server(server_data) as (process, port):  # the same data, back on a new port
        portal.use_chroma_server("127.0.0.1", port)
        assert f"dense entries {chunks}, keyword entries {chunks}: consistent" in portal.manage("check_index")
        assert "api 204" in portal.python(DELETE_BOTH_WAYS)
        assert "live chunks 0, dense entries 0, keyword entries 0: consistent" in portal.manage("check_index")
