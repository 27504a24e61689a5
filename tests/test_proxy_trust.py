"""Which proxy gunicorn believes about HTTPS: nobody, unless the operator says so.

The security report (issue 20, item 9): gunicorn trusts ``X-Forwarded-Proto`` from
127.0.0.1 and ::1 by default, so any local process could make a plain-HTTP request
look like HTTPS to Django (``request.is_secure()``), past the HTTPS redirect.
``make run-prod`` now passes ``--forwarded-allow-ips`` explicitly: empty unless
``RAG_TRUST_X_FORWARDED_PROTO=1`` (127.0.0.1,::1) or ``FORWARDED_ALLOW_IPS`` names the proxy.
"""

from __future__ import annotations

import http.client
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings

from tests.servers import free_port, wait_until_listening

BASE_DIR = Path(settings.BASE_DIR)
GUNICORN = Path(sys.executable).with_name("gunicorn")


def _allowed_ips(**env: str) -> str:
    """The ``--forwarded-allow-ips`` value ``make run-prod`` would give gunicorn (make -n)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    clean = {k: v for k, v in os.environ.items() if k not in ("RAG_TRUST_X_FORWARDED_PROTO", "FORWARDED_ALLOW_IPS")}
    result = subprocess.run(
        ["make", "-n", "run-prod"], cwd=BASE_DIR, env={**clean, "SECRET_KEY": "x", **env},
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    found = re.search(r'--forwarded-allow-ips="([^"]*)"', result.stdout)
    assert found, result.stdout
    return found.group(1)


def test_make_run_prod_trusts_no_proxy_unless_told() -> None:
    assert _allowed_ips() == ""
    assert _allowed_ips(RAG_TRUST_X_FORWARDED_PROTO="1") == "127.0.0.1,::1"
    assert _allowed_ips(FORWARDED_ALLOW_IPS="10.0.0.5") == "10.0.0.5"


@contextmanager
def _gunicorn(tmp_path: Path, *args: str) -> Iterator[int]:
    gunicorn = str(GUNICORN) if GUNICORN.exists() else shutil.which("gunicorn")
    if gunicorn is None:
        pytest.skip("gunicorn is not installed (pip install -r requirements.txt)")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "ragportal.settings",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "RAGPORTAL_DATA_DIR": str(tmp_path / "data"),
        "RAG_HTTPS": "1",  # plain HTTP is redirected to HTTPS: the redirect shows what Django believed
    }
    port = free_port()
    process = subprocess.Popen(
        [gunicorn, "ragportal.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1", *args],
        cwd=BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_until_listening(port, process, "gunicorn", timeout=60)
        yield port
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        process.stderr.close()


def _status_with_forged_https(port: int) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/no-such-page/", headers={"X-Forwarded-Proto": "https"})
        return connection.getresponse().status
    finally:
        connection.close()


def test_a_local_client_cannot_pass_plain_http_off_as_https(tmp_path: Path) -> None:
    # gunicorn's own default (what run-prod used to get): the forged header is believed, no redirect.
    with _gunicorn(tmp_path / "default") as port:
        assert _status_with_forged_https(port) == 404
    # What make run-prod passes now: the header is ignored, plain HTTP is redirected to HTTPS.
    with _gunicorn(tmp_path / "run-prod", f"--forwarded-allow-ips={_allowed_ips()}") as port:
        assert _status_with_forged_https(port) == 301
