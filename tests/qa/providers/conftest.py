"""Fake provider HTTP servers on 127.0.0.1 and chunk fixtures for provider tests.

The servers speak just enough of each wire format (Anthropic Messages,
Gemini generateContent) for the real SDKs to talk to them through
``base_url``; nothing in the SDKs is patched. Each server replays a script of
replies (the last one repeats, so retries see it again) and records every
request it received.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from qa.types import RetrievedChunk


@dataclass
class Reply:
    """One scripted HTTP reply. ``body`` may be a dict (sent as JSON) or raw text."""

    status: int = 200
    body: Any = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeServer:
    """A ThreadingHTTPServer in a background thread replaying ``Reply`` objects."""

    def __init__(self) -> None:
        self.replies: list[Reply] = [Reply()]
        self.requests: list[Received] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence test output
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length).decode("utf-8")
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw
                with server._lock:
                    server.requests.append(
                        Received("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    reply = server.replies.pop(0) if len(server.replies) > 1 else server.replies[0]
                if reply.delay:
                    time.sleep(reply.delay)
                payload = reply.body if isinstance(reply.body, (str, bytes)) else json.dumps(reply.body)
                data = payload.encode("utf-8") if isinstance(payload, str) else payload
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, *replies: Reply) -> None:
        """Replace the replies to come; the last one repeats."""
        with self._lock:
            self.replies = list(replies)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    server = FakeServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


LEAVE_TEXT = (
    "## 有給休暇\n"
    "- 有給休暇は入社6ヶ月後に10日付与されます\n"
    "- 有給申請は最低3日前までに申請してください\n"
    "- 申請は社内システム「勤怠くん」から行います"
)
LATE_TEXT = (
    "## 遅刻・早退\n"
    "- 遅刻・早退する場合は、事前に上長へ連絡してください\n"
    "- 体調不良の場合は当日朝9:00までに連絡すれば問題ありません"
)
EXPENSE_TEXT = "交通費は月末締めで精算します。領収書は経費精算システムに添付してください。"


def make_chunk(index: int, text: str, filename: str = "attendance.md", section: str = "") -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=100 + index,
        document_id=10 + index,
        version_id=20 + index,
        filename=filename,
        section=section,
        text=text,
        score=1.0 / (index + 1),
    )


@pytest.fixture
def policy_chunks() -> list[RetrievedChunk]:
    """Three chunks of the seed policies, best first."""
    return [
        make_chunk(0, LEAVE_TEXT, "attendance.md", "有給休暇"),
        make_chunk(1, LATE_TEXT, "attendance.md", "遅刻・早退"),
        make_chunk(2, EXPENSE_TEXT, "expense.md", "交通費"),
    ]
