"""The keyword index: BM25 over segmented chunk text, on SQLite FTS5 or on PostgreSQL.

Both back-ends index the same character unigram+bigram tokens
(``documents.segmentation``) and rank with the same BM25 as FTS5's ``bm25()``
(k1 = 1.2, b = 0.75, idf = ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6, N
and the average length over the whole table), so a question finds the same
chunks on either database. Rows are keyed by chunk id and carry the version id,
so retrieval can restrict a search to live versions the user may see.

- ``Fts5KeywordIndex``: an FTS5 virtual table, in the portal's SQLite database
  (created by a migration) or a throw-away in-memory one for evaluation.
- ``PostgresKeywordIndex``: a posting table (token → chunk, count) under a
  B-tree, and stored statistics (each token's document frequency, the row count
  and the total length) kept in step with the rows in the same transaction.
  Measured on JSQuAD (4,000 chunks): a ``tsvector`` per chunk with a GIN index
  ranked identically but took 37 ms per search, because most chunks hold one of
  a question's common kanji and each matching row's vector had to be read.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from documents.bm25_pruning import B, K1, ReadingBudget, optional_bound, probe_terms, split_terms
from documents.segmentation import match_expression, query_terms, segment, tokens

TABLE = "documents_chunk_fts"
CREATE_SQL = f"CREATE VIRTUAL TABLE IF NOT EXISTS {TABLE} USING fts5(body, version_id UNINDEXED, tokenize='ascii')"
DROP_SQL = f"DROP TABLE IF EXISTS {TABLE}"

MIN_IDF = 1e-6

# One posting's share of a chunk's BM25 score, with the constants _scoring binds.
_SCORE = "q.idf * p.tf * %(k1p1)s::float8 / (p.tf + %(c0)s::float8 + %(c1)s::float8 * p.length)"


@dataclass(frozen=True)
class KeywordHit:
    chunk_id: int
    bm25: float  # higher is better (FTS5's bm25() negated)
    version_id: int | None = None


class KeywordIndex(Protocol):
    """What indexing, retrieval and ``check_index`` need from a keyword index."""

    def create(self) -> None: ...

    def add(self, rows: Iterable[tuple[int, int, str]]) -> None:
        """Index ``(chunk_id, version_id, text)`` rows (replacing rows with the same chunk id)."""

    def delete_versions(self, version_ids: Sequence[int]) -> None: ...

    def delete_chunks(self, chunk_ids: Sequence[int]) -> None:
        """Remove the rows of these chunks (``check_index --repair`` of extra rows)."""

    def entries(self) -> Iterator[tuple[int, int | None, str]]:
        """Every row as ``(chunk_id, version_id, body)``, for consistency checks."""

    def bodies(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        """The stored (segmented, space-separated) bodies of these chunks; absent ids are left out."""

    def search(self, query: str, *, n: int, version_ids: Sequence[int] | None = None) -> list[KeywordHit]:
        """Best ``n`` chunks for ``query``; ``version_ids`` restricts to those versions (None: all)."""

    def has_token(self, token: str, *, version_ids: Sequence[int] | None = None) -> bool:
        """Whether any chunk (of ``version_ids``; None: all) contains the segmentation token ``token``."""


def _marks(placeholder: str, values: Sequence[object]) -> str:
    return ", ".join([placeholder] * len(values))


def _entries(cursor_factory: Any, sql: str) -> Iterator[tuple[int, int | None, str]]:
    """``(chunk_id, version_id, body)`` rows of ``sql``, typed."""
    with cursor_factory() as cur:
        cur.execute(sql)
        for chunk_id, version_id, body in cur.fetchall():
            yield int(chunk_id), (int(version_id) if version_id is not None else None), body


class Fts5KeywordIndex:
    """BM25 search over one FTS5 table.

    ``cursor_factory`` returns a DB-API cursor; ``placeholder`` is the
    connection's parameter marker ("?" for sqlite3, "%s" for Django).
    """

    def __init__(self, cursor_factory: Any, *, placeholder: str = "%s") -> None:
        self._cursor = cursor_factory
        self._p = placeholder

    def create(self) -> None:
        with self._cursor() as cur:
            cur.execute(CREATE_SQL)

    def add(self, rows: Iterable[tuple[int, int, str]]) -> None:
        p = self._p
        data = [(chunk_id, segment(text), version_id) for chunk_id, version_id, text in rows]
        with self._cursor() as cur:
            # One statement per row: a reader never sees a re-indexed chunk missing.
            cur.executemany(f"INSERT OR REPLACE INTO {TABLE}(rowid, body, version_id) VALUES ({p}, {p}, {p})", data)

    def delete_versions(self, version_ids: Sequence[int]) -> None:
        if not version_ids:
            return
        with self._cursor() as cur:
            cur.execute(f"DELETE FROM {TABLE} WHERE version_id IN ({_marks(self._p, version_ids)})", list(version_ids))

    def delete_chunks(self, chunk_ids: Sequence[int]) -> None:
        if not chunk_ids:
            return
        with self._cursor() as cur:
            cur.execute(
                f"DELETE FROM {TABLE} WHERE rowid IN ({_marks(self._p, chunk_ids)})", [int(i) for i in chunk_ids]
            )

    def entries(self) -> Iterator[tuple[int, int | None, str]]:
        yield from _entries(self._cursor, f"SELECT rowid, version_id, body FROM {TABLE}")

    def bodies(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        if not chunk_ids:
            return {}
        with self._cursor() as cur:
            cur.execute(
                f"SELECT rowid, body FROM {TABLE} WHERE rowid IN ({_marks(self._p, chunk_ids)})",
                [int(i) for i in chunk_ids],
            )
            return {int(row[0]): row[1] for row in cur.fetchall()}

    def search(self, query: str, *, n: int, version_ids: Sequence[int] | None = None) -> list[KeywordHit]:
        expression = match_expression(query)
        if not expression or n <= 0 or (version_ids is not None and not version_ids):
            return []
        sql = f"SELECT rowid, bm25({TABLE}), version_id FROM {TABLE} WHERE {TABLE} MATCH {self._p}"
        params: list[Any] = [expression]
        if version_ids is not None:
            sql += f" AND version_id IN ({_marks(self._p, version_ids)})"
            params.extend(version_ids)
        sql += f" ORDER BY bm25({TABLE}) LIMIT {int(n)}"
        with self._cursor() as cur:
            cur.execute(sql, params)
            return [
                KeywordHit(chunk_id=int(r[0]), bm25=-float(r[1]), version_id=int(r[2]) if r[2] is not None else None)
                for r in cur.fetchall()
            ]

    def has_token(self, token: str, *, version_ids: Sequence[int] | None = None) -> bool:
        if not token or (version_ids is not None and not version_ids):
            return False
        sql = f"SELECT 1 FROM {TABLE} WHERE {TABLE} MATCH {self._p}"
        params: list[Any] = ['"' + token.replace('"', '""') + '"']
        if version_ids is not None:
            sql += f" AND version_id IN ({_marks(self._p, version_ids)})"
            params.extend(version_ids)
        with self._cursor() as cur:
            cur.execute(sql + " LIMIT 1", params)
            return cur.fetchone() is not None


def in_memory_fts5() -> tuple[Fts5KeywordIndex, sqlite3.Connection]:
    """A throw-away FTS5 index in its own in-memory SQLite database (evaluation, tests); close the connection after."""
    db = sqlite3.connect(":memory:", check_same_thread=False)

    @contextmanager
    def cursor() -> Iterator[sqlite3.Cursor]:
        cur = db.cursor()
        try:
            yield cur
        finally:
            db.commit()
            cur.close()

    index = Fts5KeywordIndex(cursor, placeholder="?")
    index.create()
    return index, db


# --- PostgreSQL ---------------------------------------------------------------

# Writers take this transaction-level advisory lock, so the statistics change in
# one order and concurrent indexing workers never deadlock on the term rows.
_WRITE_LOCK = 0x7261675F6B77  # "rag_kw"


def postgres_schema_sql(schema: str = "") -> list[str]:
    """The statements that create the PostgreSQL keyword tables (in ``schema``, or the search path).

    - ``chunk``: one row per chunk (segmented body, token count, version).
    - ``posting``: one row per (token, chunk) with the token's count in the chunk,
      the chunk's length and version copied in, under a B-tree led by the token:
      a search reads only its tokens' entries, as FTS5 reads its posting lists.
    - ``term`` and ``total``: each token's document frequency, and the row count
      and total length, kept in step in the writing transaction (BM25's statistics).
    """
    t = _PgTables(schema)
    return [
        f"CREATE TABLE IF NOT EXISTS {t.chunk} (chunk_id bigint PRIMARY KEY, version_id bigint, "
        "body text NOT NULL, length integer NOT NULL)",
        f"CREATE INDEX IF NOT EXISTS {t.name('chunk_version')} ON {t.chunk} (version_id)",
        f"CREATE TABLE IF NOT EXISTS {t.posting} (term text NOT NULL, chunk_id bigint NOT NULL, "
        "tf integer NOT NULL, length integer NOT NULL, version_id bigint, "
        "PRIMARY KEY (term, chunk_id) INCLUDE (tf, length, version_id))",
        f"CREATE INDEX IF NOT EXISTS {t.name('posting_chunk')} ON {t.posting} (chunk_id)",
        f"CREATE TABLE IF NOT EXISTS {t.term} (term text PRIMARY KEY, df integer NOT NULL)",
        f"CREATE TABLE IF NOT EXISTS {t.total} (id smallint PRIMARY KEY CHECK (id = 1), "
        "rows bigint NOT NULL, tokens bigint NOT NULL)",
        f"INSERT INTO {t.total} (id, rows, tokens) VALUES (1, 0, 0) ON CONFLICT (id) DO NOTHING",
    ]


def postgres_drop_sql(schema: str = "") -> list[str]:
    t = _PgTables(schema)
    return [f"DROP TABLE IF EXISTS {t.chunk}, {t.posting}, {t.term}, {t.total}"]


@dataclass(frozen=True)
class _PgTables:
    schema: str = ""

    def name(self, base: str) -> str:
        return f"documents_keyword_{base}"

    def qualified(self, base: str) -> str:
        return f'"{self.schema}".{self.name(base)}' if self.schema else self.name(base)

    @property
    def chunk(self) -> str:
        return self.qualified("chunk")

    @property
    def posting(self) -> str:
        return self.qualified("posting")

    @property
    def term(self) -> str:
        return self.qualified("term")

    @property
    def total(self) -> str:
        return self.qualified("total")


class PostgresKeywordIndex:
    """BM25 search on PostgreSQL: a posting table led by the token, and stored term statistics.

    ``cursor_factory`` returns a cursor usable as a context manager (Django's or
    psycopg's); ``atomic`` opens a transaction on the same connection
    (``django.db.transaction.atomic`` or a psycopg connection's ``transaction``).
    ``schema`` puts the tables in a schema of their own (evaluation runs);
    ``budget`` bounds the postings a search reads (``documents.bm25_pruning``).
    """

    def __init__(
        self,
        cursor_factory: Any,
        atomic: Callable[[], AbstractContextManager[Any]],
        *,
        schema: str = "",
        budget: ReadingBudget | None = None,
    ) -> None:
        self._budget = budget or ReadingBudget()
        self._cursor = cursor_factory
        self._atomic = atomic
        self._schema = schema
        self._t = _PgTables(schema)

    def create(self) -> None:
        with self._atomic(), self._cursor() as cur:
            if self._schema:
                cur.execute(f'CREATE SCHEMA IF NOT EXISTS "{self._schema}"')
            for statement in postgres_schema_sql(self._schema):
                cur.execute(statement)

    def drop_schema(self) -> None:
        """Drop the index's own schema and everything in it (evaluation runs)."""
        if not self._schema:
            raise ValueError("only an index in a schema of its own can be dropped whole")
        with self._cursor() as cur:
            cur.execute(f'DROP SCHEMA IF EXISTS "{self._schema}" CASCADE')

    def vacuum(self) -> None:
        """VACUUM ANALYZE the tables (outside a transaction), as autovacuum does after a bulk fill."""
        with self._cursor() as cur:
            for table in (self._t.chunk, self._t.posting, self._t.term):
                cur.execute(f"VACUUM ANALYZE {table}")

    def add(self, rows: Iterable[tuple[int, int, str]]) -> None:
        chunks: dict[int, tuple[int, list[str]]] = {}
        for chunk_id, version_id, text in rows:
            chunks[int(chunk_id)] = (int(version_id), tokens(text))  # a repeated id: the last text wins, as in FTS5
        if not chunks:
            return
        ids = list(chunks)
        postings: list[tuple[str, int, int, int, int]] = []
        df: Counter[str] = Counter()
        for chunk_id, (version_id, found) in chunks.items():
            counts = Counter(found)
            df.update(counts.keys())
            postings += [(term, chunk_id, tf, len(found), version_id) for term, tf in counts.items()]
        t = self._t
        # One transaction: a reader sees the old rows or the new ones, never a chunk missing.
        with self._atomic(), self._cursor() as cur:
            self._lock(cur)
            self._remove(cur, "chunk_id = ANY(%s)", [ids])
            cur.execute(
                f"INSERT INTO {t.chunk} (chunk_id, version_id, body, length) "
                "SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::text[], %s::integer[])",
                [ids, [v for v, _ in chunks.values()], [" ".join(f) for _, f in chunks.values()],
                 [len(f) for _, f in chunks.values()]],
            )  # fmt: skip
            cur.execute(
                f"INSERT INTO {t.posting} (term, chunk_id, tf, length, version_id) "
                "SELECT * FROM unnest(%s::text[], %s::bigint[], %s::integer[], %s::integer[], %s::bigint[])",
                [list(column) for column in zip(*postings)] if postings else [[], [], [], [], []],
            )
            terms = sorted(df)
            cur.execute(
                f"INSERT INTO {t.term} (term, df) SELECT * FROM unnest(%s::text[], %s::integer[]) "
                f"ON CONFLICT (term) DO UPDATE SET df = {t.term}.df + EXCLUDED.df",
                [terms, [df[term] for term in terms]],
            )
            cur.execute(
                f"UPDATE {t.total} SET rows = rows + %s, tokens = tokens + %s WHERE id = 1",
                [len(ids), sum(len(f) for _, f in chunks.values())],
            )

    def delete_versions(self, version_ids: Sequence[int]) -> None:
        self._delete("version_id = ANY(%s)", version_ids)

    def delete_chunks(self, chunk_ids: Sequence[int]) -> None:
        self._delete("chunk_id = ANY(%s)", chunk_ids)

    def _delete(self, condition: str, values: Sequence[int]) -> None:
        if not values:
            return
        with self._atomic(), self._cursor() as cur:
            self._lock(cur)
            self._remove(cur, condition, [[int(v) for v in values]])

    def _lock(self, cur: Any) -> None:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", [_WRITE_LOCK])

    def _remove(self, cur: Any, condition: str, params: list[Any]) -> None:
        """Delete the chunks matching ``condition``, their postings and their share of the statistics."""
        t = self._t
        cur.execute(
            f"WITH gone AS (DELETE FROM {t.chunk} WHERE {condition} RETURNING chunk_id, length), "
            f"gone_postings AS (DELETE FROM {t.posting} p USING gone WHERE p.chunk_id = gone.chunk_id "
            "RETURNING p.term), "
            "counts AS (SELECT term, count(*) AS n FROM gone_postings GROUP BY term), "
            f"lowered AS (UPDATE {t.term} SET df = {t.term}.df - counts.n FROM counts WHERE {t.term}.term = counts.term) "
            f"UPDATE {t.total} SET rows = rows - (SELECT count(*) FROM gone), "
            "tokens = tokens - (SELECT coalesce(sum(length), 0) FROM gone) WHERE id = 1",
            params,
        )

    def entries(self) -> Iterator[tuple[int, int | None, str]]:
        yield from _entries(self._cursor, f"SELECT chunk_id, version_id, body FROM {self._t.chunk}")

    def bodies(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        if not chunk_ids:
            return {}
        with self._cursor() as cur:
            cur.execute(
                f"SELECT chunk_id, body FROM {self._t.chunk} WHERE chunk_id = ANY(%s)", [[int(i) for i in chunk_ids]]
            )
            return {int(row[0]): row[1] for row in cur.fetchall()}

    def search(self, query: str, *, n: int, version_ids: Sequence[int] | None = None) -> list[KeywordHit]:
        """FTS5's BM25 ranking, reading the common tokens' long posting lists only when they can matter.

        Three statements: the statistics; a threshold (the ``n``-th best full
        score among the best chunks of the rarest tokens); then the ranking.
        There the tokens that together cannot lift a chunk to that threshold,
        and past the reading budget the commonest of the rest
        (``documents.bm25_pruning.split_terms``), are looked up per candidate
        instead of read whole. Candidates are the chunks the other tokens find,
        the best ``candidates_per_hit * n`` by those tokens' share of the score;
        each is ranked by its full score, so the scores returned are exact. The
        ranking is exact when the budget moved no token and no more candidates
        than that can reach the threshold; otherwise a chunk that mostly common
        tokens lift that far can be missed (parity at 100,000 chunks: README).
        """
        terms = query_terms(query)
        if not terms or n <= 0 or (version_ids is not None and not version_ids):
            return []
        with self._cursor() as cur:
            scoring = self._scoring(cur, terms)
            if scoring is None:
                return []
            idf, df, params = scoring
            params["n"] = int(n)
            if version_ids is not None:
                params["visible"] = [int(v) for v in version_ids]
            threshold = self._threshold(cur, idf, params, visible=version_ids is not None)
            essential, optional = split_terms(idf, df, threshold=threshold, budget=self._budget.essential_postings)
            _query_terms(params, "essential", essential, idf)
            _query_terms(params, "optional", optional, idf)
            params["optional_bound"] = optional_bound(idf, optional) if optional else 0.0
            params["threshold"] = threshold if optional else 0.0
            # Without optional tokens the partial score is the full one: the best n are exact.
            params["candidates"] = int(n) * self._budget.candidates_per_hit if optional else int(n)
            cur.execute(self._ranking_sql(visible=version_ids is not None), params)
            return [KeywordHit(chunk_id=int(r[0]), bm25=float(r[1]), version_id=int(r[2])) for r in cur.fetchall()]

    def _scoring(self, cur: Any, terms: list[str]) -> tuple[dict[str, float], dict[str, int], dict[str, Any]] | None:
        """The query tokens' idf (``informative_terms``), document frequencies and the score's constants.

        None when nothing can match.
        """
        t = self._t
        cur.execute(f"SELECT rows, tokens FROM {t.total} WHERE id = 1")
        row = cur.fetchone()
        rows, total_tokens = (int(row[0]), int(row[1])) if row else (0, 0)
        if rows <= 0:
            return None
        cur.execute(f"SELECT term, df FROM {t.term} WHERE term = ANY(%s) AND df > 0", [terms])
        df = {term: int(count) for term, count in cur.fetchall()}
        idf = informative_terms({term: _idf(rows, count) for term, count in df.items()})
        if not idf:
            return None
        # BM25's denominator tf + k1 * (1 - b + b * length / avgdl), as tf + c0 + c1 * length (float8, not numeric).
        params: dict[str, Any] = {"k1p1": K1 + 1, "c0": K1 * (1 - B), "c1": K1 * B * rows / total_tokens}
        _query_terms(params, "all", list(idf), idf)
        _query_terms(
            params, "probe", probe_terms({term: df[term] for term in idf}, budget=self._budget.probe_postings), idf
        )
        return idf, df, params

    def _threshold(self, cur: Any, idf: dict[str, float], params: dict[str, Any], *, visible: bool) -> float:
        """A score the best ``n`` chunks reach: the ``n``-th best full score of the rarest tokens' best chunks.

        0 when those tokens find fewer than ``n`` chunks (then every token is read).
        """
        if len(params["probe_terms"]) == len(idf):
            return 0.0  # every list is short: reading them all is the cheapest plan
        cur.execute(
            f"WITH best AS (SELECT p.chunk_id FROM {self._postings('probe', visible=visible)} "
            f"GROUP BY p.chunk_id ORDER BY sum({_SCORE}) DESC, p.chunk_id LIMIT %(n)s) "
            f"SELECT s.score FROM best c CROSS JOIN LATERAL ({self._lookup('all')}) s",
            params,
        )
        scores = sorted((float(r[0]) for r in cur.fetchall()), reverse=True)
        return scores[params["n"] - 1] if len(scores) >= params["n"] else 0.0

    def _ranking_sql(self, *, visible: bool) -> str:
        """The best ``n``: candidates by the essential tokens' score, ranked with the optional tokens added."""
        return (
            f"WITH partial AS (SELECT p.chunk_id, min(p.version_id) AS version_id, sum({_SCORE}) AS score "
            f"FROM {self._postings('essential', visible=visible)} GROUP BY p.chunk_id "
            "HAVING sum(" + _SCORE + ") + %(optional_bound)s::float8 >= %(threshold)s::float8 "
            "ORDER BY score DESC, p.chunk_id LIMIT %(candidates)s) "
            "SELECT c.chunk_id, c.score + coalesce(o.score, 0) AS score, c.version_id FROM partial c "
            f"LEFT JOIN LATERAL ({self._lookup('optional')}) o ON true "
            "ORDER BY score DESC, c.chunk_id LIMIT %(n)s"
        )

    def _postings(self, terms: str, *, visible: bool) -> str:
        """A FROM clause: the postings ``p`` of the query tokens ``terms`` (with their idf as ``q``), of visible versions.

        Each token's postings are read through the index (LATERAL: the plan does
        not depend on the planner's statistics of a freshly filled table). The
        visible versions are joined as a set, hashed once: "= ANY(array)" on the
        postings compared each one with every version (5 s at 100,000 chunks).
        """
        join = " JOIN (SELECT DISTINCT unnest(%(visible)s::bigint[]) AS version_id) v ON v.version_id = p.version_id"
        return (
            f"unnest(%({terms}_terms)s::text[], %({terms}_idf)s::float8[]) AS q(term, idf) CROSS JOIN LATERAL "
            f"(SELECT p.chunk_id, p.tf, p.length, p.version_id FROM {self._t.posting} p WHERE p.term = q.term) p"
            + (join if visible else "")
        )

    def _lookup(self, terms: str) -> str:
        """The score of candidate chunk ``c`` from the query tokens ``terms`` (its postings, read through an index)."""
        return (
            f"SELECT sum({_SCORE}) AS score FROM unnest(%({terms}_terms)s::text[], %({terms}_idf)s::float8[]) "
            f"AS q(term, idf) JOIN {self._t.posting} p ON p.term = q.term AND p.chunk_id = c.chunk_id"
        )

    def has_token(self, token: str, *, version_ids: Sequence[int] | None = None) -> bool:
        if not token or (version_ids is not None and not version_ids):
            return False
        with self._cursor() as cur:
            if version_ids is None:
                cur.execute(f"SELECT 1 FROM {self._t.term} WHERE term = %s AND df > 0", [token])
            else:
                cur.execute(
                    f"SELECT 1 FROM {self._t.posting} p JOIN (SELECT DISTINCT unnest(%s::bigint[]) AS version_id) v "
                    "ON v.version_id = p.version_id WHERE p.term = %s LIMIT 1",
                    [[int(v) for v in version_ids], token],
                )
            return cur.fetchone() is not None


def _query_terms(params: dict[str, Any], name: str, terms: list[str], idf: dict[str, float]) -> None:
    """Bind ``terms`` and their idf as the parameters ``<name>_terms`` and ``<name>_idf``."""
    params[f"{name}_terms"] = list(terms)
    params[f"{name}_idf"] = [idf[term] for term in terms]


def informative_terms(idf: dict[str, float]) -> dict[str, float]:
    """The query tokens worth reading postings for: those above FTS5's idf floor, if any.

    A token in more than half the chunks carries only the floor (1e-6), yet its
    posting list is the longest of all: at 100,000 chunks the few such tokens of
    a question made up most of the postings read. Leaving them out costs parity
    with FTS5 only in the last digits: a score differs by at most (k1 + 1) * 1e-6
    per such token, and a chunk matched through nothing else (score below 1e-5)
    is not returned. A question made only of such tokens still reads them all.
    """
    informative = {term: value for term, value in idf.items() if value > MIN_IDF}
    return informative or idf


def _idf(rows: int, df: int) -> float:
    """FTS5's idf: ln((N - n + 0.5) / (n + 0.5)), floored so that very common tokens still count a little."""
    value = math.log((rows - df + 0.5) / (df + 0.5))
    return value if value > 0 else MIN_IDF


def live_keyword_index() -> KeywordIndex:
    """The index in the portal's own database (FTS5 on SQLite, the keyword tables on PostgreSQL)."""
    from django.db import connection, transaction

    if connection.vendor == "postgresql":
        return PostgresKeywordIndex(connection.cursor, transaction.atomic)
    return Fts5KeywordIndex(connection.cursor, placeholder="%s")
