"""Production settings as an operator gets them: ``check --deploy`` is clean, and HTTPS can be turned off.

Each case runs the real settings module (``ragportal.settings``, not the test
settings) in a subprocess with a clean environment, so nothing a developer
exported, and nothing the test settings changed, leaks in.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

BASE_DIR = Path(settings.BASE_DIR)
SECURITY_SETTINGS = (
    "SECURE_SSL_REDIRECT",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_PROXY_SSL_HEADER",
)


def _production_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """What an operator sets for production: DEBUG off, a real key, the host name; and nothing else."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "ragportal.settings",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),  # 67 random characters
        "ALLOWED_HOSTS": "portal.example.com",
        "RAGPORTAL_DATA_DIR": str(tmp_path / "data"),
    }
    env.update(extra)
    return env


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def _security_settings(env: dict[str, str]) -> dict[str, object]:
    code = (
        "import json, django; django.setup(); from django.conf import settings; "
        f"print(json.dumps({{name: getattr(settings, name, None) for name in {SECURITY_SETTINGS!r}}}))"
    )
    result = _run(["-c", code], env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_check_deploy_reports_no_issues_with_production_settings(tmp_path):
    result = _run(["manage.py", "check", "--deploy"], _production_env(tmp_path))

    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "System check identified no issues" in output
    assert "WARNINGS" not in output and "security.W" not in output


def test_production_defaults_are_https_only(tmp_path):
    assert _security_settings(_production_env(tmp_path)) == {
        "SECURE_SSL_REDIRECT": True,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 31_536_000,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
        "SECURE_HSTS_PRELOAD": False,
        "SECURE_PROXY_SSL_HEADER": None,
    }


def test_plain_http_intranet_opts_out_with_one_variable(tmp_path):
    values = _security_settings(_production_env(tmp_path, RAG_HTTPS="0"))

    assert values["SECURE_SSL_REDIRECT"] is False
    assert values["SESSION_COOKIE_SECURE"] is False
    assert values["CSRF_COOKIE_SECURE"] is False
    assert values["SECURE_HSTS_SECONDS"] == 0  # no HSTS over plain HTTP


def test_development_defaults_to_plain_http(tmp_path):
    env = _production_env(tmp_path, DEBUG="1")
    del env["SECRET_KEY"]
    values = _security_settings(env)

    assert values["SECURE_SSL_REDIRECT"] is False and values["SESSION_COOKIE_SECURE"] is False


def test_hsts_and_proxy_header_are_configurable(tmp_path):
    values = _security_settings(
        _production_env(
            tmp_path,
            SECURE_HSTS_SECONDS="3600",
            SECURE_HSTS_INCLUDE_SUBDOMAINS="0",
            SECURE_HSTS_PRELOAD="1",
            RAG_TRUST_X_FORWARDED_PROTO="1",
        )
    )

    assert values["SECURE_HSTS_SECONDS"] == 3600
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is False
    assert values["SECURE_HSTS_PRELOAD"] is True
    assert values["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]


@pytest.mark.parametrize(("name", "value"), [("RAG_HTTPS", "maybe"), ("SECURE_HSTS_SECONDS", "-1")])
def test_a_bad_value_stops_start_up(tmp_path, name, value):
    result = _run(["manage.py", "check"], _production_env(tmp_path, **{name: value}))

    assert result.returncode != 0
    assert name in result.stderr
