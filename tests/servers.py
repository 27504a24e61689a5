"""Helpers for tests that start a real server process on 127.0.0.1 (gunicorn, `chroma run`)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_listening(port: int, process: subprocess.Popen, name: str, timeout: float) -> None:
    """Wait until ``process`` accepts connections on ``port``; fail (with its stderr, if piped) if it exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            errors = process.stderr.read() if process.stderr else ""
            raise AssertionError(f"{name} exited with {process.returncode}:\n{errors}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{name} did not start listening")


def chroma_command() -> str | None:
    """The `chroma` command installed with chromadb (beside this Python, else on PATH)."""
    beside = Path(sys.executable).with_name("chroma")
    return str(beside) if beside.exists() else shutil.which("chroma")


@contextmanager
def chroma_server(path: Path) -> Iterator[tuple[subprocess.Popen, int]]:
    """`chroma run` with its data in ``path`` on a free 127.0.0.1 port: (process, port); stopped at the end."""
    command = chroma_command()
    assert command, "the chroma command (from the chromadb package) is not installed"
    port = free_port()
    process = subprocess.Popen(
        [command, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
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
