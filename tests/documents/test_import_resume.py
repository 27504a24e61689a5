"""A tree import killed part-way (kill -9) and started again finishes without duplicates (issue 21).

The portal's own commands in subprocesses against a throw-away data directory
(SQLite file, embedded Chroma; tests/portal.py), killed with SIGKILL as a
crashed machine would leave them: indexing in the import itself, and indexing
by a worker (`import_documents --queue`).
"""

from __future__ import annotations

import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from django.conf import settings

from tests.portal import PYTHON_SETUP, Portal

FILES = 3
ARTICLES = 6
# A busy shared machine: each command loads the embedding model first.
TIMEOUT = 900
QUESTION = "部署2の第5条では申請は何日前までですか"


def write_tree(root: Path) -> None:
    """FILES documents in folders of their own, each about ARTICLES chunks at RAG_CHUNK_SIZE=100."""
    for i in range(FILES):
        folder = root / f"dept{i}"
        folder.mkdir(parents=True)
        body = "".join(
            f"## 第{j}条\n部署{i}の第{j}条の定めにより、申請は{i * 100 + j}日前までに上長へ提出する。\n"
            for j in range(1, ARTICLES + 1)
        )
        (folder / "_index.md").write_text(f"# 部署{i}の規程\n{body}", encoding="utf-8")


@pytest.fixture
def portal(tmp_path: Path) -> Portal:
    portal = Portal(tmp_path / "data")
    portal.env["RAG_IMPORT_GROUP_CHUNKS"] = "5"  # a group per file: a kill falls between two of them
    portal.manage("migrate", "--noinput", "-v0", timeout=TIMEOUT)
    shell(portal, "owner.is_superuser = True\nowner.save()\n")
    write_tree(tmp_path / "tree")
    return portal


def shell(portal: Portal, code: str) -> str:
    return portal.manage("shell", "-c", PYTHON_SETUP + code, timeout=TIMEOUT)


def statuses(portal: Portal) -> dict[str, str]:
    return dict(portal.rows("SELECT filename, status FROM documents_document"))


def start(portal: Portal, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        portal.command(*args), env=portal.env, cwd=settings.BASE_DIR,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def kill_when(condition: Callable[[], bool], processes: list[subprocess.Popen], timeout: float = TIMEOUT) -> None:
    """SIGKILL every process as soon as ``condition()`` holds (fails if they finish or time runs out first).

    The processes are stopped (SIGSTOP) while ``condition()`` reads the database, so that what it saw is still
    true when they are killed: a worker cannot finish its task between the look and the kill.
    """
    deadline = time.monotonic() + timeout
    try:
        while True:
            for process in processes:
                process.send_signal(signal.SIGSTOP)
            if condition():
                break
            assert all(p.poll() is None for p in processes), "a process ended before it could be interrupted"
            assert time.monotonic() < deadline, "the import never got half-way"
            for process in processes:
                process.send_signal(signal.SIGCONT)
            time.sleep(0.05)
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
        for process in processes:
            process.wait(10)


def tasks(portal: Portal, status: str) -> int:
    return portal.row("SELECT count(*) FROM django_tasks_database_dbtaskresult WHERE status = ?", status)[0]


def half_done(portal: Portal) -> bool:
    found = list(statuses(portal).values())
    return len(found) == FILES and 0 < found.count("ready") < FILES


def assert_imported_once(portal: Portal, out: str) -> None:
    """Every file is one live document with one version, the indexes hold each chunk once, and it answers."""
    assert set(statuses(portal).values()) == {"ready"}
    assert portal.row("SELECT count(*), max(number) FROM documents_documentversion") == (FILES, 1)
    (chunks,) = portal.row("SELECT count(*) FROM documents_chunk")
    check = portal.manage("check_index", timeout=TIMEOUT)
    assert f"live chunks {chunks}, dense entries {chunks}, keyword entries {chunks}: consistent" in check
    hits = shell(portal, f"print(search(user=owner, query={QUESTION!r}).hits[0].text)")
    assert "205日前" in hits
    assert re.search(r"^0 created, 0 updated, \d+ unchanged, (\d+ resumed, )?0 failed$", out, re.M), out


def test_an_import_killed_while_indexing_resumes_where_it_stopped(portal: Portal, tmp_path: Path):
    process = start(portal, "import_documents", str(tmp_path / "tree"), "--owner", "owner")
    kill_when(lambda: half_done(portal), [process])
    ready_before = {name for name, status in statuses(portal).items() if status == "ready"}
    assert "consistent" in portal.manage("check_index", timeout=TIMEOUT)  # a half-indexed file is in flight, not drift

    out = portal.manage("import_documents", str(tmp_path / "tree"), "--owner", "owner", timeout=TIMEOUT)

    for name in ready_before:
        assert f"unchanged {name}" in out  # what was done is not done again
    assert f"{FILES - len(ready_before)} resumed" in out
    assert_imported_once(portal, out)


def test_a_queued_import_whose_worker_and_import_were_killed_resumes(portal: Portal, tmp_path: Path):
    """Nothing says the dead worker's task is over; a new worker on the same host sees its process is gone."""
    worker = start(portal, "index_worker", "--interval", "0.2", "--nice", "0")
    importer = start(portal, "import_documents", str(tmp_path / "tree"), "--owner", "owner", "--queue")
    kill_when(lambda: half_done(portal) and tasks(portal, "RUNNING") == 1, [importer, worker])

    worker = start(portal, "index_worker", "--interval", "0.2", "--nice", "0")  # not --sole-worker
    try:
        out = portal.manage("import_documents", str(tmp_path / "tree"), "--owner", "owner", "--queue", timeout=TIMEOUT)
    finally:
        worker.kill()
        worker.wait(10)

    assert_imported_once(portal, out)
    assert tasks(portal, "FAILED") == 1  # the killed worker's task, given up so that its document is queued again
    assert tasks(portal, "RUNNING") == tasks(portal, "READY") == 0
