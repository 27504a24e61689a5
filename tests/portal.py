"""The portal's own commands in subprocesses against a throw-away data directory, and scenarios shared by backends.

`Portal` runs ``manage.py`` with the database task backend, as ``make run`` does,
on the embedded default (a SQLite file and a Chroma directory in the data
directory) or on given services (a PostgreSQL database, a Chroma server). The
scenarios below run unchanged on either: tests/documents/test_worker.py on SQLite,
tests/integration/ on PostgreSQL and a Chroma server. Small chunks
(RAG_CHUNK_SIZE=100) keep embedding short.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from ragportal.throwaway import read_rows

TRAVEL_V1 = "# 出張旅費規程\n## 日当\n国内出張の日当は1日あたり2,000円とする。\n"
# Long enough that a worker can be caught half-way (progress is recorded every 32 chunks).
TRAVEL_V2 = "# 出張旅費規程\n## 日当\n国内出張の日当は1日あたり3,500円に改定する。\n" + "".join(
    f"## 第{i}条\n第{i}条の定めにより、出張の申請は出発の三日前までに上長へ提出する。\n" for i in range(1, 71)
)
QUESTION = "国内出張の日当はいくらですか"
IMMEDIATE = "django_tasks.backends.immediate.ImmediateBackend"
PYTHON_SETUP = (
    "from django.contrib.auth.models import User\n"
    "from documents.models import Document\n"
    "from documents.services import document_ingest\n"
    "from qa.retrieval import search\n"
    "owner, _ = User.objects.get_or_create(username='owner')\n"
)
HEALTH = "from django.test import Client\nr = Client().get('/api/v1/health')\nprint(r.status_code, r.json())\n"
ASK_API = (
    "from django.test import Client\nfrom qa.models import Answer, Conversation\n"
    "client = Client()\nclient.force_login(owner)\n"
    f"r = client.post('/api/v1/ask', {{'text': {QUESTION!r}}}, content_type='application/json')\n"
    "print(r.status_code, r.json().get('detail') or r.json().get('answer'))\n"
    "print('stored', Conversation.objects.count(), Answer.objects.count())\n"
)


class Portal:
    """manage.py commands against one data directory, with the database task backend.

    ``database_url`` (PostgreSQL) and ``chroma`` (host, port, collection) replace
    the embedded SQLite file and Chroma directory.
    """

    def __init__(
        self, data_dir: Path, *, database_url: str | None = None, chroma: tuple[str, int, str] | None = None
    ) -> None:
        self.data_dir = data_dir
        self.database_url = database_url or f"sqlite:///{data_dir / 'ragportal.sqlite3'}"
        drop = {"DATABASE_URL", "CHROMA_HOST", "CHROMA_PORT", "CHROMA_COLLECTION", "DJANGO_SETTINGS_MODULE"}
        self.env = {key: value for key, value in os.environ.items() if key not in drop}
        self.env.update(
            DJANGO_SETTINGS_MODULE="ragportal.settings",
            DEBUG="1",
            RAGPORTAL_DATA_DIR=str(data_dir),
            TASKS_BACKEND="django_tasks_db.DatabaseBackend",
            RAG_PROVIDER="extractive",
            RAG_CHUNK_SIZE="100",
            RAG_CHUNK_OVERLAP="0",
            OMP_NUM_THREADS="1",
        )
        if database_url:
            self.env["DATABASE_URL"] = database_url
        if chroma:
            self.use_chroma_server(*chroma)

    def use_chroma_server(self, host: str, port: int, collection: str = "chunks") -> None:
        self.env.update(CHROMA_HOST=host, CHROMA_PORT=str(port), CHROMA_COLLECTION=collection)

    def command(self, *args: str) -> list[str]:
        return [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), *args]

    def manage(self, *args: str, timeout: float = 240, check: bool = True, **env: str) -> str:
        done = subprocess.run(
            self.command(*args), env={**self.env, **env}, cwd=settings.BASE_DIR,
            capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip
        if check and done.returncode != 0:
            raise AssertionError(f"manage.py {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        return done.stdout + done.stderr

    def python(self, code: str, **env: str) -> str:
        return self.manage("shell", "-c", PYTHON_SETUP + code, **env)

    def rows(self, sql: str, *params: object) -> list[tuple]:
        """Rows read straight from the portal's database (``?`` placeholders, on either backend)."""
        return read_rows(self.database_url, sql, params)

    def row(self, sql: str, *params: object) -> tuple:
        rows = self.rows(sql, *params)
        return rows[0] if rows else ()

    def ingest(self, text: str, **env: str) -> str:
        code = (
            f"document = document_ingest(owner=owner, filename='travel.md', data={text!r}.encode(),"
            " document=Document.objects.filter(filename='travel.md').first())\n"
            "print('status', document.status)\n"
        )
        return self.python(code, **env)

    def answer_text(self) -> str:
        return self.python(f"print(search(user=owner, query={QUESTION!r}).hits[0].text)")

    def health(self) -> str:
        """``STATUS {json}`` of GET /api/v1/health."""
        return self.python(HEALTH)

    def ask_api(self) -> str:
        """``STATUS detail-or-answer`` of POST /api/v1/ask as the owner, then ``stored CONVERSATIONS ANSWERS``."""
        return self.python(ASK_API)


@contextmanager
def worker_processes(portal: Portal) -> Iterator[Callable[[], subprocess.Popen]]:
    """A function that starts a long-running worker (as `make run` does); every one is killed at the end."""
    started: list[subprocess.Popen] = []

    def start() -> subprocess.Popen:
        process = subprocess.Popen(
            portal.command("index_worker", "--sole-worker", "--interval", "0.2", "--nice", "0"),
            env=portal.env, cwd=settings.BASE_DIR, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        started.append(process)
        return process

    try:
        yield start
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
            process.wait(10)


def live_status(portal: Portal) -> tuple:
    return portal.row(
        "SELECT d.status, v.number FROM documents_document d JOIN documents_documentversion v ON v.id = d.live_version_id"
    )


def upload_is_made_live_by_a_worker(portal: Portal) -> None:
    """An upload returns at once (queued); `index_worker --batch` makes it live, and it answers."""
    assert "status indexing" in portal.ingest(TRAVEL_V1)  # queued, not indexed inside the call
    assert portal.row("SELECT count(*) FROM django_tasks_database_dbtaskresult WHERE status = 'READY'") == (1,)

    portal.manage("index_worker", "--batch", "--nice", "0")

    # The status message says why, when indexing failed.
    assert portal.row("SELECT status, status_message, live_version_id IS NOT NULL FROM documents_document") == (
        "ready", "", True,
    )  # fmt: skip
    assert "2,000円" in portal.answer_text()
    assert "consistent" in portal.manage("check_index")


def worker_killed_while_embedding_a_new_version(portal: Portal, start_worker: Callable[[], subprocess.Popen]) -> None:
    """The old version keeps answering; the job is retried at the next worker start; the indexes end consistent."""
    portal.ingest(TRAVEL_V1, TASKS_BACKEND=IMMEDIATE)
    assert portal.row("SELECT status FROM documents_document") == ("ready",)
    portal.ingest(TRAVEL_V2)
    v2, total = portal.row(
        "SELECT v.id, count(c.id) FROM documents_documentversion v JOIN documents_chunk c ON c.version_id = v.id"
        " WHERE v.number = 2 GROUP BY v.id"
    )

    process = start_worker()
    deadline = time.monotonic() + 180
    while portal.row("SELECT chunks_embedded FROM documents_documentversion WHERE id = ?", v2)[0] == 0:
        assert process.poll() is None and time.monotonic() < deadline, "the worker never started embedding"
        time.sleep(0.1)
    process.send_signal(signal.SIGKILL)
    process.wait(10)

    embedded = portal.row("SELECT chunks_embedded FROM documents_documentversion WHERE id = ?", v2)[0]
    assert 0 < embedded < total  # killed half-way
    assert live_status(portal) == ("indexing", 1)
    assert "2,000円" in portal.answer_text()  # the old version keeps answering
    # The half-written entries belong to v2, still in flight: not drift.
    assert portal.manage("check_index").rstrip().endswith("consistent")

    out = portal.manage("index_worker", "--sole-worker", "--batch", "--nice", "0")

    assert "recovery: 1 abandoned task(s) marked failed; re-queued travel.md v2" in out
    tasks = portal.rows("SELECT status FROM django_tasks_database_dbtaskresult ORDER BY enqueued_at")
    assert tasks == [("FAILED",), ("SUCCESSFUL",)]  # the killed run, then its retry
    assert live_status(portal) == ("ready", 2)
    assert "3,500円" in portal.answer_text()
    out = portal.manage("check_index")
    assert f"live chunks {total}, dense entries {total}, keyword entries {total}: consistent" in out


def chroma_server_stopped(portal: Portal, server: subprocess.Popen) -> None:
    """With the Chroma server gone, health says error and a question gets a clear 503 that stores nothing."""
    server.terminate()
    server.wait(10)

    out = portal.health()
    assert "503 {'status': 'error'" in out
    assert "'chroma': {'ok': False" in out

    out = portal.ask_api()
    assert "503 検索用の索引（ベクトル索引）に接続できないため、いまは回答できません" in out
    assert "stored 0 0" in out
