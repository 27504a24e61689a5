"""The real thing: the database task backend and `manage.py index_worker` processes, as `make run` starts them.

Each test runs the portal's own commands in subprocesses against a throw-away
data directory (its own SQLite file and Chroma directory), with timeouts, and
kills whatever it started. Small chunks (RAG_CHUNK_SIZE=100) keep embedding short.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from django.conf import settings

from tests.servers import free_port

TRAVEL_V1 = "# 出張旅費規程\n## 日当\n国内出張の日当は1日あたり2,000円とする。\n"
# Long enough that a worker can be caught half-way (progress is recorded every 32 chunks).
TRAVEL_V2 = "# 出張旅費規程\n## 日当\n国内出張の日当は1日あたり3,500円に改定する。\n" + "".join(
    f"## 第{i}条\n第{i}条の定めにより、出張の申請は出発の三日前までに上長へ提出する。\n" for i in range(1, 71)
)
PYTHON_SETUP = (
    "from django.contrib.auth.models import User\n"
    "from documents.models import Document\n"
    "from documents.services import document_ingest\n"
    "from qa.retrieval import search\n"
    "owner, _ = User.objects.get_or_create(username='owner')\n"
)


class Portal:
    """manage.py commands against one data directory, with the database task backend."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.env = {
            key: value
            for key, value in os.environ.items()
            if key not in {"DATABASE_URL", "CHROMA_HOST", "DJANGO_SETTINGS_MODULE", "RAGPORTAL_DATA_DIR"}
        }
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

    def row(self, sql: str, *params: object) -> tuple:
        """One row read straight from the portal's SQLite file (read-only)."""
        with sqlite3.connect(f"file:{self.data_dir / 'ragportal.sqlite3'}?mode=ro", uri=True, timeout=20) as db:
            return db.execute(sql, params).fetchone()

    def ingest(self, text: str, **env: str) -> str:
        code = (
            f"document = document_ingest(owner=owner, filename='travel.md', data={text!r}.encode(),"
            " document=Document.objects.filter(filename='travel.md').first())\n"
            "print('status', document.status)\n"
        )
        return self.python(code, **env)

    def answer_text(self) -> str:
        return self.python("print(search(user=owner, query='国内出張の日当はいくらですか').hits[0].text)")


@pytest.fixture
def portal(tmp_path: Path) -> Portal:
    portal = Portal(tmp_path)
    portal.manage("migrate", "--noinput", "-v0")
    return portal


@pytest.fixture
def worker(portal: Portal):
    """Start a long-running worker (as `make run` does); always killed at the end."""
    started: list[subprocess.Popen] = []

    def start() -> subprocess.Popen:
        process = subprocess.Popen(
            portal.command("index_worker", "--sole-worker", "--interval", "0.2", "--nice", "0"),
            env=portal.env, cwd=settings.BASE_DIR, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(10)


def test_an_upload_returns_at_once_and_a_worker_makes_it_live(portal):
    out = portal.ingest(TRAVEL_V1)

    assert "status indexing" in out  # queued, not indexed inside the call
    assert portal.row("SELECT count(*) FROM django_tasks_database_dbtaskresult WHERE status = 'READY'") == (1,)

    out = portal.manage("index_worker", "--batch", "--nice", "0")

    assert portal.row("SELECT status, live_version_id IS NOT NULL FROM documents_document") == ("ready", 1)
    assert "2,000円" in portal.answer_text()
    assert "consistent" in portal.manage("check_index")


def test_a_worker_killed_while_embedding_a_new_version(portal, worker):
    """The old version keeps answering; the job is retried at the next worker start; the indexes end consistent."""
    portal.ingest(TRAVEL_V1, TASKS_BACKEND="django_tasks.backends.immediate.ImmediateBackend")
    assert portal.row("SELECT status FROM documents_document") == ("ready",)
    portal.ingest(TRAVEL_V2)
    v2, total = portal.row(
        "SELECT v.id, count(c.id) FROM documents_documentversion v JOIN documents_chunk c ON c.version_id = v.id"
        " WHERE v.number = 2 GROUP BY v.id"
    )

    process = worker()
    deadline = time.monotonic() + 180
    while portal.row("SELECT chunks_embedded FROM documents_documentversion WHERE id = ?", v2)[0] == 0:
        assert process.poll() is None and time.monotonic() < deadline, "the worker never started embedding"
        time.sleep(0.1)
    process.send_signal(signal.SIGKILL)
    process.wait(10)

    embedded = portal.row("SELECT chunks_embedded FROM documents_documentversion WHERE id = ?", v2)[0]
    assert 0 < embedded < total  # killed half-way
    assert portal.row(
        "SELECT d.status, v.number FROM documents_document d JOIN documents_documentversion v ON v.id = d.live_version_id"
    ) == ("indexing", 1)
    assert "2,000円" in portal.answer_text()  # the old version keeps answering
    # The half-written entries belong to v2, still in flight: not drift.
    assert portal.manage("check_index").rstrip().endswith("consistent")

    out = portal.manage("index_worker", "--sole-worker", "--batch", "--nice", "0")

    assert "recovery: 1 abandoned task(s) marked failed; re-queued travel.md v2" in out
    with sqlite3.connect(portal.data_dir / "ragportal.sqlite3") as db:
        tasks = db.execute("SELECT status FROM django_tasks_database_dbtaskresult ORDER BY enqueued_at").fetchall()
    assert tasks == [("FAILED",), ("SUCCESSFUL",)]  # the killed run, then its retry
    assert portal.row(
        "SELECT d.status, v.number FROM documents_document d JOIN documents_documentversion v ON v.id = d.live_version_id"
    ) == ("ready", 2)
    assert "3,500円" in portal.answer_text()
    out = portal.manage("check_index")
    assert f"live chunks {total}, dense entries {total}, keyword entries {total}: consistent" in out


def test_a_briefly_locked_database_delays_indexing_but_does_not_fail_it(portal):
    """Another writer holds SQLite's write lock for a few seconds: the worker waits (busy timeout) and finishes."""
    portal.ingest(TRAVEL_V1)
    hold_s = 6.0
    locker = sqlite3.connect(portal.data_dir / "ragportal.sqlite3", isolation_level=None, check_same_thread=False)
    locker.execute("BEGIN IMMEDIATE")  # the write lock, as a long write elsewhere would hold it
    released: list[float] = []
    release = threading.Timer(hold_s, lambda: (locker.rollback(), released.append(time.time())))
    release.start()
    try:
        out = portal.manage("index_worker", "--batch", "--nice", "0")
    finally:
        release.cancel()
        release.join()
        locker.close()

    assert "locked" not in out
    status, started_at = portal.row("SELECT status, started_at FROM django_tasks_database_dbtaskresult")
    assert status == "SUCCESSFUL"
    # The worker could only claim the task once the lock was gone: it waited, it did not fail.
    claimed = datetime.fromisoformat(started_at).replace(tzinfo=timezone.utc).timestamp()
    assert released and claimed >= released[0] - 0.5
    assert portal.row("SELECT status, status_message FROM documents_document") == ("ready", "")
    assert "2,000円" in portal.answer_text()


def test_a_worker_outlives_a_lock_longer_than_its_timeout_and_then_indexes(portal):
    """The write lock outlasts the worker's lock timeout: the worker logs it, waits and retries instead
    of dying, and once the lock is gone the queued document goes live."""
    portal.ingest(TRAVEL_V1)
    locker = sqlite3.connect(portal.data_dir / "ragportal.sqlite3", isolation_level=None, check_same_thread=False)
    locker.execute("BEGIN IMMEDIATE")
    process = subprocess.Popen(
        portal.command("index_worker", "--sole-worker", "--interval", "0.2", "--nice", "0"),
        env={**portal.env, "DATABASE_LOCK_TIMEOUT_S": "1"}, cwd=settings.BASE_DIR,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    log: list[str] = []
    reader = threading.Thread(target=lambda: log.extend(process.stderr), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 120
        while sum("database unavailable" in line for line in log) < 2:
            assert process.poll() is None, "the worker died:\n" + "".join(log)
            assert time.monotonic() < deadline, "the worker never reported the locked database:\n" + "".join(log)
            time.sleep(0.1)
        assert portal.row("SELECT status FROM documents_document") == ("indexing",)
        locker.execute("ROLLBACK")

        deadline = time.monotonic() + 180
        while portal.row("SELECT status FROM documents_document") == ("indexing",):
            assert process.poll() is None, "the worker died:\n" + "".join(log)
            assert time.monotonic() < deadline, "the document never went live:\n" + "".join(log)
            time.sleep(0.2)
    finally:
        locker.close()
        if process.poll() is None:
            process.kill()
        process.wait(10)

    assert portal.row("SELECT status, status_message FROM documents_document") == ("ready", "")
    assert portal.row("SELECT status FROM django_tasks_database_dbtaskresult") == ("SUCCESSFUL",)
    assert "2,000円" in portal.answer_text()


def test_a_worker_whose_postgresql_is_down_keeps_retrying_with_longer_waits(portal):
    """No database server at all: the worker stays up, says so in its log and waits longer each time."""
    process = subprocess.Popen(
        portal.command("index_worker", "--nice", "0"),
        env={**portal.env, "DATABASE_URL": f"postgres://portal@127.0.0.1:{free_port()}/portal"},
        cwd=settings.BASE_DIR, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    log: list[str] = []
    threading.Thread(target=lambda: log.extend(process.stderr), daemon=True).start()
    try:
        deadline = time.monotonic() + 60
        while sum("database unavailable" in line for line in log) < 3:
            assert process.poll() is None, "the worker died:\n" + "".join(log)
            assert time.monotonic() < deadline, "the worker never reported the missing database:\n" + "".join(log)
            time.sleep(0.1)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)

    waits = [line.split("retries in ")[1].strip() for line in log if "retries in" in line]
    assert waits[:3] == ["1 s", "2 s", "4 s"]


def test_a_lock_longer_than_the_timeout_in_the_middle_of_indexing_is_retried_not_failed(portal):
    """The write lock outlasts the worker's timeout while it embeds a version: once the lock is gone the
    version is indexed again and goes live, instead of failing or staying 「索引作成中」."""
    portal.ingest(TRAVEL_V2)
    version = portal.row("SELECT id FROM documents_documentversion")[0]
    process = subprocess.Popen(
        portal.command("index_worker", "--sole-worker", "--interval", "0.2", "--nice", "0"),
        env={**portal.env, "DATABASE_LOCK_TIMEOUT_S": "1"}, cwd=settings.BASE_DIR,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    log: list[str] = []
    threading.Thread(target=lambda: log.extend(process.stderr), daemon=True).start()
    locker = sqlite3.connect(portal.data_dir / "ragportal.sqlite3", isolation_level=None, check_same_thread=False)
    try:
        deadline = time.monotonic() + 180
        while portal.row("SELECT chunks_embedded FROM documents_documentversion WHERE id = ?", version)[0] == 0:
            assert process.poll() is None and time.monotonic() < deadline, "the worker never started embedding"
            time.sleep(0.05)
        locker.execute("BEGIN IMMEDIATE")
        time.sleep(4)  # the worker's next write waits 1 s and gives up
        locker.execute("ROLLBACK")

        deadline = time.monotonic() + 240
        while portal.row("SELECT status FROM documents_document") == ("indexing",):
            assert process.poll() is None, "the worker died:\n" + "".join(log)
            assert time.monotonic() < deadline, "the document stayed 索引作成中:\n" + "".join(log)
            time.sleep(0.2)
    finally:
        locker.close()
        if process.poll() is None:
            process.kill()
        process.wait(10)

    assert "locked" in "".join(log)  # the lock did cut the first run off
    assert portal.row("SELECT status, status_message FROM documents_document") == ("ready", ""), "".join(log)
    assert "3,500円" in portal.answer_text()
