"""The portal under gunicorn as ``make run-prod`` starts it: DEBUG off, static files from whitenoise.

A real gunicorn on a free 127.0.0.1 port, after ``migrate`` and ``collectstatic`` in
a temporary data directory, with the real settings module and a clean environment
(plain HTTP through ``RAG_HTTPS=0``, as on an intranet without TLS).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from tests.servers import free_port, wait_until_listening

BASE_DIR = Path(settings.BASE_DIR)
GUNICORN = Path(sys.executable).with_name("gunicorn")
YEAR_OF_CACHE = "max-age=315360000"  # whitenoise's cache lifetime for files whose name carries their hash


def _get(port: int, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """One plain GET, no proxy and no redirect following: what the server itself answered."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


@pytest.fixture
def production_server(tmp_path: Path) -> Iterator[int]:
    gunicorn = str(GUNICORN) if GUNICORN.exists() else shutil.which("gunicorn")
    if gunicorn is None:
        reason = "gunicorn is not installed (pip install -r requirements.txt)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the production server test: {reason}")
        pytest.skip(reason)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "ragportal.settings",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "RAGPORTAL_DATA_DIR": str(tmp_path / "data"),
        "RAG_HTTPS": "0",
        "RAG_STATIC_MANIFEST": "1",
        "OMP_NUM_THREADS": "1",
    }
    for command in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"]):
        result = subprocess.run(
            [sys.executable, "manage.py", *command], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 0, result.stdout + result.stderr
    port = free_port()
    process = subprocess.Popen(
        [gunicorn, "ragportal.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2", "--timeout", "60"],
        cwd=BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_until_listening(port, process, "gunicorn", timeout=30)
        yield port
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)  # graceful: finish the requests in flight, then exit
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
                raise AssertionError("gunicorn did not stop within 20 s of SIGTERM") from None
        process.stderr.close()
    assert process.returncode == 0, f"gunicorn exited with {process.returncode}"


def test_gunicorn_serves_the_login_page_hashed_static_files_and_health(production_server):
    port = production_server

    status, headers, body = _get(port, "/accounts/login/", **{"Accept-Language": "ja"})
    page = body.decode()
    assert status == 200, page
    assert "ログイン" in page and "パスワード" in page

    # The page links its stylesheet and scripts under their hashed names, which whitenoise
    # serves with the right type, a year of caching and gzip for a client that takes it.
    css = re.search(r'href="(/static/css/portal\.[0-9a-f]{12}\.css)"', page)
    htmx = re.search(r'src="(/static/django_htmx/htmx[^"]*\.[0-9a-f]{12}\.js)"', page)
    assert css and htmx, page
    status, headers, body = _get(port, css.group(1))
    assert status == 200
    assert headers["content-type"].startswith("text/css")
    assert YEAR_OF_CACHE in headers["cache-control"] and "immutable" in headers["cache-control"]
    assert body == (BASE_DIR / "static" / "css" / "portal.css").read_bytes()
    status, headers, _ = _get(port, htmx.group(1), **{"Accept-Encoding": "gzip"})
    assert status == 200
    assert headers["content-type"].startswith("text/javascript")
    assert headers.get("content-encoding") == "gzip"
    assert YEAR_OF_CACHE in headers["cache-control"]

    status, headers, body = _get(port, "/api/v1/health")
    assert status == 200, body
    assert headers["content-type"].startswith("application/json")
    assert json.loads(body)["status"] == "ok"

    status, _, body = _get(port, "/static/css/no-such-file.css")
    assert status == 404 and b"Traceback" not in body and b"DEBUG" not in body
