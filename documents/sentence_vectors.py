"""Embeddings of each sentence of a chunk, made when the chunk is first retrieved and then kept.

The re-ranking by meaning (qa.rerank) orders the top candidates by their best
sentence, the extractive provider scores sentences by meaning as well as by
words, and the answer-fit check compares the answer with the question. All need
one vector per sentence of a retrieved chunk (:func:`sentence_spans`); the
re-ranker is the first, and what it makes the others read.

They are not made at indexing: embedding every sentence as well as every chunk
sent each token through the encoder twice, and indexing ran at half the
encoder's speed, for vectors of chunks most of which no question ever
retrieves. A chunk's sentences are embedded the first time it is retrieved
(:func:`vectors_for`, one model call for all of a question's chunks), kept in
a bounded in-process cache and, through ``keep``, stored on the chunk's row
(``Chunk.sentence_vectors``: float16, one 384-dim row per sentence, in order)
so that other processes and later questions read them instead.

Making the chunk's vector from its sentence vectors instead was measured and
dropped: the length-weighted mean gave the short "title > section" header
almost no weight, and sections such as 「申請方法」 were no longer found for
「締め切りはいつ？」 (demo golden set 0.951 → 0.914).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from ragportal.text import TABLE_ROW, Sentence, split_sentences

DIMENSIONS = 384
_CACHE_SIZE = 3_000
# Distinct passages the process remembers (about 1.5 KB each, 6 MB in all): a handbook repeats its
# boilerplate from page to page, and such a chunk is embedded once; re-indexing a document, or a new
# version that keeps most of its text, embeds only what the encoder has not just seen.
_RECENT_TEXTS = 4_096
_recent: OrderedDict[str, np.ndarray] = OrderedDict()
_recent_lock = threading.Lock()
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
    return TABLE_ROW.match(text[line_start : len(text) if line_end == -1 else line_end].strip()) is not None


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


def forget_recent_texts() -> None:
    """Forget every remembered passage vector (a benchmark times the encoder, not this memory)."""
    with _recent_lock:
        _recent.clear()


class TextEmbedder:
    """Passage vectors of texts, each distinct text embedded once while it is among the last
    :data:`_RECENT_TEXTS` this process has seen (in any run, on any thread).

    One instance serves one indexing run and counts what that run sent through the encoder.
    """

    def __init__(self) -> None:
        self.embedded = 0  # texts that went through the model (the others were known)

    def embed(self, texts: Sequence[str]) -> list[np.ndarray]:
        from documents.embeddings import embed_passages  # the model loads only when something is embedded

        with _recent_lock:
            known = {t: _recent[t] for t in dict.fromkeys(texts) if t in _recent}
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        fresh = dict(zip(missing, embed_passages(missing))) if missing else {}
        self.embedded += len(missing)
        vectors = [known[t] if t in known else fresh[t] for t in texts]
        with _recent_lock:
            for text, vector in zip(texts, vectors):
                vector.flags.writeable = False  # shared with later runs
                _recent[text] = vector
                _recent.move_to_end(text)
            while len(_recent) > _RECENT_TEXTS:
                _recent.popitem(last=False)
        return vectors


def pack(matrix: np.ndarray) -> bytes:
    return np.asarray(matrix, dtype=np.float16).tobytes()


def as_stored(matrix: np.ndarray) -> np.ndarray:
    """``matrix`` rounded as :func:`pack` stores it, so that what is read back (:func:`unpack`) is equal to it."""
    return np.asarray(matrix, dtype=np.float16).astype(np.float32)


def unpack(data: bytes | memoryview | None, text: str) -> np.ndarray | None:
    """The stored matrix of a chunk, or None when absent or not matching its sentences (then recompute)."""
    if not data:
        return None
    matrix = np.frombuffer(bytes(data), dtype=np.float16).astype(np.float32)
    rows = len(sentence_spans(text))
    if matrix.size != rows * DIMENSIONS:
        return None
    return matrix.reshape(rows, DIMENSIONS)


# Receives, for the texts whose matrices were just computed, their positions in the call and the matrices.
Keeper = Callable[[list[int], list[np.ndarray]], None]


def vectors_for(
    texts: list[str], stored: list[np.ndarray | None] | None = None, *, keep: Keeper | None = None
) -> list[np.ndarray]:
    """Sentence matrices for ``texts``: the stored ones where given, else cached or computed (one batch).

    ``keep`` is handed the matrices of the texts that came without one (computed
    now or found in this process's cache), to store them where the next process
    finds them.
    """
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
        # At the precision they are stored in (float16): a chunk's sentences then score the same for the question that
        # made them as for every later one that reads them back, and an answer near a bar does not depend on which
        # came first, or on whether a busy database let the first one store them.
        computed = [as_stored(m) for m in embed_chunk_sentences([texts[i] for i in missing])]
        with _cache_lock:
            for i, matrix in zip(missing, computed):
                result[i] = matrix
                _cache[_key(texts[i])] = matrix
                while len(_cache) > _CACHE_SIZE:
                    _cache.popitem(last=False)
    out = [m if m is not None else np.zeros((0, DIMENSIONS), dtype=np.float32) for m in result]
    made = [i for i, matrix in enumerate(stored) if matrix is None]
    if keep is not None and made:
        keep(made, [out[i] for i in made])
    return out


def _key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
