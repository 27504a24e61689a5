"""What every answer provider shares: the interface, user-facing messages,
the abstention sentence in the question's language and locating a quote inside a chunk.

Importable without Django settings (messages are translated lazily at call time); no network.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Protocol, TypedDict, Unpack, runtime_checkable

from django.utils.translation import gettext

from qa.question import Question
from qa.types import Citation, ProviderAnswer, RetrievedChunk
from ragportal.text import is_english
from verification.grounding import NOT_FOUND_MESSAGE, NOT_FOUND_MESSAGE_EN
from verification.grounding import is_abstention as verification_is_abstention
from verification.quotes import locate_quote as verification_locate_quote

# The abstention sentence of the second reference article. It is a fixed
# string (not a translatable UI message) because providers are told to say it
# verbatim and verification recognises it by equality.
ABSTAIN_JA = NOT_FOUND_MESSAGE
ABSTAIN_EN = NOT_FOUND_MESSAGE_EN


def failure_message() -> str:
    """User-facing text for any provider failure other than quota."""
    return gettext("回答の生成に失敗しました。しばらくしてから再度お試しください。")


def quota_message() -> str:
    """User-facing text when the provider answered 429 (rate limit or quota)."""
    return gettext("AIサービスの利用上限に達しました。しばらくしてから再度お試しください。")


class GenerateOptions(TypedDict, total=False):
    """The keyword arguments of ``Provider.generate`` and ``stream``; each may be left out.

    - ``expanded_terms`` (default none): synonyms the search added;
    - ``strict`` (default False): the conservative retry;
    - ``history`` (default none): earlier (question, answer) turns;
    - ``analysed`` (default None): the question as the answering service analysed it.
    """

    expanded_terms: Sequence[str]
    strict: bool
    history: Sequence[tuple[str, str]]
    analysed: Question | None


@runtime_checkable
class Provider(Protocol):
    """Turns a question plus retrieved chunks into cited answer blocks.

    ``chunks`` is ordered best first; every ``Citation.chunk_index`` in the
    result indexes this list (None for a document that was never sent).
    ``strict`` asks for the conservative retry: quote only, answer briefly.
    ``history`` holds earlier (question, answer) turns of the conversation. A
    provider with ``reads_history = False`` gets a follow-up already read in
    the conversation's topic instead (the question as searched).
    ``analysed`` is ``question`` as the answering service analysed it
    (:func:`qa.question.analyse_question`); a provider that reads the question's
    language or what it asks uses it instead of reading the text again.
    Failures raise ``qa.types.ProviderError``; "not in the documents" is an
    abstention (``abstained=True``), not an error.
    """

    # Read-only members: a plain class attribute satisfies them, and so does a property
    # (the streaming relay reports the provider it relays to).
    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def reads_history(self) -> bool: ...

    def generate(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        **options: Unpack[GenerateOptions],
    ) -> ProviderAnswer: ...


# What a provider's ``stream()`` yields: text pieces as they arrive, then exactly one final answer.
StreamItem = str | ProviderAnswer


@runtime_checkable
class StreamingProvider(Provider, Protocol):
    """A provider that can also stream: ``stream()`` takes ``generate()``'s arguments.

    It yields the answer text in pieces as the model writes them (a draft: no
    citation is checked yet), then exactly one ``ProviderAnswer``, the same
    that ``generate()`` would have returned; verification runs on that one.
    Failures raise ``ProviderError``, possibly after some pieces. Closing the
    iterator early closes the connection to the provider.
    """

    def stream(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        **options: Unpack[GenerateOptions],
    ) -> Iterator[StreamItem]: ...


def stream_at_once(answer: ProviderAnswer) -> Iterator[StreamItem]:
    """The stream of a provider that has its whole answer at once: the text as one piece, then the answer."""
    if answer.text:
        yield answer.text
    yield answer


def abstention_text(question: str, *, english: bool | None = None) -> str:
    """The exact "not found" sentence in the question's language (``english``, read from ``question`` when None)."""
    return ABSTAIN_EN if (is_english(question) if english is None else english) else ABSTAIN_JA


def is_abstention(text: str) -> bool:
    """True when an answer is (only) the abstention sentence: verification's one rule."""
    return verification_is_abstention(text)


def chunk_title(chunk: RetrievedChunk) -> str:
    """The "file name — section" title shown to a model for a chunk."""
    if chunk.section:
        return f"{chunk.filename} — {chunk.section}"
    return chunk.filename


def elapsed_ms(started: float) -> float:
    """Milliseconds since ``started`` (a ``time.perf_counter()`` value)."""
    return round((time.perf_counter() - started) * 1000.0, 3)


def sentence_separator(sentence: str) -> str:
    """What joins a quoted sentence to the next one in the answer text.

    Japanese sentences ending in 。 need nothing; an English sentence needs a
    space; a list item or heading without final punctuation gets a line break
    so two quoted items do not run together.
    """
    stripped = sentence.rstrip()
    if not stripped or stripped != sentence:
        return ""
    last = stripped[-1]
    if last in "。！？」』）】":
        return ""
    if last in ".!?":
        return " "
    return "\n"


# --- locating quotes ----------------------------------------------------------


def locate_quote(text: str, quote: str, hint_start: int | None = None) -> tuple[int, int] | None:
    """Where ``quote`` occurs in ``text`` (nearest ``hint_start``), or None: verification's one rule."""
    return verification_locate_quote(quote, text, near=hint_start)


def verified_citation(
    chunks: Sequence[RetrievedChunk], document_index: int | None, cited_text: str, start: int | None, end: int | None
) -> Citation:
    """A provider citation checked against the chunk it names.

    - ``document_index`` outside the chunks sent → ``chunk_index`` None.
    - offsets whose slice equals ``cited_text`` are kept;
    - otherwise ``cited_text`` is located in the chunk (exact, then NFKC and
      whitespace-insensitive, nearest the claimed start); after a normalised
      match ``cited_text`` becomes the chunk's own spelling so that
      ``text[start:end] == cited_text`` always holds for located citations;
    - a quote that is not in the chunk keeps start/end None (fabricated).
    """
    if document_index is None or not 0 <= document_index < len(chunks):
        return Citation(None, cited_text, None, None)
    text = chunks[document_index].text
    if start is not None and end is not None and 0 <= start < end <= len(text) and text[start:end] == cited_text:
        return Citation(document_index, cited_text, start, end)
    span = locate_quote(text, cited_text, hint_start=start)
    if span is None:
        return Citation(document_index, cited_text, None, None)
    return Citation(document_index, text[span[0] : span[1]], span[0], span[1])
