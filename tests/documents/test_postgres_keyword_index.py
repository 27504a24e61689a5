"""Keyword search on PostgreSQL ranks exactly as SQLite FTS5 does, and stays exact through replacements and deletes.

Runs against a real PostgreSQL server (RAGPORTAL_TEST_POSTGRES, which `.ci/run`
and `make test` provide), each test module in a database of its own.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from django.conf import settings

from documents.bm25_pruning import ReadingBudget
from documents.keyword_index import Fts5KeywordIndex, PostgresKeywordIndex, in_memory_fts5
from documents.segmentation import tokens
from qa.evaluation.evaluate import build_corpus, read_jsonl
from tests.integration_services import postgres_database

pytestmark = pytest.mark.integration

GOLDEN = Path(settings.BASE_DIR) / "documents" / "demo_corpus" / "golden"


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    with postgres_database("kw") as url:
        yield url


@contextmanager
def fts5() -> Iterator[Fts5KeywordIndex]:
    index, db = in_memory_fts5()
    try:
        yield index
    finally:
        db.close()


@contextmanager
def postgres(url: str, schema: str, budget: ReadingBudget | None = None) -> Iterator[PostgresKeywordIndex]:
    with psycopg.connect(url, autocommit=True) as conn:
        index = PostgresKeywordIndex(conn.cursor, conn.transaction, schema=schema, budget=budget)
        index.drop_schema()
        index.create()
        try:
            yield index
        finally:
            index.drop_schema()


def golden_rows() -> list[tuple[int, int, str]]:
    corpus = build_corpus(read_jsonl(GOLDEN / "corpus.jsonl"), max_chars=400, overlap=60)
    return [(item.chunk_id, item.version_id, item.text) for item in corpus.items]


def golden_questions() -> list[str]:
    return [q["question"] for q in read_jsonl(GOLDEN / "queries.jsonl")]


# PostgreSQL reads no postings of tokens at FTS5's idf floor (documents.keyword_index.informative_terms):
# a score differs by at most (k1 + 1) * 1e-6 per such token of the question, and a chunk matched only
# through them (score below this) is not returned.
FLOOR_SLACK = 1e-4


def assert_same_ranking(a, b, questions: list[str], **search) -> None:
    """``b`` (PostgreSQL) returns ``a``'s (FTS5's) chunks in its order, scores equal but for the floor tokens."""
    compared = 0
    for question in questions:
        left, right = a.search(question, n=20, **search), b.search(question, n=20, **search)
        left = [h for h in left if h.bm25 > FLOOR_SLACK]
        assert [h.chunk_id for h in left] == [h.chunk_id for h in right[: len(left)]], question
        assert [h.bm25 for h in left] == pytest.approx([h.bm25 for h in right[: len(left)]], abs=FLOOR_SLACK), question
        compared += len(left)
    assert compared >= 5 * len(questions)  # the comparison is about real rankings, not empty lists


def assert_statistics_match_rows(index: PostgresKeywordIndex, url: str, schema: str) -> None:
    """The stored document frequencies and totals are what the rows say."""
    term, totals = (sql.Identifier(schema, f"documents_keyword_{name}") for name in ("term", "total"))
    with psycopg.connect(url) as conn:
        df = dict(conn.execute(sql.SQL("SELECT term, df FROM {} WHERE df <> 0").format(term)).fetchall())
        rows, total = conn.execute(sql.SQL("SELECT rows, tokens FROM {}").format(totals)).fetchone()
    bodies = [body.split() for _, _, body in index.entries()]
    assert df == dict(Counter(t for body in bodies for t in set(body)))
    assert (rows, total) == (len(bodies), sum(len(b) for b in bodies))


def test_every_golden_question_ranks_the_same_chunks_with_the_same_scores(pg_url):
    rows, questions = golden_rows(), golden_questions()
    with fts5() as lite, postgres(pg_url, "kw_parity") as pg:
        lite.add(rows)
        pg.add(rows)
        assert_same_ranking(lite, pg, questions)
        # Restricted to some versions (what a user may see), and to none.
        visible = sorted({version for _, version, _ in rows})[::2]
        assert_same_ranking(lite, pg, questions[:40], version_ids=visible)
        assert pg.search(questions[0], n=5, version_ids=[]) == []
        assert pg.search("？！", n=5) == []
        # The stored bodies, the rows and the token lookups agree too.
        ids = [chunk_id for chunk_id, _, _ in rows[:5]] + [10**9]
        assert pg.bodies(ids) == lite.bodies(ids)
        assert sorted(pg.entries()) == sorted(lite.entries())
        for token in ("精算", "有給", "zz"):
            assert pg.has_token(token) == lite.has_token(token)
            assert pg.has_token(token, version_ids=visible) == lite.has_token(token, version_ids=visible)


def test_tokens_in_most_chunks_are_not_read_unless_nothing_rarer_is_asked(pg_url):
    """Issue 21: the longest posting lists (tokens at the idf floor) are skipped while a rarer token is asked."""
    rows = [(i, i, f"社内規程 第{i}号") for i in range(1, 9)] + [(9, 9, "経費 精算は翌月末まで")]
    with fts5() as lite, postgres(pg_url, "kw_floor") as pg:
        lite.add(rows)
        pg.add(rows)
        # 「社内」 is in eight of nine chunks: FTS5 returns all nine, eight of them by the floor alone.
        assert len(lite.search("社内 経費", n=20)) == 9
        assert [h.chunk_id for h in pg.search("社内 経費", n=20)] == [9]
        # Asked alone, floor tokens still find what FTS5 finds.
        assert sorted(h.chunk_id for h in pg.search("社内", n=20)) == sorted(
            h.chunk_id for h in lite.search("社内", n=20)
        )


# Budgets small enough that the demo's golden corpus takes the pruned path: the threshold from
# the rarest lists, and only the exact split (no token moved for the reading budget).
PRUNING = ReadingBudget(probe_postings=40, essential_postings=0, candidates_per_hit=8)


def test_skipping_the_common_tokens_lists_keeps_fts5s_ranking(pg_url):
    """The pruned search returns what FTS5 returns, for every golden question, with and without an ACL filter."""
    rows, questions = golden_rows(), golden_questions()
    with fts5() as lite, postgres(pg_url, "kw_pruned", PRUNING) as pg:
        lite.add(rows)
        pg.add(rows)
        assert_same_ranking(lite, pg, questions)
        visible = sorted({version for _, version, _ in rows})[::2]
        assert_same_ranking(lite, pg, questions[:40], version_ids=visible)


def posting_entries_read(url: str, schema: str) -> int:
    """Posting rows read so far, by table scans and through its indexes (PostgreSQL's own statistics)."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT t.seq_tup_read + (SELECT coalesce(sum(i.idx_tup_read), 0) FROM pg_stat_user_indexes i "
            "WHERE i.relid = t.relid) FROM pg_stat_user_tables t "
            "WHERE t.schemaname = %s AND t.relname = 'documents_keyword_posting'",
            [schema],
        ).fetchone()
        return int(row[0])


def test_a_question_with_common_words_reads_a_fraction_of_their_postings(pg_url):
    """Issue 21: the long posting lists of common tokens are looked up for candidates, not read whole."""
    rows = [(i, i, f"第{i}条 申請の手続きは所属長が承認する") for i in range(1, 901)]  # 申請 in 900 of 2,000 chunks
    rows += [(i, i, f"第{i}条 社内の規程による") for i in range(901, 1991)]
    rows += [(i, i, f"経費精算の期限は翌月末 第{i}条") for i in range(1991, 2001)]
    question = "経費精算の申請の期限は？"
    with fts5() as lite, postgres(pg_url, "kw_reads"), psycopg.connect(pg_url, autocommit=True) as conn:
        lite.add(rows)
        pg = PostgresKeywordIndex(
            conn.cursor, conn.transaction, schema="kw_reads", budget=ReadingBudget(probe_postings=100)
        )
        pg.add(rows)
        pg.vacuum()
        # A table this small is cheaper to scan whole; at real size the plans go through the indexes.
        conn.execute("SET enable_seqscan = off")
        common = conn.execute(
            "SELECT sum(df) FROM kw_reads.documents_keyword_term WHERE term IN ('申', '申請', '請')"
        ).fetchone()[0]
        conn.execute("SELECT pg_stat_force_next_flush()")  # this session's counters so far
        before = posting_entries_read(pg_url, "kw_reads")
        hits = pg.search(question, n=5)
        conn.execute("SELECT pg_stat_force_next_flush()")  # the search's counters
        read = posting_entries_read(pg_url, "kw_reads") - before
        expected = lite.search(question, n=5)
        assert [h.chunk_id for h in hits] == [h.chunk_id for h in expected]
        assert [h.bm25 for h in hits] == pytest.approx([h.bm25 for h in expected], abs=FLOOR_SLACK)
        assert common == 3 * 900
        assert 0 < read < common / 2, read


def test_replacing_and_deleting_keeps_the_ranking_and_the_statistics_exact(pg_url):
    rows, questions = golden_rows(), golden_questions()[::4]
    with fts5() as lite, postgres(pg_url, "kw_churn") as pg:
        for index in (lite, pg):
            index.add(rows)
            # A re-indexed chunk replaces its old text; a replaced version and a few chunks go.
            index.add([(chunk_id, version, text + " 経費精算の期限は翌月末") for chunk_id, version, text in rows[:30]])
            index.delete_versions([rows[40][1], rows[80][1]])
            index.delete_chunks([rows[100][0], rows[101][0], 10**9])
        assert_same_ranking(lite, pg, questions)
        assert_statistics_match_rows(pg, pg_url, "kw_churn")
        pg.delete_versions(sorted({version for _, version, _ in rows}))
        assert list(pg.entries()) == []
        assert pg.search("経費精算の期限", n=5) == []
        assert_statistics_match_rows(pg, pg_url, "kw_churn")


def test_two_workers_writing_at_once_neither_deadlock_nor_miscount(pg_url):
    rows = golden_rows()
    halves = [rows[0::2], rows[1::2]]
    errors: list[BaseException] = []

    def worker(part: list[tuple[int, int, str]]) -> None:
        try:
            with psycopg.connect(pg_url, autocommit=True) as conn:
                index = PostgresKeywordIndex(conn.cursor, conn.transaction, schema="kw_race")
                for i in range(0, len(part), 8):
                    index.add(part[i : i + 8])
                    index.add(part[i : i + 2])  # re-index some: deletes and inserts interleave
                index.delete_chunks([chunk_id for chunk_id, _, _ in part[::10]])
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            errors.append(exc)

    with postgres(pg_url, "kw_race") as pg:
        threads = [threading.Thread(target=worker, args=(half,)) for half in halves]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert not errors, errors
        gone = {chunk_id for half in halves for chunk_id, _, _ in half[::10]}
        assert {chunk_id for chunk_id, _, _ in pg.entries()} == {chunk_id for chunk_id, _, _ in rows} - gone
        assert_statistics_match_rows(pg, pg_url, "kw_race")
        expected = {chunk_id: tokens(text) for chunk_id, _, text in rows if chunk_id not in gone}
        assert {cid: body.split() for cid, _, body in pg.entries()} == expected
