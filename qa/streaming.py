"""Answers that stream: the provider's text as it arrives, then the checked answer.

``answer_question_stream`` runs ``services.answer_question`` unchanged (search,
provider, verification, storage) in a worker thread, handing it a provider
(``_Relay``) that streams the configured one and passes each text piece on.
The pieces are a draft: nothing in them is checked. The stored answer, verified
exactly as a plain one, comes last.

A cloud provider that fails, is rate-limited or has not finished within
``RAG_CLOUD_WAIT_S`` is replaced by the extractive provider; that answer is
labelled ``FALLBACK_LABEL`` and flagged for review (``RAG_CLOUD_FALLBACK=0``:
the failure is stored and shown instead). A stream the client abandons
(``cancel``) stops the provider call and stores an error answer saying so.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import Unpack

from django.conf import settings
from django.db import close_old_connections, connections
from django.utils import translation
from django.utils.translation import gettext, gettext_noop

from documents.models import Document
from qa import services
from qa.models import Answer, Conversation
from qa.providers import Provider, get_provider
from qa.providers.base import GenerateOptions, StreamingProvider, failure_message, stream_at_once
from qa.results import AnswerResult
from qa.types import ProviderAnswer, ProviderError, RetrievedChunk
from ragportal.database_unavailable import is_database_unavailable, unavailable_message

log = logging.getLogger(__name__)

FALLBACK_LABEL = gettext_noop("クラウドの回答生成に失敗したため、文書の該当箇所をそのまま示します")
CANCELLED_ERROR = "stream cancelled by the client"
EVENT_STREAM_TYPE = "text/event-stream"
EVENT_STREAM = f"{EVENT_STREAM_TYPE}; charset=utf-8"
# A comment line: keeps proxies from timing the stream out and lets a departed reader be noticed.
HEARTBEAT = b": keepalive\n\n"
# How often the stream says it is alive while nothing arrives (a client that left is noticed then).
HEARTBEAT_S = 1.0


def sse_event(name: str, data: bytes) -> bytes:
    """One Server-Sent Event: ``event: <name>`` and ``data`` (one line of JSON)."""
    return b"event: " + name.encode("ascii") + b"\ndata: " + data + b"\n\n"


def failure_detail(exc: BaseException) -> str:
    """What to tell the reader when a stream fails after it began (logged here; its status was already 200)."""
    log.error("answer stream failed: %s", exc, exc_info=exc)
    return unavailable_message() if is_database_unavailable(exc) else failure_message()


def cancelled_message() -> str:
    """What a stopped answer says to its reader."""
    return gettext("回答の生成を中止しました。")


@dataclass(frozen=True)
class Delta:
    """A piece of the draft text, as the provider wrote it (unchecked)."""

    text: str


@dataclass(frozen=True)
class Done:
    """The stored, verified answer as ``answer_question`` handed it over: the end of the stream."""

    result: AnswerResult


@dataclass(frozen=True)
class _Raised:
    error: BaseException


StreamEvent = Delta | Done | None  # None: a heartbeat while nothing arrived for HEARTBEAT_S


# Streaming providers by configuration, shared by requests: building an SDK client costs
# half a second (Gemini's), which would otherwise delay every first piece of text.
_providers: dict[tuple, Provider] = {}
_providers_lock = threading.Lock()


def _provider_key() -> tuple:
    names: tuple[str, ...] = ("RAG_PROVIDER", "RAG_PROVIDER_TIMEOUT", "RAG_PROVIDER_MAX_RETRIES", "RAG_CLOUD_WAIT_S")
    names += tuple(f"{kind}_{part}" for kind in ("ANTHROPIC", "GEMINI") for part in ("API_KEY", "MODEL", "BASE_URL"))
    return tuple(getattr(settings, name) for name in names)


def _shared_provider() -> Provider:
    """The configured provider, timed out after ``RAG_CLOUD_WAIT_S`` at most, built once per configuration."""
    key = _provider_key()
    with _providers_lock:
        if key not in _providers:
            wait = float(settings.RAG_CLOUD_WAIT_S)
            _providers[key] = get_provider(timeout=min(wait, float(settings.RAG_PROVIDER_TIMEOUT)))
        return _providers[key]


def _forget_provider(provider: Provider) -> None:
    with _providers_lock:
        for key in [k for k, v in _providers.items() if v is provider]:
            del _providers[key]


class _Relay:
    """The provider ``answer_question`` calls: streams the configured one, passing pieces to ``sink``.

    Built lazily (a configuration error is then stored as the provider failure it is).
    Only the first call's pieces are passed on: the strict retry's answer replaces the
    draft when it comes, not by appending to it.
    """

    def __init__(self, sink: queue.Queue, cancel: threading.Event) -> None:
        self.sink, self.cancel = sink, cancel
        self.fallback_reason: str | None = None
        self._provider: Provider | None = None
        self._extractive: Provider | None = None

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = _shared_provider()
        return self._provider

    @property
    def extractive(self) -> Provider:
        if self._extractive is None:
            self._extractive = get_provider("extractive")
        return self._extractive

    @property
    def name(self) -> str:
        return self.extractive.name if self.fallback_reason is not None else self.provider.name

    @property
    def model(self) -> str:
        return self.extractive.model if self.fallback_reason is not None else self.provider.model

    @property
    def reads_history(self) -> bool:
        return self.provider.reads_history

    def generate(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        **options: Unpack[GenerateOptions],
    ) -> ProviderAnswer:
        """The provider's answer, streamed; the extractive one when the cloud fails and fallback is on."""
        if self.fallback_reason is not None:
            return self.extractive.generate(question, chunks, **options)
        try:
            return self._stream(question, chunks, passing_on=not options.get("strict", False), **options)
        except ProviderError as exc:
            _forget_provider(self.provider)  # a stream left half way may have closed its client
            fallback = settings.RAG_CLOUD_FALLBACK and self.provider.name != self.extractive.name
            if self.cancel.is_set() or not fallback:
                raise
            log.warning("cloud answer failed, answering extractively: %s", exc)
            self.fallback_reason = str(exc) or exc.__class__.__name__
            return self.extractive.generate(question, chunks, **options)

    def _stream(
        self, question: str, chunks: list[RetrievedChunk], *, passing_on: bool, **arguments: Unpack[GenerateOptions]
    ) -> ProviderAnswer:
        provider = self.provider
        if isinstance(provider, StreamingProvider):
            items = provider.stream(question, chunks, **arguments)
        else:
            items = stream_at_once(provider.generate(question, chunks, **arguments))
        deadline = time.monotonic() + float(settings.RAG_CLOUD_WAIT_S)
        try:
            for item in items:
                if self.cancel.is_set():
                    raise ProviderError(CANCELLED_ERROR, user_message=cancelled_message())
                if time.monotonic() > deadline:
                    raise ProviderError(
                        f"no complete answer within {settings.RAG_CLOUD_WAIT_S} s", user_message=failure_message()
                    )
                if isinstance(item, ProviderAnswer):
                    return item
                if passing_on:
                    self.sink.put(Delta(item))
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()  # stops the HTTP stream when we leave early
        raise ProviderError(f"{provider.name} stream ended without an answer", user_message=failure_message())


def answer_question_stream(
    *,
    user,  # noqa: ANN001
    text: str,
    conversation: Conversation | None = None,
    document: Document | None = None,
    cancel: threading.Event | None = None,
) -> Generator[StreamEvent, None, None]:
    """``services.answer_question`` as a stream: ``Delta`` pieces, then one ``Done`` with its result.

    Yields None every ``HEARTBEAT_S`` while nothing arrives. Raises what
    ``answer_question`` raises (ValidationError, DenseIndexUnavailableError:
    nothing is stored), before any piece. Closing the iterator early sets
    ``cancel``: the provider call stops and an error answer saying so is stored.
    """
    cancel = cancel or threading.Event()
    sink: queue.Queue = queue.Queue()
    relay = _Relay(sink, cancel)
    language = translation.get_language()

    def work() -> None:
        close_old_connections()
        translation.activate(language)  # the request's language: messages stored for the reader are in it
        try:
            result = services.answer_question(
                user=user, text=text, conversation=conversation, document=document, provider=relay
            )
            if relay.fallback_reason is not None:
                result = _mark_fallback(result, relay)
            sink.put(Done(result))
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which raises it
            sink.put(_Raised(exc))
        finally:
            connections.close_all()  # this thread's connections only

    threading.Thread(target=work, name="answer-stream", daemon=True).start()
    try:
        while True:
            try:
                event = sink.get(timeout=HEARTBEAT_S)
            except queue.Empty:
                yield None
                continue
            if isinstance(event, _Raised):
                raise event.error
            yield event
            if isinstance(event, Done):
                return
    finally:
        cancel.set()


def _mark_fallback(result: AnswerResult, relay: _Relay) -> AnswerResult:
    """Label an extractive stand-in answer as such and send it to the review queue; the result as stored."""
    answer = result.answer
    label = {"template": FALLBACK_LABEL, "params": {}}
    verdict = replace(
        result.verdict,
        flags=sorted({*result.verdict.flags, "provider_error"}),
        warnings=[FALLBACK_LABEL, *result.verdict.warnings],
        warning_templates=[label, *result.verdict.warning_templates],
        needs_review=True,
    )
    answer.store_verdict(verdict)
    failed = {"provider": answer.provider, "model": answer.model_name, "reason": relay.fallback_reason}
    answer.usage = {**(answer.usage or {}), "fallback": failed}
    answer.provider, answer.model_name = relay.extractive.name, relay.extractive.model
    answer.save(update_fields=[*Answer.VERDICT_FIELDS, "usage", "provider", "model_name"])
    return replace(result, verdict=verdict)
