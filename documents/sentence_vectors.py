"""Embeddings of each sentence of a chunk, and the chunk's own vector made from them.

The extractive provider scores sentences by meaning as well as by words, and
the answer-fit check compares the answer with the question. Embedding a
sentence at question time costs about 0.8 ms per token on the 2-core target,
so the vectors are computed at indexing time and stored with the chunk
(``Chunk.sentence_vectors``: float16, one 384-dim row per sentence of
:func:`sentence_spans`, in order). A chunk indexed before they existed, or a
throw-away evaluation index, gets them computed on first use and kept in a
bounded in-process cache.

Indexing embeds each distinct sentence once and derives the chunk's vector
from its sentences (:func:`embed_chunks`) instead of embedding the chunk text
as well: every token would otherwise go through the encoder twice, which made
indexing run at 0.58x the encoder's speed.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragportal.text import Sentence, split_sentences

DIMENSIONS = 384
_CACHE_SIZE = 3_000
# Sentences per model call while indexing: about the tokens of eight chunks, so a
# question waiting for the model waits no longer than it does for one chunk batch.
SENTENCE_BATCH = 48
# Distinct texts one indexing run remembers (about 1.5 KB each): overlapping chunks share
# whole sentences, and a handbook repeats its boilerplate from page to page.
_RECENT_TEXTS = 4_096
_cache: OrderedDict[str, np.ndarray] = OrderedDict()
_cache_lock = threading.Lock()


def sentence_spans(text: str) -> list[Sentence]:
    """The sentences a chunk is scored by (list markers and heading marks stripped).

    A Markdown table row is one span, whatever its cells say: 「| サーバーに接続できません |
    インターネットに接続できていません。自宅のルーター…|」 is one answer, not two halves.
    """
    merged: list[Sentence] = []
    for sentence in split_sentences(text, strip_markers=True):
        previous = merged[-1] if merged else None
        if previous is not None and _same_table_row(text, previous.end, sentence.start):
            merged[-1] = Sentence(previous.start, sentence.end, False, sentence.terminated)
        else:
            merged.append(sentence)
    return merged


def _same_table_row(text: str, end: int, start: int) -> bool:
    """Whether ``text[:end]`` and ``text[start:]`` are parts of one line that is a table row."""
    if "\n" in text[end:start]:
        return False
    line_start = text.rfind("\n", 0, end) + 1
    line_end = text.find("\n", start)
    line = text[line_start : len(text) if line_end == -1 else line_end].strip()
    return len(line) > 1 and line.startswith("|") and line.endswith("|")


def embed_chunk_sentences(texts: list[str]) -> list[np.ndarray]:
    """One float32 matrix per chunk text: a row per sentence of :func:`sentence_spans` (one batch)."""
    # Imported here: the model (and Chroma) load only when something is embedded, so the
    # extractive provider can share sentence_spans without that import.
    from documents.embeddings import embed_passages

    spans = [sentence_spans(text) for text in texts]
    flat = [text[s.start : s.end] for text, chunk_spans in zip(texts, spans) for s in chunk_spans]
    vectors = embed_passages(flat) if flat else np.zeros((0, DIMENSIONS), dtype=np.float32)
    out, row = [], 0
    for chunk_spans in spans:
        out.append(vectors[row : row + len(chunk_spans)])
        row += len(chunk_spans)
    return out


@dataclass(frozen=True)
class ChunkEmbeddings:
    """What indexing stores for a batch of chunks: a vector per chunk and a sentence matrix per chunk."""

    vectors: np.ndarray  # (chunks, DIMENSIONS), L2-normalised
    sentences: list[np.ndarray]  # per chunk: a row per sentence of sentence_spans


class TextEmbedder:
    """Passage vectors of texts, each distinct text embedded once while it is among the last ``size`` seen.

    One instance serves one indexing run; it is not shared between threads.
    """

    def __init__(self, size: int = _RECENT_TEXTS) -> None:
        self._size = size
        self._known: OrderedDict[str, np.ndarray] = OrderedDict()
        self.embedded = 0  # texts that went through the model (the others were known)

    def embed(self, texts: Sequence[str]) -> list[np.ndarray]:
        from documents.embeddings import embed_passages  # the model loads only when something is embedded

        missing = [t for t in dict.fromkeys(texts) if t not in self._known]
        fresh = dict(zip(missing, embed_passages(missing, batch=SENTENCE_BATCH))) if missing else {}
        self.embedded += len(missing)
        vectors = [fresh[t] if t in fresh else self._known[t] for t in texts]
        for text, vector in zip(texts, vectors):
            self._known[text] = vector
            self._known.move_to_end(text)
        while len(self._known) > self._size:
            self._known.popitem(last=False)
        return vectors


@dataclass(frozen=True)
class ChunkPieces:
    """The texts a chunk's vector is made of: its header line (if any), then its sentences.

    A chunk without sentences is one piece, its whole text under its header.
    """

    texts: list[str]
    sentences: int  # how many of ``texts`` (the last ones) are the sentences of sentence_spans


def chunk_pieces(header: str, text: str) -> ChunkPieces:
    sentences = [text[s.start : s.end] for s in sentence_spans(text)]
    if not sentences:
        return ChunkPieces([f"{header}\n{text}" if header else text], 0)
    return ChunkPieces(([header] if header else []) + sentences, len(sentences))


def chunk_embeddings(pieces: Sequence[ChunkPieces], vectors: Sequence[np.ndarray]) -> ChunkEmbeddings:
    """Chunk vectors and sentence matrices from the vectors of the chunks' pieces (in order, all chunks' pieces).

    A chunk's vector is the mean of its pieces' vectors weighted by their length,
    L2-normalised. That is how the encoder itself pools a text longer than its
    512-token window (a token-weighted mean of the windows' vectors), with the
    header and the sentences as the windows.
    """
    if not pieces:
        return ChunkEmbeddings(np.zeros((0, DIMENSIONS), dtype=np.float32), [])
    rows_left = iter(vectors)
    chunk_vectors, matrices = [], []
    for chunk in pieces:
        rows = np.stack([next(rows_left) for _ in chunk.texts]).astype(np.float32)
        mean = np.array([len(text) for text in chunk.texts], dtype=np.float32) @ rows
        chunk_vectors.append(mean / max(float(np.linalg.norm(mean)), 1e-12))
        matrices.append(rows[len(rows) - chunk.sentences :] if chunk.sentences else rows[:0])
    return ChunkEmbeddings(np.stack(chunk_vectors), matrices)


def embed_chunks(chunks: Sequence[tuple[str, str]], *, embedder: TextEmbedder | None = None) -> ChunkEmbeddings:
    """Vectors for chunks given as (header, text), embedding each distinct sentence once.

    ``header`` is the chunk's "title > section" line (documents.chunking.embedding_header).
    The header and each sentence of ``text`` are passages of their own (:func:`chunk_pieces`);
    the chunk's vector is made from theirs (:func:`chunk_embeddings`).
    """
    pieces = [chunk_pieces(header, text) for header, text in chunks]
    vectors = (embedder or TextEmbedder()).embed([text for chunk in pieces for text in chunk.texts])
    return chunk_embeddings(pieces, vectors)


def pack(matrix: np.ndarray) -> bytes:
    return np.asarray(matrix, dtype=np.float16).tobytes()


def unpack(data: bytes | memoryview | None, text: str) -> np.ndarray | None:
    """The stored matrix of a chunk, or None when absent or not matching its sentences (then recompute)."""
    if not data:
        return None
    matrix = np.frombuffer(bytes(data), dtype=np.float16).astype(np.float32)
    rows = len(sentence_spans(text))
    if matrix.size != rows * DIMENSIONS:
        return None
    return matrix.reshape(rows, DIMENSIONS)


def vectors_for(texts: list[str], stored: list[np.ndarray | None] | None = None) -> list[np.ndarray]:
    """Sentence matrices for ``texts``: the stored ones where given, else cached or computed (one batch)."""
    stored = stored or [None] * len(texts)
    result: list[np.ndarray | None] = list(stored)
    missing = []
    with _cache_lock:
        for i, (text, matrix) in enumerate(zip(texts, stored)):
            if matrix is not None:
                continue
            hit = _cache.get(_key(text))
            if hit is not None:
                _cache.move_to_end(_key(text))
                result[i] = hit
            else:
                missing.append(i)
    if missing:
        computed = embed_chunk_sentences([texts[i] for i in missing])
        with _cache_lock:
            for i, matrix in zip(missing, computed):
                result[i] = matrix
                _cache[_key(texts[i])] = matrix
                while len(_cache) > _CACHE_SIZE:
                    _cache.popitem(last=False)
    return [m if m is not None else np.zeros((0, DIMENSIONS), dtype=np.float32) for m in result]


def _key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
