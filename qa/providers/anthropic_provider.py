"""Claude through the official ``anthropic`` SDK, with native citations.

Each chunk is sent as a ``document`` content block (plain text, titled
"file — section", citations enabled), then the question. Claude's
``char_location`` citations come back per text block; their offsets are
checked against the chunk text and re-located from ``cited_text`` when they
do not match, never trusted blindly.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Unpack

import anthropic
import httpx

from qa.providers.base import (
    GenerateOptions,
    StreamItem,
    chunk_title,
    elapsed_ms,
    failure_message,
    is_abstention,
    quota_message,
    verified_citation,
)
from qa.providers.prompts import system_prompt
from qa.types import (
    AnswerBlock,
    ProviderAnswer,
    ProviderConfigurationError,
    ProviderError,
    RetrievedChunk,
)

logger = logging.getLogger(__name__)

MAX_TOKENS = 1024
STRICT_MAX_TOKENS = 512


class AnthropicProvider:
    """Answers with Claude's Messages API and its document citations."""

    name = "anthropic"
    reads_history = True  # sent the earlier turns as messages

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
    ) -> None:
        """Build the SDK client. Raises ProviderConfigurationError without an API key."""
        if not api_key:
            raise ProviderConfigurationError(
                "RAG_PROVIDER=anthropic requires ANTHROPIC_API_KEY to be set "
                "(or choose RAG_PROVIDER=extractive, which needs no key)."
            )
        self.model = model
        self.client = anthropic.Anthropic(
            api_key=api_key, base_url=base_url or None, timeout=timeout, max_retries=max_retries
        )

    def build_messages(
        self, question: str, chunks: Sequence[RetrievedChunk], history: Sequence[tuple[str, str]]
    ) -> list[dict[str, Any]]:
        """The ``messages`` payload: earlier turns as plain text, then documents + question."""
        messages: list[dict[str, Any]] = []
        for past_question, past_answer in history:
            messages.append({"role": "user", "content": past_question})
            messages.append({"role": "assistant", "content": past_answer})
        documents: list[dict[str, Any]] = [
            {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": chunk.text},
                "title": chunk_title(chunk),
                "citations": {"enabled": True},
            }
            for chunk in chunks
        ]
        messages.append({"role": "user", "content": [*documents, {"type": "text", "text": question}]})
        return messages

    def generate(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        **options: Unpack[GenerateOptions],
    ) -> ProviderAnswer:
        """Ask Claude; map its text blocks and citations. Raises ProviderError on failure.

        ``expanded_terms`` are not sent: Claude understands synonyms itself and
        extra words in the prompt would only invite answers from outside the
        documents.
        """
        started = time.perf_counter()
        with _provider_errors():
            response = self.client.messages.create(**self._request(question, chunks, options))
        return self._answer(response, chunks, started)

    def stream(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        **options: Unpack[GenerateOptions],
    ) -> Iterator[StreamItem]:
        """``generate()`` through the SDK's streaming: text pieces as Claude writes them, then the answer.

        The SDK gathers the ``citations_delta`` events into each text block's
        citations, so the final message is mapped exactly as a created one.
        Closing the iterator early closes the HTTP stream.
        """
        started = time.perf_counter()
        with _provider_errors():
            with self.client.messages.stream(**self._request(question, chunks, options)) as events:
                for event in events:
                    if event.type == "text" and event.text:
                        yield event.text
                response = events.get_final_message()
        yield self._answer(response, chunks, started)

    def _request(self, question: str, chunks: Sequence[RetrievedChunk], options: GenerateOptions) -> dict[str, Any]:
        """The Messages API arguments, the same for a created and a streamed answer."""
        strict = options.get("strict", False)
        return {
            "model": self.model,
            "max_tokens": STRICT_MAX_TOKENS if strict else MAX_TOKENS,
            "system": system_prompt(strict=strict),
            "messages": self.build_messages(question, chunks, options.get("history", ())),
        }

    def _answer(self, response: Any, chunks: Sequence[RetrievedChunk], started: float) -> ProviderAnswer:
        """Claude's message as a ProviderAnswer. Raises ProviderError for an empty answer."""
        blocks = self._blocks(response, chunks)
        if not blocks or not "".join(b.text for b in blocks).strip():
            raise ProviderError("anthropic returned an empty answer", user_message=failure_message())
        usage = {}
        raw_usage = getattr(response, "usage", None)
        if raw_usage is not None:
            usage = {k: v for k, v in raw_usage.model_dump().items() if isinstance(v, int)}
        text = "".join(b.text for b in blocks)
        return ProviderAnswer(
            blocks=blocks,
            provider=self.name,
            model=getattr(response, "model", None) or self.model,
            abstained=is_abstention(text),
            usage=usage,
            latency_ms=elapsed_ms(started),
        )

    def _blocks(self, response: Any, chunks: Sequence[RetrievedChunk]) -> list[AnswerBlock]:
        content = getattr(response, "content", None)
        if not isinstance(content, list):
            raise ProviderError("anthropic response has no content list", user_message=failure_message())
        blocks: list[AnswerBlock] = []
        for block in content:
            if getattr(block, "type", None) != "text":
                continue
            citations = []
            for cite in getattr(block, "citations", None) or []:
                cited_text = getattr(cite, "cited_text", "") or ""
                document_index = getattr(cite, "document_index", None)
                if getattr(cite, "type", None) == "char_location":
                    citations.append(
                        verified_citation(
                            chunks, document_index, cited_text, cite.start_char_index, cite.end_char_index
                        )
                    )
                else:
                    # Page or content-block locations do not apply to plain-text
                    # documents; still keep the quote so verification can judge it.
                    citations.append(verified_citation(chunks, document_index, cited_text, None, None))
            blocks.append(AnswerBlock(text=block.text, citations=citations))
        return blocks


@contextmanager
def _provider_errors() -> Iterator[None]:
    """Turn the SDK's failures (after its retries) into ProviderError with a message for the user."""
    try:
        yield
    except anthropic.RateLimitError as exc:
        logger.warning("Anthropic rate limit / quota: %s", exc)
        raise ProviderError(f"anthropic quota: {exc}", user_message=quota_message(), quota=True) from exc
    except anthropic.APIError as exc:
        # Timeouts, connection failures, other HTTP statuses, an ``error`` event in
        # a stream and responses the SDK could not parse all end here.
        logger.warning("Anthropic request failed: %s: %s", type(exc).__name__, exc)
        raise ProviderError(f"anthropic {type(exc).__name__}: {exc}", user_message=failure_message()) from exc
    except httpx.HTTPError as exc:
        # A stream cut off half way surfaces as the HTTP library's own error.
        logger.warning("Anthropic stream broke: %s: %s", type(exc).__name__, exc)
        raise ProviderError(f"anthropic {type(exc).__name__}: {exc}", user_message=failure_message()) from exc
    except ValueError as exc:  # malformed JSON body
        raise ProviderError(f"anthropic malformed response: {exc}", user_message=failure_message()) from exc
