"""Re-ranking the fused candidates: by their best sentence's meaning, then siblings by rare words.

**By meaning** (:func:`sentence_keys`, :func:`reorder`). A chunk's vector
averages all its sentences, so a question in everyday words lands near
passages that share its topic's vocabulary, not necessarily near the one
sentence that answers it; in the gitlab handbook the passage holding the answer
was often 5th-18th among the fused candidates, below passages that share a
mapped word but not the topic. The top candidates are re-ordered by the mean of
two scores, each min-max normalised over those candidates: the fused score and
the highest cosine similarity between the question and one of the chunk's
sentences. Equal weights, and min-max over the candidates themselves, so no
scale is fitted to a corpus: each score says where a candidate stands among the
others by one criterion, and neither criterion is trusted over the other.
Measured in the README, "How retrieval was chosen".

**Siblings by rare words** (:func:`rerank`).

Most hybrid misses on JSQuAD are paragraphs of the same article crowding the
gold one out of the top 5: every sibling shares the article's vocabulary, so
BM25 (whose IDF is computed over the whole corpus) and the dense model both
rank them alike. The re-ranker looks only at the top candidates and asks which
of them holds the question's words that are *rare among the candidates*:

- ``coverage``: share of the query's distinct tokens present in the chunk,
  each weighted by its IDF among the candidates (a term every sibling has
  weighs almost nothing);
- ``local_bm25``: BM25 with that candidate-set IDF (term frequency and
  length normalised as usual);
- ``phrases``: share of the query's character trigrams present in the chunk
  (questions copy short phrases from the passage they were written from).

Each feature is min-max normalised over the candidates and added, times
``weight``, to the fused score, and the result only re-orders *siblings*
(chunks of one document) among the places the fusion (and the re-ranking by
meaning before it, whose key then stands for the fused score) gave them: which
document ranks where stays their decision. Letting the features move
documents past each other helped JSQuAD but cost the paraphrased golden
questions (they share few words with their passage); re-ordering siblings
only helps JSQuAD more and leaves document ranks untouched. Tokens are the
keyword index's own (its stored segmented bodies), so nothing is fetched
from the ORM. Measured in the README, "How retrieval was chosen".

**The asked quantity first** (:func:`stating_first`). A question asking for a
quantity (何日, いくら, 何時間) is answered only by a passage stating one in that
unit; a passage about the topic that states none cannot answer it, however close
its words and meaning. Among the top candidates, those stating an asked unit come
first, each group in the order it had: an answer-type filter as question
answering systems have used since the TREC QA track, soft (nothing is dropped)
and with no weight to fit. Types without a unit (a contact, a procedure) are
too loosely recognised to order by and are left out.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from qa.fusion import Candidate, min_max
from verification.answer_types import carries_units

K1 = 1.2
B = 0.75


def _trigrams(tokens: Sequence[str]) -> set[str]:
    """Character trigrams from consecutive overlapping bigram tokens ("ab", "bc" → "abc")."""
    bigrams = [t for t in tokens if len(t) == 2]
    return {a + b[1] for a, b in zip(bigrams, bigrams[1:]) if a[1] == b[0]}


def features(query_tokens: Sequence[str], bodies: Sequence[Sequence[str]]) -> list[tuple[float, float, float]]:
    """(coverage, local_bm25, phrases) for each body, in order."""
    terms = list(dict.fromkeys(query_tokens))
    counts = [Counter(body) for body in bodies]
    size = len(bodies)
    idf: dict[str, float] = {}
    for term in terms:
        n = sum(1 for c in counts if term in c)
        if n:
            idf[term] = math.log(1 + (size - n + 0.5) / (n + 0.5))
    total = sum(idf.values()) or 1.0
    lengths = [len(body) for body in bodies]
    average = (sum(lengths) / size) if size else 1.0
    query_trigrams = _trigrams(query_tokens)
    out = []
    for body, c, length in zip(bodies, counts, lengths, strict=True):
        coverage = sum(w for t, w in idf.items() if t in c) / total
        norm = K1 * (1 - B + B * length / (average or 1.0))
        bm25 = sum(w * c[t] * (K1 + 1) / (c[t] + norm) for t, w in idf.items() if t in c)
        phrases = len(query_trigrams & _trigrams(body)) / len(query_trigrams) if query_trigrams else 0.0
        out.append((coverage, bm25, phrases))
    return out


def rerank(
    candidates: list[Candidate],
    query_tokens: Sequence[str],
    bodies: Mapping[int, Sequence[str]],
    groups: Mapping[int, Hashable],
    *,
    depth: int = 20,
    weight: float = 0.1,
    base: Mapping[int, float] | None = None,
) -> list[Candidate]:
    """Re-order siblings among the places they hold in the top ``depth``; the rest is left as it is.

    Siblings are candidates of the same group (``groups``: chunk id → document).
    Which document comes where is the fusion's decision and is kept; the
    re-ranker only decides which of a document's chunks takes each of its
    places, by fused score + ``weight`` × (sum of the normalised features).
    Scores are not changed. A candidate without a group is its own group; one
    without a body (not in the keyword index) gets zero features. ``weight`` 0
    or ``depth`` < 2 returns the list unchanged. ``base`` (chunk id → key, as
    :func:`sentence_keys` gives) replaces the fused score where it has the chunk.
    """
    if weight <= 0 or depth < 2 or len(candidates) < 2:
        return candidates
    head, tail = candidates[:depth], candidates[depth:]
    feats = features(query_tokens, [bodies.get(c.chunk_id, ()) for c in head])
    ids = [c.chunk_id for c in head]
    norms = [min_max(list(zip(ids, column, strict=True))) for column in zip(*feats, strict=True)]
    base = base or {}
    adjusted = {
        c.chunk_id: base.get(c.chunk_id, c.score) + weight * sum(norm[c.chunk_id] for norm in norms) for c in head
    }
    places: dict[Hashable, list[int]] = {}
    for i, c in enumerate(head):
        places.setdefault(groups.get(c.chunk_id, ("chunk", c.chunk_id)), []).append(i)
    out = list(head)
    for slots in places.values():
        siblings = sorted((head[i] for i in slots), key=lambda c: (-adjusted[c.chunk_id], c.chunk_id))
        for i, c in zip(slots, siblings, strict=True):
            out[i] = c
    return out + tail


def stating_first(
    candidates: list[Candidate], texts: Mapping[int, str], units: Sequence[frozenset[str]], *, depth: int
) -> list[Candidate]:
    """The top ``depth`` candidates that state a quantity in one of ``units`` first, then the others of the top.

    ``texts``: chunk id → its text (a candidate without one states nothing). Each
    group keeps its order and the rest of the list is left as it is; so is the
    whole list when nothing is asked, or when none or all of the top state it.
    """
    if not units or depth < 2:
        return candidates
    head, tail = candidates[:depth], candidates[depth:]
    states = [any(carries_units(asked, texts.get(c.chunk_id, "")) for asked in units) for c in head]
    if all(states) or not any(states):
        return candidates
    stating = [c for c, s in zip(head, states, strict=True) if s]
    return stating + [c for c, s in zip(head, states, strict=True) if not s] + tail


def titled_first(
    candidates: list[Candidate], headings: Mapping[int, str], places: Sequence[str], *, depth: int
) -> list[Candidate]:
    """The top ``depth`` candidates whose title or section names a place the question names first, with the best scores.

    A handbook writes a rule per country or site under its name (「GitLab GK (日本) 福利厚生」, 「岐阜工場」):
    「日本で育休を取ったら…」 is about that document, not the same rule of another country's. ``headings``:
    chunk id → its document title and section path. Those are moved up, each group in its order, and the top's
    scores are handed out again in the new order (the answer step reads a chunk's score as how sure retrieval is
    of it); nothing changes when no place is named, or when none or all of the top name it.
    """
    if not places or depth < 2:
        return candidates
    head, tail = candidates[:depth], candidates[depth:]
    named = [any(place in headings.get(c.chunk_id, "") for place in places) for c in head]
    if all(named) or not any(named):
        return candidates
    ordered = [c for c, n in zip(head, named, strict=True) if n] + [
        c for c, n in zip(head, named, strict=True) if not n
    ]
    # The top's scores, best first, go to the new order: the gaps between places (which the clarify gap reads)
    # stay as retrieval measured them, and no two candidates are made to tie.
    scores = sorted((c.score for c in head), reverse=True)
    return [replace(c, score=score) for c, score in zip(ordered, scores, strict=True)] + tail


def best_sentence_similarity(matrix: np.ndarray, query_vector: np.ndarray) -> float:
    """The highest cosine similarity between ``query_vector`` and a row of ``matrix`` (0.0 without rows)."""
    return float((matrix @ query_vector).max()) if len(matrix) else 0.0


def sentence_keys(
    candidates: Sequence[Candidate], matrices: Mapping[int, np.ndarray], query_vector: np.ndarray, *, depth: int
) -> dict[int, float]:
    """Per chunk of the top ``depth``: the mean of its min-max normalised fused score and best-sentence similarity.

    ``matrices``: chunk id → its sentence vectors (a row per sentence, L2-normalised);
    a chunk without one counts as the least similar. Empty when ``depth`` < 2.
    """
    head = list(candidates[:depth]) if depth >= 2 else []
    if len(head) < 2:
        return {}
    ids = [c.chunk_id for c in head]
    meaning = [best_sentence_similarity(matrices[i], query_vector) if i in matrices else None for i in ids]
    floor = min((m for m in meaning if m is not None), default=0.0)
    fused = min_max([(c.chunk_id, c.score) for c in head])
    sentences = min_max([(i, floor if m is None else m) for i, m in zip(ids, meaning, strict=True)])
    return {i: (fused[i] + sentences[i]) / 2 for i in ids}


def reorder(candidates: list[Candidate], keys: Mapping[int, float]) -> list[Candidate]:
    """The candidates with those in ``keys`` sorted by it, best first, ahead of the rest (kept in order).

    ``keys`` covers a prefix of ``candidates`` (:func:`sentence_keys`); scores are not changed.
    """
    head = sorted((c for c in candidates if c.chunk_id in keys), key=lambda c: (-keys[c.chunk_id], c.chunk_id))
    return head + [c for c in candidates if c.chunk_id not in keys]
