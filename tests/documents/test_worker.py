"""The real thing: the database task backend and `manage.py index_worker` processes, as `make run` starts them.

Each test runs the portal's own commands in subprocesses against a throw-away
data directory (its own SQLite file and Chroma directory), with timeouts, and
kills whatever it started (tests/portal.py; tests/integration/ runs the same
scenarios on PostgreSQL and a Chroma server).
"""

from __future__ import annotations

import re
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import pytest

from django.conf import settings

from tests.portal import (
    IMMEDIATE,
    TRAVEL_V1,
    TRAVEL_V2,
    Portal,
    live_status,
    upload_is_made_live_by_a_worker,
    worker_killed_while_embedding_a_new_version,
    worker_processes,
)
from tests.servers import free_port


class LoggedWorker:
    """An `index_worker` process whose log (stderr) is collected as it runs."""

    def __init__(self, portal: Portal, *args: str, **env: str) -> None:
        self.process = subprocess.Popen(
            portal.command("index_worker", *args, "--nice", "0"), env={**portal.env, **env}, cwd=settings.BASE_DIR,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.log: list[str] = []
        threading.Thread(target=lambda: self.log.extend(self.process.stderr), daemon=True).start()

    @property
    def text(self) -> str:
        return "".join(self.log)

    def wait_while(self, condition: Callable[[], bool], what: str, timeout: float, step: float = 0.2) -> None:
        """Poll until ``condition()`` is false; fail (with the log) if the worker dies or ``timeout`` passes."""
        deadline = time.monotonic() + timeout
        while condition():
            assert self.process.poll() is None, "the worker died:\n" + self.text
            assert time.monotonic() < deadline, f"{what}:\n" + self.text
            time.sleep(step)

    def reports(self, phrase: str) -> int:
        return sum(phrase in line for line in self.log)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)


@pytest.fixture
def portal(tmp_path: Path) -> Portal:
    portal = Portal(tmp_path)
    portal.manage("migrate", "--noinput", "-v0")
    return portal


@pytest.fixture
def worker(portal: Portal):
    """Start a long-running worker (as `make run` does); always killed at the end."""
    with worker_processes(portal) as start:
        yield start


def test_an_upload_returns_at_once_and_a_worker_makes_it_live(portal):
    upload_is_made_live_by_a_worker(portal)


def test_a_worker_killed_while_embedding_a_new_version(portal, worker):
    """The old version keeps answering; the job is retried at the next worker start; the indexes end consistent."""
    worker_killed_while_embedding_a_new_version(portal, worker)


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
    worker = LoggedWorker(portal, "--sole-worker", "--interval", "0.2", DATABASE_LOCK_TIMEOUT_S="1")
    try:
        worker.wait_while(
            lambda: worker.reports("database unavailable") < 2,
            "the worker never reported the locked database",
            120,
            0.1,
        )
        assert portal.row("SELECT status FROM documents_document") == ("indexing",)
        locker.execute("ROLLBACK")
        # The document goes live inside the task; the task is marked done just after it returns.
        worker.wait_while(
            lambda: portal.row("SELECT status FROM django_tasks_database_dbtaskresult") in {("READY",), ("RUNNING",)},
            "the queued indexing task never finished",
            180,
        )
    finally:
        locker.close()
        worker.stop()

    assert portal.row("SELECT status, status_message FROM documents_document") == ("ready", "")
    assert portal.row("SELECT status FROM django_tasks_database_dbtaskresult") == ("SUCCESSFUL",)
    assert "2,000円" in portal.answer_text()


def test_a_worker_whose_postgresql_is_down_keeps_retrying_with_longer_waits(portal):
    """No database server at all: the worker stays up, says so in its log and waits longer each time."""
    worker = LoggedWorker(portal, DATABASE_URL=f"postgres://portal@127.0.0.1:{free_port()}/portal")
    try:
        worker.wait_while(
            lambda: worker.reports("database unavailable") < 3,
            "the worker never reported the missing database",
            60,
            0.1,
        )
    finally:
        worker.stop()

    waits = [line.split("retries in ")[1].strip() for line in worker.log if "retries in" in line]
    assert waits[:3] == ["1 s", "2 s", "4 s"]


def test_a_lock_longer_than_the_timeout_in_the_middle_of_indexing_is_retried_not_failed(portal):
    """The write lock outlasts the worker's timeout while it embeds a version: once the lock is gone the
    version is indexed again and goes live, instead of failing or staying 「索引作成中」."""
    portal.ingest(TRAVEL_V2)
    version = portal.row("SELECT id FROM documents_documentversion")[0]
    worker = LoggedWorker(portal, "--sole-worker", "--interval", "0.2", DATABASE_LOCK_TIMEOUT_S="1")
    locker = sqlite3.connect(portal.data_dir / "ragportal.sqlite3", isolation_level=None, check_same_thread=False)
    try:
        worker.wait_while(
            lambda: portal.row("SELECT chunks_embedded FROM documents_documentversion WHERE id = ?", version)[0] == 0,
            "the worker never started embedding",
            180,
            0.05,
        )
        locker.execute("BEGIN IMMEDIATE")
        # Held until the worker's next write has waited its 1 s and given up: on a busy machine
        # one batch of embeddings can take longer than any fixed hold.
        worker.wait_while(lambda: "locked" not in worker.text, "the worker never met the lock", 240, 0.1)
        locker.execute("ROLLBACK")
        worker.wait_while(
            lambda: portal.row("SELECT status FROM documents_document") == ("indexing",),
            "the document stayed 索引作成中",
            240,
        )
    finally:
        locker.close()
        worker.stop()

    assert "locked" in worker.text  # the lock did cut the first run off
    assert portal.row("SELECT status, status_message FROM documents_document") == ("ready", ""), worker.text
    assert "3,500円" in portal.answer_text()


# --- deletion and replacement while a worker indexes ---------------------------------------------

# Hundreds of chunks at the portal's RAG_CHUNK_SIZE=100: minutes of embedding if the worker did not stop.
MANY_ARTICLES = TRAVEL_V1 + "".join(
    f"## 第{i}条\n第{i}条の定めにより、出張の申請は出発の{i % 5 + 2}日前までに上長へ提出する。\n" for i in range(1, 601)
)
DELETE_THROUGH_THE_API = (
    "from django.contrib.auth.models import Group\nfrom django.test import Client\n"
    "owner.groups.add(Group.objects.get(name='owners'))\n"
    "client = Client()\nclient.force_login(owner)\n"
    "r = client.delete(f'/api/v1/documents/{Document.objects.get().pk}/')\n"
    "print('deleted', r.status_code)\n"
)


def _version_and_chunks(portal: Portal, number: int) -> tuple[int, int]:
    return portal.row(
        "SELECT v.id, count(c.id) FROM documents_documentversion v JOIN documents_chunk c ON c.version_id = v.id"
        " WHERE v.number = ? GROUP BY v.id",
        number,
    )


def _started_embedding(portal: Portal, worker: LoggedWorker, version: int) -> None:
    worker.wait_while(
        lambda: portal.row("SELECT chunks_embedded FROM documents_documentversion WHERE id = ?", version)[0] == 0,
        "the worker never started embedding",
        180,
        0.05,
    )


def _cancelled_after(worker: LoggedWorker) -> tuple[int, int]:
    """(chunks stored, chunks in all) from the worker's log line about the cancelled run."""
    found = re.search(r"cancelled after (\d+) of (\d+) chunks", worker.text)
    assert found, worker.text
    return int(found.group(1)), int(found.group(2))


def test_deleting_a_document_while_a_worker_indexes_it_stops_the_job_and_leaves_nothing(portal):
    """The job stops within a batch or two instead of embedding every chunk, the worker is free for the next
    upload at once, and check_index finds nothing left over (no repair)."""
    portal.ingest(MANY_ARTICLES)
    version, total = _version_and_chunks(portal, 1)
    worker = LoggedWorker(portal, "--sole-worker", "--interval", "0.2")
    try:
        _started_embedding(portal, worker, version)
        assert "deleted 204" in portal.python(DELETE_THROUGH_THE_API)
        worker.wait_while(
            lambda: portal.row("SELECT status FROM django_tasks_database_dbtaskresult") != ("SUCCESSFUL",),
            "the indexing job did not end",
            120,
        )
        stored, of = _cancelled_after(worker)
        portal.ingest(TRAVEL_V1)  # the next upload does not wait behind the deleted one
        worker.wait_while(
            lambda: portal.row("SELECT status FROM documents_document") != ("ready",), "the next upload waited", 180
        )
    finally:
        worker.stop()

    # Stopped before its end (how far it got depends on the machine: indexing embeds each chunk once now).
    assert of == total > 500 and stored < total, worker.text
    assert portal.row("SELECT count(*) FROM documents_chunk_fts WHERE version_id = ?", version) == (0,)
    out = portal.manage("check_index")
    assert "dense entries 1, keyword entries 1: consistent" in out, out  # only the new upload's one chunk
    assert "2,000円" in portal.answer_text()


def test_a_new_version_uploaded_while_the_previous_one_is_indexed_cancels_it(portal):
    """v1 answers; v2 is being embedded when v3 arrives: v2 stops and leaves nothing (entries, rows),
    v3 goes live, check_index is consistent without a repair."""
    portal.ingest(TRAVEL_V1, TASKS_BACKEND=IMMEDIATE)
    portal.ingest(MANY_ARTICLES.replace("2,000円", "3,000円"))
    v2, total = _version_and_chunks(portal, 2)
    worker = LoggedWorker(portal, "--sole-worker", "--interval", "0.2")
    try:
        _started_embedding(portal, worker, v2)
        portal.ingest(TRAVEL_V1.replace("2,000円", "4,200円"))
        worker.wait_while(lambda: live_status(portal) != ("ready", 3), "v3 never went live", 180)
        # Then its job ends: the old version's dense entries go just after the switch (a worker killed
        # in between leaves them to check_index --repair; that is the recovery tests' business).
        worker.wait_while(
            lambda: (
                portal.rows(
                    "SELECT status FROM django_tasks_database_dbtaskresult WHERE status NOT IN ('SUCCESSFUL', 'FAILED')"
                )
                != []
            ),
            "the indexing jobs did not end",
            120,
        )
    finally:
        worker.stop()

    stored, of = _cancelled_after(worker)
    # Stopped before its end (how far it got depends on the machine: indexing embeds each chunk once now).
    assert of == total > 500 and stored < total, worker.text
    assert portal.rows("SELECT number FROM documents_documentversion ORDER BY number") == [(1,), (3,)]
    assert portal.row("SELECT count(*) FROM documents_chunk WHERE version_id = ?", v2) == (0,)
    assert portal.row("SELECT count(*) FROM documents_chunk_fts WHERE version_id = ?", v2) == (0,)
    out = portal.manage("check_index")
    assert out.rstrip().endswith("consistent"), out
    assert "4,200円" in portal.answer_text()


def test_a_second_indexing_process_on_an_embedded_chroma_directory_stops_at_once_and_says_why(portal, tmp_path):
    """Two processes indexing into one embedded Chroma directory hung, both, silently; now the second one refuses."""
    lock = portal.data_dir / "chroma" / "indexer.lock"
    first = LoggedWorker(portal, "--sole-worker", "--interval", "0.2")
    try:
        first.wait_while(
            lambda: not lock.exists() or f"pid {first.process.pid}" not in lock.read_text(),
            "the worker never took the indexing lock",
            timeout=60,
        )

        def run(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run(
                portal.command(*args), env=portal.env, cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=240
            )  # fmt: skip

        second = run("index_worker", "--batch", "--nice", "0")
        assert second.returncode != 0
        assert "an indexing worker (manage.py index_worker)" in second.stderr
        assert f"pid {first.process.pid}" in second.stderr
        assert "already indexes into the embedded Chroma directory" in second.stderr

        tree = tmp_path / "tree"
        tree.mkdir()
        (tree / "travel.md").write_text(TRAVEL_V1, encoding="utf-8")
        portal.python("owner.is_superuser = True\nowner.save()\n")
        direct = run("import_documents", str(tree), "--owner", "owner")
        assert direct.returncode != 0
        assert "import_documents --queue" in direct.stderr  # what to do instead
        assert portal.row("SELECT count(*) FROM documents_document") == (0,)  # nothing half-made

        # Handed to the running worker instead, the same import goes live.
        queued = run("import_documents", str(tree), "--owner", "owner", "--queue")
        assert queued.returncode == 0, queued.stderr
        assert live_status(portal) == ("ready", 1)
    finally:
        first.stop()
    # The lock went with the killed worker: the next one runs.
    assert "already indexes" not in portal.manage("index_worker", "--batch", "--nice", "0")
