"""Which posting lists a BM25 search must read in full, and which it may only look up (MaxScore).

A query token adds at most ``idf * (k1 + 1)`` to a chunk's BM25 score (the
term-frequency factor ``tf * (k1 + 1) / (tf + ...)`` stays below ``k1 + 1``).
Once some chunks are known to score at least ``threshold``, the tokens with the
smallest such bounds whose bounds together stay below ``threshold`` are
*optional*: a chunk holding only optional tokens cannot reach the best ``n``,
so their posting lists (the longest ones: common kanji, particles) need not be
read. They are looked up only for the chunks that the other (*essential*)
tokens find. This is the split of MaxScore (Turtle & Flood, 1995), done once
per query rather than document by document.

Pure: no database. ``documents.keyword_index.PostgresKeywordIndex`` runs the SQL.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# FTS5's bm25() constants (documents.keyword_index states the formula).
K1 = 1.2
B = 0.75

# Scores that are equal in exact arithmetic may differ in the last bits when summed
# in another order; a bound compared with a threshold leaves this much room.
_RELATIVE_SLACK = 1e-9


@dataclass(frozen=True)
class ReadingBudget:
    """How many postings a search may read, in speed terms (not ranking rules).

    The defaults were chosen on ``benchmark_retrieval --chunks 100000`` (README
    gives the figures and the parity they cost).

    - ``probe_postings``: the rarest tokens' postings read to find the threshold.
    - ``essential_postings``: the postings read whole once some tokens are
      optional (0: only the exact split).
    - ``candidates_per_hit``: candidates per wanted hit that get the optional
      tokens looked up.
    """

    probe_postings: int = 20_000
    essential_postings: int = 30_000
    candidates_per_hit: int = 8


def term_bound(idf: float) -> float:
    """The most one occurrence list of a token with this idf can add to a chunk's score."""
    return idf * (K1 + 1)


def probe_terms(df: Mapping[str, int], *, budget: int) -> list[str]:
    """The rarest tokens whose posting lists hold at most ``budget`` entries together (at least one token).

    Their best chunks, scored in full, give a threshold that the best ``n`` are
    known to reach, while reading only short posting lists.
    """
    chosen: list[str] = []
    total = 0
    for term in sorted(df, key=lambda t: (df[t], t)):
        if chosen and total + df[term] > budget:
            break
        chosen.append(term)
        total += df[term]
    return chosen


def split_by_bound(idf: Mapping[str, float], threshold: float) -> tuple[list[str], list[str]]:
    """``(essential, optional)``: optional are the lowest-bound tokens whose bounds sum below ``threshold``.

    A chunk containing only optional tokens scores below ``threshold``. A
    threshold of 0 (not known) makes every token essential. Both lists keep
    the order of ``idf``.
    """
    limit = threshold * (1 - _RELATIVE_SLACK)
    optional: set[str] = set()
    total = 0.0
    for term in sorted(idf, key=lambda t: (idf[t], t)):
        bound = term_bound(idf[term])
        if total + bound >= limit:
            break
        optional.add(term)
        total += bound
    return [t for t in idf if t not in optional], [t for t in idf if t in optional]


def split_terms(
    idf: Mapping[str, float], df: Mapping[str, int], *, threshold: float, budget: int
) -> tuple[list[str], list[str]]:
    """``(essential, optional)`` for a search: ``split_by_bound``, then, when it leaves some tokens
    optional, also the essential tokens beyond the rarest ``budget`` postings (``probe_terms``).

    The first part is exact. The second trades exactness for a bounded read: a
    chunk that holds only optional tokens is not found even if, with all of
    them, it would have reached the threshold. A ``budget`` of 0 turns it off.
    """
    essential, optional = split_by_bound(idf, threshold)
    if not optional or budget <= 0:
        return essential, optional
    kept = set(probe_terms({term: df[term] for term in essential}, budget=budget))
    return [t for t in idf if t in kept], [t for t in idf if t not in kept]


def optional_bound(idf: Mapping[str, float], optional: list[str]) -> float:
    """The most the optional tokens can add to one chunk's score (with the same slack as the split)."""
    return sum(term_bound(idf[t]) for t in optional) * (1 + _RELATIVE_SLACK)
