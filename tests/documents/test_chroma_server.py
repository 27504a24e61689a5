"""The portal against a Chroma server (`chroma run`, shipped with chromadb) instead of the embedded directory.

Web requests, the indexing worker and the commands all talk to one server on
127.0.0.1 (CHROMA_HOST/CHROMA_PORT); stopping it turns health into "error".
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.documents.test_worker import TRAVEL_V1, Portal
from tests.servers import free_port, wait_until_listening

CHROMA = Path(sys.executable).with_name("chroma")


@pytest.fixture
def chroma_server(tmp_path: Path):
    if not CHROMA.exists() and shutil.which("chroma") is None:
        pytest.skip("the chroma command (from the chromadb package) is not installed")
    port = free_port()
    process = subprocess.Popen(
        [str(CHROMA if CHROMA.exists() else shutil.which("chroma")), "run", "--path", str(tmp_path / "chroma-server"),
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},  # loopback only: no usage reports
    )  # fmt: skip
    try:
        wait_until_listening(port, process, "chroma run", timeout=60)
        yield process, port
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def test_upload_worker_and_answers_through_a_chroma_server_and_health_when_it_stops(tmp_path, chroma_server):
    process, port = chroma_server
    portal = Portal(tmp_path / "portal")
    portal.env.update(CHROMA_HOST="127.0.0.1", CHROMA_PORT=str(port))
    portal.manage("migrate", "--noinput", "-v0")

    assert "status indexing" in portal.ingest(TRAVEL_V1)
    portal.manage("index_worker", "--batch", "--nice", "0")

    assert portal.row("SELECT status FROM documents_document") == ("ready",)
    assert "2,000円" in portal.answer_text()
    assert not (tmp_path / "portal" / "chroma").exists()  # nothing went to an embedded directory
    assert "consistent" in portal.manage("check_index")
    health = "from django.test import Client\nr = Client().get('/api/v1/health')\nprint(r.status_code, r.json())\n"
    assert "200 {'status': 'ok'" in portal.python(health)

    process.terminate()
    process.wait(10)

    out = portal.python(health)
    assert "503 {'status': 'error'" in out
    assert "'chroma': {'ok': False" in out

    # A question gets a clear 503 and leaves nothing stored.
    ask = (
        "from django.test import Client\nfrom qa.models import Answer, Conversation\n"
        "client = Client()\nclient.force_login(owner)\n"
        "r = client.post('/api/v1/ask', {'text': '国内出張の日当はいくらですか'}, content_type='application/json')\n"
        "print(r.status_code, r.json()['detail'])\n"
        "print('stored', Conversation.objects.count(), Answer.objects.count())\n"
    )
    out = portal.python(ask)
    assert "503 検索用の索引（ベクトル索引）に接続できないため、いまは回答できません" in out
    assert "stored 0 0" in out

    # A replacement indexed meanwhile fails in words; the live version stays and nothing of the new one is indexed.
    out = portal.ingest(
        TRAVEL_V1.replace("2,000円", "3,500円"), TASKS_BACKEND="django_tasks.backends.immediate.ImmediateBackend"
    )
    assert "status failed" in out
    status, message, live = portal.row(
        "SELECT d.status, d.status_message, v.number FROM documents_document d"
        " JOIN documents_documentversion v ON v.id = d.live_version_id"
    )
    assert (status, live) == ("failed", 1)
    assert "ベクトル索引）のサーバーに接続できませんでした" in message
    assert portal.row("SELECT count(*) FROM documents_chunk_fts WHERE version_id != (SELECT live_version_id FROM documents_document)") == (0,)
