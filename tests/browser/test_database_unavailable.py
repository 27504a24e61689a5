"""The portal's forms in Chromium while the database stays locked past its timeout: they say why.

Runs against the real gunicorn of tests/test_database_unavailable.py (a SQLite
file another connection can lock), not pytest-django's in-memory live server.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.test_database_unavailable import PASSWORD, QUESTION, UNAVAILABLE_JA, server, write_lock

pytestmark = pytest.mark.browser
__all__ = ["server"]  # the fixture, imported for this module


@contextmanager
def signed_in_page(browser, server) -> Iterator[object]:
    context = browser.new_context(base_url=f"http://127.0.0.1:{server.port}", locale="ja-JP")
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        page.goto("/accounts/login/")
        page.fill("input[name=username]", "owner")
        page.fill("input[name=password]", PASSWORD)
        page.click("[type=submit]")
        page.wait_for_load_state("networkidle")
        yield page
    finally:
        context.close()


def test_the_question_box_says_the_database_cannot_be_reached_and_keeps_the_question(browser, server):
    from playwright.sync_api import expect

    with signed_in_page(browser, server) as page:
        page.fill("textarea[name=text]", QUESTION)

        with write_lock(server.database):
            page.click("#ask-form button[type=submit]")
            expect(page.locator("#ask-errors")).to_have_text(UNAVAILABLE_JA)

        assert page.locator("textarea[name=text]").input_value() == QUESTION  # ready to send again
        assert page.locator("article.exchange").count() == 0

        page.click("#ask-form button[type=submit]")  # the lock is gone: the same question is answered
        expect(page.locator("article.exchange")).to_have_count(1)
        expect(page.locator("article.exchange")).to_contain_text("2,000円")


def test_the_upload_form_says_the_database_cannot_be_reached(browser, server, tmp_path):
    from playwright.sync_api import expect

    policy = tmp_path / "expenses.md"
    policy.write_text("# 経費精算規程\n## 期限\n経費は翌月5日までに精算する。\n", "utf-8")
    documents = server.count("documents_document")
    with signed_in_page(browser, server) as page:
        page.goto("/documents/upload/")
        page.set_input_files("#upload-form input[type=file]", str(policy))

        with write_lock(server.database):
            page.click("#upload-form button[type=submit]")
            expect(page.locator("#upload-form [role=alert]")).to_have_text(UNAVAILABLE_JA)

        assert page.url.endswith("/documents/upload/")  # the form stays, to send again
    assert server.count("documents_document") == documents
