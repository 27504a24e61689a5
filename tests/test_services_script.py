"""scripts/services: a throw-away PostgreSQL cluster and Chroma server on 127.0.0.1, started, described and stopped.

Needs Debian's PostgreSQL binaries (skipped without them, except under CI).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from ragportal.throwaway import SERVICES_SCRIPT
from tests.servers import free_port

pytestmark = pytest.mark.integration


def services(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SERVICES_SCRIPT), *args], env={**os.environ, **env}, capture_output=True, text=True, timeout=120
    )


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture
def directory() -> Iterator[Path]:
    """A directory under /tmp (as root, the postgres user must be able to enter it); stopped and removed after."""
    checked = services("check")
    if checked.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(f"CI must test scripts/services: {checked.stderr.strip()}")
        pytest.skip(checked.stderr.strip())
    path = Path(tempfile.mkdtemp(prefix="ragportal-services-test-"))
    try:
        yield path
    finally:
        services("stop", str(path))
        shutil.rmtree(path, ignore_errors=True)


def test_start_env_and_stop(directory):
    pg_port, chroma_port = free_port(), free_port()

    started = services("start", str(directory), PGPORT=str(pg_port), CHROMA_PORT=str(chroma_port))

    assert started.returncode == 0, started.stderr
    env = services("env", str(directory)).stdout.strip()
    assert env == (
        f"export DATABASE_URL=postgres://ragportal@127.0.0.1:{pg_port}/ragportal"
        f" CHROMA_HOST=127.0.0.1 CHROMA_PORT={chroma_port}"
    )
    with psycopg.connect(f"postgresql://ragportal@127.0.0.1:{pg_port}/ragportal") as connection:
        assert connection.execute("SELECT current_database()").fetchone() == ("ragportal",)
    assert listening(chroma_port)
    # A second start finds both running and changes nothing.
    assert services("start", str(directory)).returncode == 0
    assert services("env", str(directory)).stdout.strip() == env

    assert services("stop", str(directory)).returncode == 0

    assert not listening(pg_port) and not listening(chroma_port)
    assert services("stop", str(directory)).returncode == 0  # stopping again is not an error


def test_a_busy_port_is_refused_in_words(directory):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]

        started = services("start", str(directory), PGPORT=str(port))

    assert started.returncode != 0
    assert f"port {port} is already in use on 127.0.0.1" in started.stderr
