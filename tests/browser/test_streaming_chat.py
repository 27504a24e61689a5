"""The chat streams in headless Chromium: the draft grows, the checked answer replaces it, stop, fallback.

Claude is the real ``anthropic`` SDK in the live server talking to a
``qa.evaluation.fake_clouds`` server on 127.0.0.1 that streams its answer in
pieces with pauses (Anthropic's SSE wire format, citations_delta included).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from qa.models import Answer
from qa.evaluation.fake_clouds import ANTHROPIC, FakeCloud
from qa.streaming import FALLBACK_LABEL
from tests.qa.answer_rows import ingest_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

QUESTION = "有給休暇は何日もらえますか？"
DRAFT_LABEL = "回答を作成中…（引用を確認する前の下書きです）"
# The search before the provider call loads models on a process's first question: slow on a busy machine.
FIRST_ANSWER_MS = 90_000


@pytest.fixture(autouse=True)
def _role_groups(transactional_db):
    """Recreate the role groups a data migration made: an earlier transactional test flushed them."""
    from django.contrib.auth.models import Group

    from documents.roles import OWNERS_GROUP, REVIEWERS_GROUP

    for name in (OWNERS_GROUP, REVIEWERS_GROUP):
        Group.objects.get_or_create(name=name)


@pytest.fixture
def claude(settings) -> Iterator[FakeCloud]:
    """A fake Claude streaming 10 pieces 0.4 s apart; the portal's settings point at it."""
    with FakeCloud(ANTHROPIC, pause=0.4, pieces=10) as fake:
        settings.RAG_PROVIDER = "anthropic"
        settings.ANTHROPIC_API_KEY, settings.ANTHROPIC_BASE_URL = "k", fake.base_url
        settings.ANTHROPIC_MODEL = "claude-fake"
        settings.RAG_PROVIDER_MAX_RETRIES = 0
        yield fake


def _ask(page, login, owner) -> None:
    ingest_demo(owner, "attendance.md")
    login("employee")
    page.goto("/")
    page.fill("textarea[name=text]", QUESTION)
    page.click("#ask-form button[type=submit]")


def _poll(probe, seconds: float = 5.0):
    """``probe()`` once truthy (checked every 50 ms; the page's CSP forbids Playwright's string predicates)."""
    deadline = time.monotonic() + seconds
    while not (value := probe()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return value


def _wait_for_stored_answer() -> Answer:
    """The answer the live server's worker thread stored (read once the thread is done: SQLite locks)."""
    deadline = time.monotonic() + 15
    while any(t.name == "answer-stream" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return Answer.objects.get()


def test_draft_text_grows_then_the_checked_answer_with_its_badge_replaces_it(page, login, employee, owner, claude):
    _ask(page, login, owner)

    draft = page.locator(".draft-answer")
    draft.wait_for()
    assert draft.locator(".draft-label").inner_text() == DRAFT_LABEL
    page.locator(".draft-text:not(:empty)").wait_for(timeout=FIRST_ANSWER_MS)
    first = draft.locator(".draft-text").inner_text()
    grown = _poll(lambda: (text := draft.locator(".draft-text").inner_text()) != first and text)
    assert grown.startswith(first) and len(grown) > len(first)
    # Provisional: no badge, no footnotes, no rating while the text is a draft.
    assert draft.locator(".badge").count() == 0 and draft.locator(".footnotes").count() == 0
    assert page.locator(".feedback").count() == 0
    assert claude.streams == []  # the provider is still writing

    answer = page.locator("article.exchange .answer")
    answer.wait_for()
    assert page.locator(".draft-answer").count() == 0
    assert "10日" in answer.locator(".answer-text").inner_text()
    assert answer.locator(".badge.confidence").get_attribute("data-confidence") in {"high", "medium"}
    assert answer.locator(".footnotes li").count() >= 1
    assert page.input_value("textarea[name=text]") == ""
    assert "/c/" in page.url
    stored = _wait_for_stored_answer()
    assert stored.provider == "anthropic" and claude.streams == [True]


def test_stop_button_cancels_the_answer_and_nothing_is_shown_as_checked(page, login, employee, owner, claude):
    _ask(page, login, owner)
    page.locator(".draft-text:not(:empty)").wait_for(timeout=FIRST_ANSWER_MS)

    page.click("[data-stop-answer]")

    label = page.locator(".draft-answer .draft-label")
    page.locator(".draft-answer.stopped").wait_for()
    assert label.inner_text() == "回答の生成を中止しました。"
    assert page.locator("[data-stop-answer]").count() == 0
    time.sleep(1.5)  # a verified answer must not turn up after all
    assert page.locator("article.exchange").count() == 0 and page.locator(".badge.confidence").count() == 0
    stored = _wait_for_stored_answer()
    assert stored.response_type == Answer.ResponseType.ERROR and "cancelled" in stored.error
    assert not stored.citations.exists()
    assert _poll(lambda: claude.streams) == [False]  # the provider's stream was cut off before its end

    # Its conversation shows the stopped question as an error answer, not as a checked one.
    page.goto(f"/c/{stored.conversation_id}/")
    stopped = page.locator(".answer")
    assert (
        stopped.get_attribute("data-response-type") == "error"
        and "エラー" in stopped.locator(".badge").all_inner_texts()
    )
    assert (
        stopped.locator(".badge.confidence[data-confidence=high], .badge.confidence[data-confidence=medium]").count()
        == 0
    )
    assert "回答の生成を中止しました。" in stopped.inner_text() and stopped.locator(".footnotes").count() == 0


def test_provider_failing_mid_stream_ends_in_the_labelled_fallback(page, login, employee, owner, claude):
    claude.fail_after = 3
    _ask(page, login, owner)

    page.locator(".draft-answer").wait_for()
    answer = page.locator("article.exchange .answer")
    answer.wait_for(timeout=FIRST_ANSWER_MS)
    assert FALLBACK_LABEL in answer.locator(".warnings").inner_text()
    assert "10日" in answer.locator(".answer-text").inner_text()
    assert answer.locator(".footnotes li").count() >= 1
    stored = _wait_for_stored_answer()
    assert stored.provider == "extractive" and stored.flag_provider_error
