"""Headless Chromium (Debian's package) driven by Playwright against pytest-django's live server.

Skips with a clear message where Chromium is missing on a developer's laptop;
fails instead when CI is set, because CI must run the browser tests.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SCREENSHOT_DIR = Path(os.environ.get("RAGPORTAL_SCREENSHOTS", "var/screenshots"))

# Playwright's sync API runs an event loop in this thread; the ORM calls the
# tests make between browser steps are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def _chromium_missing() -> str | None:
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        return f"Chromium not found at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -r requirements-dev.txt)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    reason = _chromium_missing()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser tests: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser, live_server, django_db_serialized_rollback) -> Iterator[object]:
    # live_server flushes the database after each test; serialized rollback
    # restores what migrations created (the owners/reviewers groups and their permissions).
    context = browser.new_context(base_url=live_server.url, locale="ja-JP")
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    pg.dialogs = []  # every dialog (alert/confirm/prompt) the page opens; XSS tests assert it stays empty
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    yield pg
    context.close()


@pytest.fixture
def login(page, live_server):
    """Sign a user in through the real login form."""

    def _login(username: str, password: str = "correct-horse-battery") -> None:
        page.goto("/accounts/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", password)
        page.click("[type=submit]")
        page.wait_for_load_state("networkidle")

    return _login


def screenshot(page, name: str) -> Path:
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOT_DIR / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
