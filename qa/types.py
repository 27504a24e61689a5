"""Plain data passed between retrieval, answer providers and verification.

Nothing here touches the ORM: everything after retrieval works on these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RetrievedChunk:
    """One retrieved chunk with its scores.

    ``score`` is the fused retrieval score (higher is better);
    ``similarity`` is the dense cosine similarity of the chunk to the query.
    """

    chunk_id: int
    document_id: int
    version_id: int
    filename: str
    section: str
    text: str
    score: float = 0.0
    similarity: float = 0.0
    keyword_rank: int | None = None
    dense_rank: int | None = None
    title: str = ""
    # One embedding per sentence of ``text`` (documents.sentence_vectors), when stored; not part of equality.
    sentence_vectors: Any = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Citation:
    """A citation made by a provider.

    ``chunk_index`` indexes the list of chunks given to the provider, or is
    ``None`` when the provider cited a document that was never sent.
    ``start``/``end`` are character offsets into that chunk's text where the
    quote was located (None when it could not be located: a fabricated quote).
    """

    chunk_index: int | None
    cited_text: str
    start: int | None = None
    end: int | None = None

    @property
    def located(self) -> bool:
        return self.chunk_index is not None and self.start is not None and self.end is not None


@dataclass
class AnswerBlock:
    """A span of answer text and the citations that support it."""

    text: str
    citations: list[Citation] = field(default_factory=list)


@dataclass
class ProviderAnswer:
    blocks: list[AnswerBlock]
    provider: str
    model: str = ""
    abstained: bool = False
    usage: dict = field(default_factory=dict)
    latency_ms: float = 0.0

    @property
    def text(self) -> str:
        return "".join(block.text for block in self.blocks)


class ProviderError(Exception):
    """A provider failed (network, quota, timeout, bad output).

    ``user_message`` is safe to show; ``quota`` marks a 429 from the provider.
    """

    def __init__(self, message: str, *, user_message: str = "", quota: bool = False) -> None:
        super().__init__(message)
        self.user_message = user_message
        self.quota = quota


class ProviderConfigurationError(Exception):
    """The configured provider cannot start (for instance, no API key)."""
