"""Which posting lists a keyword search may skip: the split keeps every chunk that can reach the threshold."""

from __future__ import annotations

import itertools

from documents.bm25_pruning import optional_bound, probe_terms, split_by_bound, split_terms, term_bound

# A question's tokens: two rare ones, two middling, three in many chunks (idf as FTS5 computes it).
IDF = {"経費": 5.0, "精算": 4.0, "期限": 2.0, "翌月": 1.5, "の": 0.2, "は": 0.3, "申": 0.5}
DF = {"経費": 12, "精算": 30, "期限": 200, "翌月": 400, "の": 9000, "は": 8000, "申": 5000}


def best_possible(terms: tuple[str, ...]) -> float:
    """The most a chunk holding exactly ``terms`` can score (each at its bound)."""
    return sum(term_bound(IDF[t]) for t in terms)


def test_a_chunk_with_only_skipped_tokens_cannot_reach_the_threshold():
    threshold = 4.0
    essential, optional = split_by_bound(IDF, threshold)
    assert set(optional) == {"の", "は", "申"}  # the common tokens: their long lists are not read
    assert essential == ["経費", "精算", "期限", "翌月"]
    # Whatever subset of the skipped tokens a chunk holds, it scores below the threshold ...
    for size in range(1, len(optional) + 1):
        for subset in itertools.combinations(optional, size):
            assert best_possible(subset) < threshold
    # ... and skipping one more token would lose a chunk that could reach it.
    assert best_possible((*optional, "翌月")) >= threshold
    assert optional_bound(IDF, optional) >= best_possible(tuple(optional))


def test_without_a_known_threshold_every_token_is_read():
    assert split_by_bound(IDF, 0.0) == (list(IDF), [])
    assert split_terms(IDF, DF, threshold=0.0, budget=100) == (list(IDF), [])


def test_the_threshold_probe_reads_the_rarest_lists_within_its_budget():
    assert probe_terms(DF, budget=50) == ["経費", "精算"]
    # A budget smaller than the rarest list still reads that one list: a threshold needs some chunks.
    assert probe_terms(DF, budget=1) == ["経費"]
    assert probe_terms(DF, budget=10**9) == sorted(DF, key=DF.get)


def test_the_reading_budget_moves_only_the_commonest_of_the_rest():
    exact = split_by_bound(IDF, 4.0)
    assert split_terms(IDF, DF, threshold=4.0, budget=0) == exact
    essential, optional = split_terms(IDF, DF, threshold=4.0, budget=250)
    assert essential == ["経費", "精算", "期限"]  # 12 + 30 + 200 postings fit; 翌月's 400 more do not
    assert optional == ["翌月", "の", "は", "申"]
