"""Gemini through the official ``google-genai`` SDK, with verifiable quotes.

Gemini has no document citations of its own in this setup, so it is asked for
structured JSON (a pydantic ``response_schema``): the answer as sentences, each
with the 1-based numbers of the chunks it rests on and verbatim quotes from
them. Each quote is then located in its chunk to become a citation; a quote
that cannot be located is kept, unlocated, for verification to flag as
fabricated. Grounding metadata, where Gemini returns it, counts UTF-8 bytes and
is converted to character offsets before use.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Unpack

import httpx
import pydantic_core
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types
from pydantic import BaseModel, Field, ValidationError

from qa.providers.base import (
    GenerateOptions,
    StreamItem,
    chunk_title,
    elapsed_ms,
    failure_message,
    is_abstention,
    locate_quote,
    quota_message,
    sentence_separator,
    verified_citation,
)
from qa.providers.prompts import GEMINI_FORMAT_RULES, system_prompt
from qa.types import (
    AnswerBlock,
    Citation,
    ProviderAnswer,
    ProviderConfigurationError,
    ProviderError,
    RetrievedChunk,
)

try:  # google-genai may use the httpx2 fork when it is installed.
    import httpx2

    _TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (httpx.HTTPError, httpx2.HTTPError)
except ImportError:  # pragma: no cover - depends on the environment
    _TRANSPORT_ERRORS = (httpx.HTTPError,)

logger = logging.getLogger(__name__)

RETRY_STATUS_CODES = [408, 429, 500, 502, 503, 504]


class AnswerSentence(BaseModel):
    """One sentence of the answer with its evidence."""

    text: str = Field(description="回答の1文")
    chunks: list[int] = Field(default_factory=list, description="根拠にした文書の番号（1から）")
    quotes: list[str] = Field(default_factory=list, description="根拠の文書から一字一句そのまま写した引用")


class GeminiAnswer(BaseModel):
    """The structured answer Gemini must return."""

    sentences: list[AnswerSentence]


# --- UTF-8 byte offsets -----------------------------------------------------------


def byte_offset_to_char(text: str, byte_offset: int) -> int:
    """The character index in ``text`` at UTF-8 byte offset ``byte_offset``.

    An offset falling inside a multibyte character maps to that character's
    start; an offset past the end maps to ``len(text)``. Negative → 0.
    """
    if byte_offset <= 0:
        return 0
    consumed = 0
    for index, char in enumerate(text):
        consumed += len(char.encode("utf-8"))
        if consumed > byte_offset:
            return index
        if consumed == byte_offset:
            return index + 1
    return len(text)


def byte_span_to_char_span(text: str, start_byte: int | None, end_byte: int | None) -> tuple[int, int]:
    """Convert a Gemini ``Segment`` (UTF-8 byte offsets, end exclusive) to character offsets."""
    start = byte_offset_to_char(text, start_byte or 0)
    end = len(text) if end_byte is None else byte_offset_to_char(text, end_byte)
    return start, max(start, end)


# --- the provider -------------------------------------------------------------------


class GeminiProvider:
    """Answers with Gemini's generateContent and structured JSON output."""

    name = "gemini"
    reads_history = True  # sent the earlier turns as contents

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        retry_initial_delay: float = 1.0,
    ) -> None:
        """Build the SDK client. Raises ProviderConfigurationError without an API key.

        ``timeout`` is in seconds (the SDK wants milliseconds);
        ``max_retries`` counts retries after the first attempt, as for Anthropic.
        """
        if not api_key:
            raise ProviderConfigurationError(
                "RAG_PROVIDER=gemini requires GEMINI_API_KEY to be set "
                "(or choose RAG_PROVIDER=extractive, which needs no key)."
            )
        self.model = model
        http_options = genai_types.HttpOptions(
            base_url=base_url or None,
            timeout=max(1, int(timeout * 1000)),
            retry_options=genai_types.HttpRetryOptions(
                attempts=max_retries + 1,
                initial_delay=retry_initial_delay,
                # The SDK's default jitter adds up to a whole second per retry;
                # keep it proportional to the delay chosen.
                jitter=retry_initial_delay,
                http_status_codes=RETRY_STATUS_CODES,
            ),
        )
        self.client = genai.Client(api_key=api_key, http_options=http_options)

    def build_contents(
        self, question: str, chunks: Sequence[RetrievedChunk], history: Sequence[tuple[str, str]]
    ) -> list[genai_types.Content]:
        """Earlier turns as plain text, then one user turn: numbered documents + question."""
        contents: list[genai_types.Content] = []
        for past_question, past_answer in history:
            contents.append(genai_types.Content(role="user", parts=[genai_types.Part(text=past_question)]))
            contents.append(genai_types.Content(role="model", parts=[genai_types.Part(text=past_answer)]))
        documents = "\n\n".join(
            f"[文書{number}] {chunk_title(chunk)}\n{chunk.text}" for number, chunk in enumerate(chunks, start=1)
        )
        prompt = f"{documents}\n\n質問: {question}"
        contents.append(genai_types.Content(role="user", parts=[genai_types.Part(text=prompt)]))
        return contents

    def generate(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        **options: Unpack[GenerateOptions],
    ) -> ProviderAnswer:
        """Ask Gemini for cited sentences; locate every quote. Raises ProviderError on failure."""
        started = time.perf_counter()
        with _provider_errors():
            response = self.client.models.generate_content(
                model=self.model,
                contents=self.build_contents(question, chunks, options.get("history", ())),
                config=_config(options.get("strict", False)),
            )
        blocks = self._blocks(self._parse(response), chunks)
        self._add_grounding_citations(response, blocks, chunks)
        return self._answer(blocks, response, started)

    def stream(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        **options: Unpack[GenerateOptions],
    ) -> Iterator[StreamItem]:
        """``generate()`` through ``generate_content_stream``: the sentences' text as it arrives, then the answer.

        The streamed chunks are pieces of one JSON document; the text of its
        sentences is read from the incomplete JSON as it grows (quotes and
        chunk numbers are not shown), and the complete JSON becomes the answer
        exactly as in ``generate()``. The SDK leaves the HTTP response of a
        stream closed early open until its client is closed (or collected):
        ``qa.streaming`` drops a provider whose stream it left.
        """
        started = time.perf_counter()
        raw, shown, last = "", "", None
        with _provider_errors():
            responses = self.client.models.generate_content_stream(
                model=self.model,
                contents=self.build_contents(question, chunks, options.get("history", ())),
                config=_config(options.get("strict", False)),
            )
            for last in responses:
                raw += last.text or ""
                draft = _draft_text(raw)
                if draft.startswith(shown) and len(draft) > len(shown):
                    yield draft[len(shown) :]
                    shown = draft
        if last is None:
            raise ProviderError("gemini returned an empty stream", user_message=failure_message())
        blocks = self._blocks(_parse_json(raw), chunks)
        yield self._answer(blocks, last, started)

    def _answer(self, blocks: list[AnswerBlock], response: Any, started: float) -> ProviderAnswer:
        """The answer from its blocks; usage and model from ``response`` (a stream's last chunk carries them)."""
        text = "".join(b.text for b in blocks)
        if not text.strip():
            raise ProviderError("gemini returned an empty answer", user_message=failure_message())
        usage: dict[str, int] = {}
        meta = getattr(response, "usage_metadata", None)
        if meta is not None:
            for key in ("prompt_token_count", "candidates_token_count", "total_token_count", "thoughts_token_count"):
                value = getattr(meta, key, None)
                if isinstance(value, int):
                    usage[key] = value
        return ProviderAnswer(
            blocks=blocks,
            provider=self.name,
            model=getattr(response, "model_version", None) or self.model,
            abstained=is_abstention(text),
            usage=usage,
            latency_ms=elapsed_ms(started),
        )

    @staticmethod
    def _parse(response: Any) -> GeminiAnswer:
        """``response.parsed`` when the SDK managed, else the JSON in ``response.text``."""
        parsed = getattr(response, "parsed", None)
        if isinstance(parsed, GeminiAnswer):
            return parsed
        try:
            raw = response.text
        except ValueError as exc:
            raise ProviderError(f"gemini response has no text: {exc}", user_message=failure_message()) from exc
        return _parse_json(raw)

    @staticmethod
    def _blocks(answer: GeminiAnswer, chunks: Sequence[RetrievedChunk]) -> list[AnswerBlock]:
        sentences = [s for s in answer.sentences if s.text.strip()]
        blocks = []
        for position, sentence in enumerate(sentences):
            separator = "" if position == len(sentences) - 1 else sentence_separator(sentence.text)
            citations = [
                _quote_citation(chunks, sentence.chunks, quote, index, len(sentence.quotes))
                for index, quote in enumerate(sentence.quotes)
                if quote.strip()
            ]
            blocks.append(AnswerBlock(text=sentence.text + separator, citations=citations))
        return blocks

    @staticmethod
    def _add_grounding_citations(response: Any, blocks: list[AnswerBlock], chunks: Sequence[RetrievedChunk]) -> None:
        """Attach Gemini grounding supports (when present) as extra citations.

        A support's segment is a UTF-8 byte range of the response part's text;
        it is converted to characters, and the support is attached to the
        answer sentence containing that segment text. The grounding chunk's
        retrieved text is located in our chunks; only located ones are added.
        """
        try:
            candidate = response.candidates[0]
            metadata = candidate.grounding_metadata
            part_texts = [part.text or "" for part in candidate.content.parts]
        except (AttributeError, IndexError, TypeError):
            return
        if metadata is None or not metadata.grounding_supports:
            return
        grounding_chunks = metadata.grounding_chunks or []
        for support in metadata.grounding_supports:
            segment = support.segment
            if segment is None:
                continue
            part_index = segment.part_index or 0
            if not 0 <= part_index < len(part_texts):
                continue
            part_text = part_texts[part_index]
            start, end = byte_span_to_char_span(part_text, segment.start_index, segment.end_index)
            segment_text = part_text[start:end].strip()
            if not segment_text:
                continue
            block = next((b for b in blocks if segment_text in b.text or b.text.strip() in segment_text), None)
            if block is None:
                continue
            for grounding_index in support.grounding_chunk_indices or []:
                if not 0 <= grounding_index < len(grounding_chunks):
                    continue
                context = grounding_chunks[grounding_index].retrieved_context
                quote = (context.text if context else None) or ""
                for chunk_index, chunk in enumerate(chunks):
                    span = locate_quote(chunk.text, quote)
                    if span is not None:
                        citation = Citation(chunk_index, chunk.text[span[0] : span[1]], span[0], span[1])
                        if citation not in block.citations:
                            block.citations.append(citation)
                        break


def _quote_citation(
    chunks: Sequence[RetrievedChunk], numbers: Sequence[int], quote: str, quote_index: int, quote_count: int
) -> Citation:
    """A citation for one quote of a sentence, located in one of the sentence's chunks.

    Quotes and chunk numbers are paired by position when their counts match;
    otherwise each listed chunk is tried in turn. Chunk numbers are 1-based as
    shown to the model. A number outside the chunks sent gives ``chunk_index``
    None; a quote found in none of the listed chunks keeps start/end None.
    """
    listed = [n - 1 for n in numbers]
    if len(listed) == quote_count and quote_count > 1:
        paired = listed[quote_index]
        order = [paired] + [i for i in listed if i != paired]
    else:
        order = listed
    valid = [i for i in order if 0 <= i < len(chunks)]
    if not listed:
        # No chunk number given: the quote alone may still identify its chunk.
        valid = list(range(len(chunks)))
    for index in valid:
        span = locate_quote(chunks[index].text, quote)
        if span is not None:
            return verified_citation(chunks, index, quote, span[0], span[1])
    primary = order[0] if order else None
    if primary is None or not 0 <= primary < len(chunks):
        return Citation(None, quote, None, None)
    return Citation(primary, quote, None, None)


def _config(strict: bool) -> genai_types.GenerateContentConfig:
    """The request's configuration: our rules, and the answer as JSON of the ``GeminiAnswer`` shape."""
    return genai_types.GenerateContentConfig(
        system_instruction=system_prompt(strict=strict) + GEMINI_FORMAT_RULES,
        response_mime_type="application/json",
        response_schema=GeminiAnswer,
        temperature=0.0,
    )


def _parse_json(raw: str | None) -> GeminiAnswer:
    """The complete JSON answer. Raises ProviderError when it is empty or not of the expected shape."""
    if not raw or not raw.strip():
        raise ProviderError("gemini returned an empty answer", user_message=failure_message())
    try:
        return GeminiAnswer.model_validate(json.loads(raw))
    except (ValueError, ValidationError) as exc:
        raise ProviderError(f"gemini answer is not the expected JSON: {exc}", user_message=failure_message()) from exc


def _draft_text(raw: str) -> str:
    """The sentences' text readable so far in an incomplete JSON answer ("" while none is)."""
    try:
        partial = pydantic_core.from_json(raw, allow_partial="trailing-strings") if raw.strip() else {}
    except ValueError:
        return ""
    sentences = partial.get("sentences") if isinstance(partial, dict) else None
    texts = [s["text"] for s in sentences or [] if isinstance(s, dict) and isinstance(s.get("text"), str)]
    # Every sentence but the one still being written is complete: it gets its separator.
    return "".join(text + sentence_separator(text) for text in texts[:-1]) + (texts[-1] if texts else "")


@contextmanager
def _provider_errors() -> Iterator[None]:
    """Turn the SDK's and the HTTP library's failures into ProviderError with a message for the user."""
    try:
        yield
    except genai_errors.APIError as exc:
        if exc.code == 429:
            logger.warning("Gemini rate limit / quota: %s", exc)
            raise ProviderError(f"gemini quota: {exc}", user_message=quota_message(), quota=True) from exc
        logger.warning("Gemini request failed: %s", exc)
        raise ProviderError(f"gemini HTTP {exc.code}: {exc}", user_message=failure_message()) from exc
    except _TRANSPORT_ERRORS as exc:
        # Timeouts, refused connections and streams cut off half way surface as
        # the HTTP library's own exceptions, not as genai errors.
        logger.warning("Gemini transport failure: %s: %s", type(exc).__name__, exc)
        raise ProviderError(f"gemini {type(exc).__name__}: {exc}", user_message=failure_message()) from exc
    except ValueError as exc:  # body that is not JSON
        raise ProviderError(f"gemini malformed response: {exc}", user_message=failure_message()) from exc
