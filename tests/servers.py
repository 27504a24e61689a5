"""Helpers for tests that start a real server process on 127.0.0.1 (gunicorn, `chroma run`)."""

from __future__ import annotations

import socket
import subprocess
import time


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
