"""The real thing: the database task backend and `manage.py index_worker` processes, as `make run` starts them.

Each test runs the portal's own commands in subprocesses against a throw-away
data directory (its own SQLite file and Chroma directory), with timeouts, and
kills whatever it started (tests/portal.py; tests/integration/ runs the same
scenarios on PostgreSQL and a Chroma server).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.portal import (
    TRAVEL_V1,
    Portal,
    upload_is_made_live_by_a_worker,
    worker_killed_while_embedding_a_new_version,
    worker_processes,
)


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
