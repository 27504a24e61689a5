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


@pytest.mark.django_db
def test_the_first_run_counts_each_new_demo_document_as_created_even_with_older_versions(
    tmp_path, monkeypatch, settings
):
    """Issue 25 item 10: a document imported with its history was reported as updated on an empty database."""
    from documents.management.commands import load_demo
    from documents.models import Document

    settings.RAG_PROGRESS_INTERVAL_S = 0.05
    (tmp_path / "history" / "travel.md").mkdir(parents=True)
    (tmp_path / "history" / "travel.md" / "v1.md").write_text("# 出張\n日当は2,000円。\n", encoding="utf-8")
    (tmp_path / "travel.md").write_text("# 出張\n日当は3,500円。\n", encoding="utf-8")
    (tmp_path / "wifi.md").write_text("# Wi-Fi\n来客用は受付で発行。\n", encoding="utf-8")
    monkeypatch.setattr(load_demo, "DEMO_DIR", tmp_path)

    def banner() -> str:
        out = StringIO()
        call_command("load_demo", stdout=out)
        return out.getvalue()

    first = banner()
    assert "demo corpus: 2 created, 0 updated, 0 unchanged, 0 failed" in first
    assert "demo corpus: indexing 3 file(s)" in first  # the older version is indexed too
    assert Document.objects.get(filename="travel.md").live_version.number == 2
    assert "demo corpus: 0 created, 0 updated, 2 unchanged, 0 failed" in banner()
    (tmp_path / "wifi.md").write_text("# Wi-Fi\n来客用はフロントで発行。\n", encoding="utf-8")
    assert "demo corpus: 0 created, 1 updated, 1 unchanged, 0 failed" in banner()
