"""Streamed answers timed through the API: time to the first text and to the verified answer.

Used by ``benchmark_api --stream``. Each provider is measured with
``POST /api/v1/ask`` and ``Accept: text/event-stream`` (``django.test.Client``,
the events read as they come). The cloud providers are their real SDKs talking
to ``qa.evaluation.fake_clouds`` servers on 127.0.0.1 that stream their answer
in ``STREAM_PIECES`` parts ``STREAM_PAUSE_S`` apart (2.4 s), so "first text"
shows whether text reaches the client before the provider has finished.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any, cast

from django.http import StreamingHttpResponse
from django.test import Client
from django.test.utils import override_settings

from qa.evaluation.fake_clouds import ANTHROPIC, GEMINI, FakeCloud

PROVIDERS = ("extractive", "anthropic-fake", "gemini-fake")
STREAM_PIECES = 9
STREAM_PAUSE_S = 0.3


@dataclass
class StreamTiming:
    """One streamed answer: when its first text and its ``answer`` event reached the client (ms after the POST)."""

    first_text_ms: float | None = None
    answer_ms: float | None = None
    answer_id: int | None = None
    events: list[tuple[str, float, Any]] = field(default_factory=list)


def ask_streaming(client: Client, question: str) -> StreamTiming:
    """POST ``question`` for a stream and time its events. Raises RuntimeError on a refusal or an ``error`` event."""
    timing = StreamTiming()
    started = time.perf_counter()
    response = client.post(
        "/api/v1/ask", {"text": question}, content_type="application/json", HTTP_ACCEPT="text/event-stream"
    )
    if response.status_code != 200 or not response.streaming:
        raise RuntimeError(f"POST /api/v1/ask (stream) returned {response.status_code}: {response.content[:300]!r}")
    buffer = b""
    # The test client types every response as a plain one (`streaming` said this one streams),
    # and a stream from a WSGI view is a synchronous iterator.
    stream = cast("StreamingHttpResponse", response)
    for part in cast("Iterator[bytes]", stream.streaming_content):
        buffer += part
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            lines = dict(line.split(": ", 1) for line in block.decode().splitlines() if not line.startswith(":"))
            if "event" not in lines:
                continue
            at = (time.perf_counter() - started) * 1000
            data = json.loads(lines["data"])
            timing.events.append((lines["event"], round(at, 1), data))
            if lines["event"] == "error":
                raise RuntimeError(f"error event: {data}")
            if timing.first_text_ms is None:
                timing.first_text_ms = at
            if lines["event"] == "answer":
                timing.answer_ms, timing.answer_id = at, data["id"]
    response.close()
    return timing


@contextmanager
def provider_settings(name: str) -> Iterator[FakeCloud | None]:
    """Settings that make ``name`` (one of ``PROVIDERS``) answer; for a fake, its server, started."""
    with ExitStack() as stack:
        fake = None
        overrides: dict[str, Any] = {"RAG_PROVIDER": "extractive", "RAG_PROVIDER_MAX_RETRIES": 0}
        if name == "anthropic-fake":
            fake = stack.enter_context(FakeCloud(ANTHROPIC, pause=STREAM_PAUSE_S, pieces=STREAM_PIECES))
            overrides.update(
                RAG_PROVIDER="anthropic",
                ANTHROPIC_API_KEY="fake",
                ANTHROPIC_MODEL="claude-fake",
                ANTHROPIC_BASE_URL=fake.base_url,
            )
        elif name == "gemini-fake":
            fake = stack.enter_context(FakeCloud(GEMINI, pause=STREAM_PAUSE_S, pieces=STREAM_PIECES))
            overrides.update(
                RAG_PROVIDER="gemini", GEMINI_API_KEY="fake", GEMINI_MODEL="gemini-fake", GEMINI_BASE_URL=fake.base_url
            )
        elif name != "extractive":
            raise ValueError(f"unknown provider {name!r}; choose from {', '.join(PROVIDERS)}")
        stack.enter_context(override_settings(**overrides))
        yield fake
