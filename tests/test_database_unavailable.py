"""A database that is briefly locked, locked for too long, or not there at all, as a user meets it.

A real gunicorn serves the portal from a throw-away SQLite file; another sqlite3
connection in this process takes the write lock (``BEGIN IMMEDIATE``, as a long
write elsewhere would) while requests run. The server waits
``DATABASE_LOCK_TIMEOUT_S`` (3 s here, 20 s by default) for a lock: a brief lock
is waited out, a longer one is a 503 that says so, with nothing half-stored.
PostgreSQL that cannot be reached is a subprocess portal with ``DATABASE_URL``
pointing at a closed port and at a port that accepts but never answers.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.documents.test_worker import TRAVEL_V1, Portal
from tests.servers import free_port, wait_until_listening

UNAVAILABLE_JA = "データベースに一時的に接続できません。しばらくしてからもう一度お試しください。"
UNAVAILABLE_EN = "The database cannot be reached right now. Please try again in a moment."
LOCK_TIMEOUT_S = 3.0
QUESTION = "国内出張の日当はいくらですか"
PASSWORD = "a-long-test-password"


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: str
    seconds: float

    def json(self) -> dict:
        return json.loads(self.body)


class Browser:
    """Plain HTTP to the server, keeping cookies like a browser; no redirect is followed."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.cookies = http.cookiejar.CookieJar()

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: object, **kwargs: object) -> None:
                return None

        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.cookies), NoRedirect, urllib.request.ProxyHandler({})
        )

    def request(self, method: str, path: str, body: bytes | None = None, **headers: str) -> Reply:
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers)
        started = time.monotonic()
        try:
            with self.opener.open(request, timeout=60) as response:
                status, raw_headers, raw = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, raw_headers, raw = error.code, error.headers, error.read()
        seconds = time.monotonic() - started
        return Reply(status, {k.lower(): v for k, v in raw_headers.items()}, raw.decode(), seconds)

    def csrf_token(self, path: str) -> str:
        page = self.request("GET", path)
        match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.body)
        assert match, f"no CSRF token on {path} ({page.status})"
        return match.group(1)

    def form(self, path: str, fields: dict[str, str], **headers: str) -> Reply:
        body = urllib.parse.urlencode(fields).encode()
        return self.request("POST", path, body, **{"Content-Type": "application/x-www-form-urlencoded", **headers})

    def log_in(self, username: str) -> None:
        token = self.csrf_token("/accounts/login/")
        reply = self.form(
            "/accounts/login/", {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token}
        )
        assert reply.status == 302, reply.body[:500]


@dataclass
class Server:
    portal: Portal
    port: int
    token: str

    @property
    def database(self) -> Path:
        return self.portal.data_dir / "ragportal.sqlite3"

    def api(self, method: str, path: str, payload: dict | None = None, **headers: str) -> Reply:
        body = json.dumps(payload).encode() if payload is not None else None
        return Browser(self.port).request(
            method, path, body,
            **{"Authorization": f"Token {self.token}", "Content-Type": "application/json", **headers},
        )  # fmt: skip

    def ask(self, **headers: str) -> Reply:
        return self.api("POST", "/api/v1/ask", {"text": QUESTION}, **headers)

    def upload(self, filename: str, text: str) -> Reply:
        boundary = uuid.uuid4().hex
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
            f"Content-Type: text/markdown\r\n\r\n{text}\r\n--{boundary}--\r\n"
        ).encode()
        return Browser(self.port).request(
            "POST", "/api/v1/documents/", body,
            **{"Authorization": f"Token {self.token}", "Content-Type": f"multipart/form-data; boundary={boundary}"},
        )  # fmt: skip

    def log(self) -> str:
        return (self.portal.data_dir / "gunicorn.log").read_text("utf-8", errors="replace")

    def count(self, table: str) -> int:
        return self.portal.row(f"SELECT count(*) FROM {table}")[0]  # noqa: S608 - a table name of ours


@contextmanager
def write_lock(database: Path, seconds: float | None = None) -> Iterator[None]:
    """Another connection holds SQLite's write lock, as a long write elsewhere would.

    Released after ``seconds`` (from a thread, while the block runs), or when the block ends.
    """
    taken, done = threading.Event(), threading.Event()

    def hold() -> None:
        locker = sqlite3.connect(database, timeout=20, isolation_level=None)
        try:
            locker.execute("BEGIN IMMEDIATE")
            taken.set()
            done.wait(seconds)
            locker.execute("ROLLBACK")
        finally:
            locker.close()

    thread = threading.Thread(target=hold)
    thread.start()
    assert taken.wait(20), "could not take the write lock"
    try:
        yield
    finally:
        done.set()
        thread.join()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent)) or shutil.which("gunicorn")
    if gunicorn is None:
        reason = "gunicorn is not installed (pip install -r requirements.txt)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the database outage tests: {reason}")
        pytest.skip(reason)
    portal = Portal(tmp_path_factory.mktemp("outage"))
    portal.env.update(DEBUG="0", ALLOWED_HOSTS="127.0.0.1", DATABASE_LOCK_TIMEOUT_S=str(LOCK_TIMEOUT_S))
    portal.manage("migrate", "--noinput", "-v0")
    portal.manage("collectstatic", "--noinput", "-v0")  # whitenoise serves the scripts (tests/browser)
    out = portal.python(
        "from django.contrib.auth.models import Group\n"
        "from rest_framework.authtoken.models import Token\n"
        f"owner.set_password({PASSWORD!r}); owner.save()\n"
        "owner.groups.add(Group.objects.get(name='owners'))\n"
        f"document_ingest(owner=owner, filename='travel.md', data={TRAVEL_V1!r}.encode())\n"
        "print('token', Token.objects.create(user=owner).key)\n",
        TASKS_BACKEND="django_tasks.backends.immediate.ImmediateBackend",
    )
    token = re.search(r"token (\w+)", out).group(1)
    port = free_port()
    log = (portal.data_dir / "gunicorn.log").open("w")  # a file, not a pipe nobody reads: tracebacks are long
    process = subprocess.Popen(
        [gunicorn, "ragportal.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1", "--timeout", "120"],
        cwd=Path(__file__).resolve().parent.parent, env=portal.env, stdout=log, stderr=log,
    )  # fmt: skip
    try:
        wait_until_listening(port, process, "gunicorn", timeout=60)
        started = Server(portal, port, token)
        warm_up = started.ask()  # loads the embedding model before any timing matters
        assert warm_up.status == 200, warm_up.body
        yield started
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        log.close()


def test_a_question_asked_during_a_brief_lock_waits_and_is_answered(server):
    answers = server.count("qa_answer")

    with write_lock(server.database, seconds=1.0):
        reply = server.ask()

    assert reply.status == 200, reply.body
    assert "2,000円" in reply.json()["answer"]
    assert reply.seconds >= 0.5  # it really waited for the lock
    assert server.count("qa_answer") == answers + 1


def test_an_upload_during_a_brief_lock_waits_and_is_accepted(server):
    with write_lock(server.database, seconds=1.0):
        reply = server.upload("overtime.md", "# 残業規程\n## 申請\n残業は事前に上長へ申請する。\n")

    assert reply.status == 201, reply.body
    assert server.portal.row("SELECT count(*) FROM documents_document WHERE filename = 'overtime.md'") == (1,)


def test_a_lock_held_too_long_is_a_clear_503_and_nothing_is_half_stored(server):
    conversations, answers, documents = (
        server.count(t) for t in ("qa_conversation", "qa_answer", "documents_document")
    )
    browser = Browser(server.port)
    browser.log_in("owner")
    form_token = browser.csrf_token("/")  # pages that only read still work during a write lock

    with write_lock(server.database):  # held until every request below has given up
        asked = server.ask()
        asked_in_english = server.ask(**{"Accept-Language": "en"})
        uploaded = server.upload("leave.md", "# 休暇規程\n## 有給\n有給休暇は年10日とする。\n")
        page = browser.form("/ask/", {"text": QUESTION, "csrfmiddlewaretoken": form_token})

    for reply in (asked, asked_in_english, uploaded):
        assert reply.status == 503, reply.body
        assert reply.headers["retry-after"] == "30"
        assert reply.headers["content-type"].startswith("application/json")
        assert reply.seconds < LOCK_TIMEOUT_S + 2  # gave up after the timeout: no hang
    assert asked.json() == {"detail": UNAVAILABLE_JA}
    assert asked_in_english.json() == {"detail": UNAVAILABLE_EN}
    assert uploaded.json() == {"detail": UNAVAILABLE_JA}

    assert page.status == 503
    assert page.headers["retry-after"] == "30"
    assert UNAVAILABLE_JA in page.body
    assert "質問ページに戻る" in page.body and 'class="topbar"' in page.body  # the portal's own error page
    assert "Traceback" not in page.body and "Server Error" not in page.body

    # The operator's log has the real error, with its traceback.
    assert "database unavailable during POST /api/v1/ask" in server.log()
    assert "OperationalError: database is locked" in server.log()
    # Nothing half-written: no new conversation, answer or document.
    assert (server.count("qa_conversation"), server.count("qa_answer"), server.count("documents_document")) == (
        conversations,
        answers,
        documents,
    )
    # Once the lock is gone, the same question is answered.
    assert server.ask().status == 200


# --- PostgreSQL that cannot be reached ------------------------------------------------

UNREACHABLE_SCRIPT = """
import json, time
from django.test import Client

def call(method, path, **extra):
    client = Client(raise_request_exception=False)
    started = time.monotonic()
    response = getattr(client, method)(path, **extra)
    print(json.dumps({
        "path": path,
        "status": response.status_code,
        "retry_after": response.headers.get("Retry-After"),
        "type": response.headers.get("Content-Type", ""),
        "body": response.content.decode(),
        "seconds": time.monotonic() - started,
    }))

call("post", "/api/v1/ask", data={"text": "有給休暇は何日ですか"}, content_type="application/json",
     HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")
call("post", "/accounts/login/", data={"username": "someone", "password": "secret"})
call("get", "/api/v1/health")
"""


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts TCP connections and never says anything, like a PostgreSQL host that hangs."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


@pytest.mark.parametrize("kind", ["refused", "silent"])
def test_an_unreachable_postgresql_is_a_quick_503_not_a_500_or_a_hang(tmp_path, kind, request):
    port = free_port() if kind == "refused" else request.getfixturevalue("silent_server")
    portal = Portal(tmp_path)
    connect_timeout = 2
    started = time.monotonic()
    out = portal.manage(
        "shell", "-c", UNREACHABLE_SCRIPT,
        DEBUG="0", DATABASE_URL=f"postgres://portal@127.0.0.1:{port}/portal",
        DATABASE_CONNECT_TIMEOUT_S=str(connect_timeout),
    )  # fmt: skip
    replies = {r["path"]: r for r in (json.loads(line) for line in out.splitlines() if line.startswith("{"))}

    ask, login, health = replies["/api/v1/ask"], replies["/accounts/login/"], replies["/api/v1/health"]
    assert ask["status"] == 503 and ask["retry_after"] == "30"
    assert ask["type"].startswith("application/json")
    assert json.loads(ask["body"]) == {"detail": UNAVAILABLE_JA}
    assert login["status"] == 503 and login["retry_after"] == "30"
    assert UNAVAILABLE_JA in login["body"] and "質問ページに戻る" in login["body"]
    assert "Traceback" not in login["body"]
    for reply in (ask, login):
        assert reply["seconds"] < connect_timeout + 3  # the connect timeout, not the system's TCP timeout
    # The health check says which part is down instead of failing itself.
    assert health["status"] == 503
    report = json.loads(health["body"])
    assert report["status"] == "error"
    assert report["checks"]["database"]["ok"] is False
    assert report["checks"]["database"]["error"] == "OperationalError"
    # The operator's log has the real error; the user saw none of it.
    assert "database unavailable during POST /api/v1/ask" in out
    assert "connection" in out and "psycopg" in out
    assert "psycopg" not in ask["body"] + login["body"]
    assert time.monotonic() - started < 120
