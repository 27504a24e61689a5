"""The real thing: the database task backend and `manage.py index_worker` processes, as `make run` starts them.

Each test runs the portal's own commands in subprocesses against a throw-away
data directory (its own SQLite file and Chroma directory), with timeouts, and
kills whatever it started (tests/portal.py; tests/integration/ runs the same
scenarios on PostgreSQL and a Chroma server).
"""

from __future__ import annotations

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
    TRAVEL_V1,
    TRAVEL_V2,
    Portal,
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
        worker.wait_while(
            lambda: portal.row("SELECT status FROM documents_document") == ("indexing",),
            "the document never went live",
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
        time.sleep(4)  # the worker's next write waits 1 s and gives up
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
