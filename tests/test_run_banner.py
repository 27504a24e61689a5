"""`make run` prints the demo logins with the address it actually serves, not a fixed port."""

from __future__ import annotations

import os
import shutil
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

BASE_DIR = Path(settings.BASE_DIR)


def _dry_run(*args: str, **env: str) -> str:
    """The commands `make run` would run (make -n), with ``env`` added to the environment."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    result = subprocess.run(
        ["make", "-n", "run", *args], cwd=BASE_DIR, env={**os.environ, **env},
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    return result.stdout


@pytest.mark.parametrize(("args", "env"), [((), {"PORT": "8300"}), (("PORT=8300",), {})])
def test_make_run_passes_the_served_port_to_the_banner(args, env):
    commands = _dry_run(*args, **env)
    banner = next(line for line in commands.splitlines() if "load_demo" in line)
    assert "--url http://127.0.0.1:8300/" in banner
    assert "runserver 127.0.0.1:8300" in commands


@pytest.mark.django_db
def test_the_banner_shows_the_address_it_is_given(tmp_path, monkeypatch):
    from documents.management.commands import load_demo

    monkeypatch.setattr(load_demo, "DEMO_DIR", tmp_path)  # no documents: only users and the banner
    out = StringIO()
    call_command("load_demo", url="http://127.0.0.1:8300/", stdout=out)
    assert "Demo logins (http://127.0.0.1:8300/)" in out.getvalue()
    assert "8000" not in out.getvalue()
