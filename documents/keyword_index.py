"""The keyword index: BM25 over segmented chunk text in SQLite FTS5.

Works on any DB-API connection to SQLite: the portal's database (through
Django's connection, created by a migration) or a throw-away in-memory
database for evaluation. Rows are keyed by chunk id and carry the version id,
so retrieval can restrict a search to live versions the user may see.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from documents.segmentation import match_expression, segment

TABLE = "documents_chunk_fts"
CREATE_SQL = f"CREATE VIRTUAL TABLE IF NOT EXISTS {TABLE} USING fts5(body, version_id UNINDEXED, tokenize='ascii')"
DROP_SQL = f"DROP TABLE IF EXISTS {TABLE}"


@dataclass(frozen=True)
class KeywordHit:
    chunk_id: int
    bm25: float  # higher is better (FTS5's bm25() negated)


class KeywordIndex:
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
        """Index ``(chunk_id, version_id, text)`` rows (replacing rows with the same chunk id)."""
        p = self._p
        data = [(chunk_id, segment(text), version_id) for chunk_id, version_id, text in rows]
        with self._cursor() as cur:
            # One statement per row: a reader never sees a re-indexed chunk missing.
            cur.executemany(f"INSERT OR REPLACE INTO {TABLE}(rowid, body, version_id) VALUES ({p}, {p}, {p})", data)

    def delete_versions(self, version_ids: Sequence[int]) -> None:
        if not version_ids:
            return
        marks = ", ".join([self._p] * len(version_ids))
        with self._cursor() as cur:
            cur.execute(f"DELETE FROM {TABLE} WHERE version_id IN ({marks})", list(version_ids))

    def delete_chunks(self, chunk_ids: Sequence[int]) -> None:
        """Remove the rows of these chunks (``check_index --repair`` of extra rows)."""
        if not chunk_ids:
            return
        marks = ", ".join([self._p] * len(chunk_ids))
        with self._cursor() as cur:
            cur.execute(f"DELETE FROM {TABLE} WHERE rowid IN ({marks})", [int(i) for i in chunk_ids])

    def entries(self) -> Iterator[tuple[int, int | None, str]]:
        """Every row as ``(chunk_id, version_id, body)``, for consistency checks."""
        with self._cursor() as cur:
            cur.execute(f"SELECT rowid, version_id, body FROM {TABLE}")
            for chunk_id, version_id, body in cur.fetchall():
                yield int(chunk_id), (int(version_id) if version_id is not None else None), body

    def bodies(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        """The stored (segmented, space-separated) bodies of these chunks; absent ids are left out."""
        if not chunk_ids:
            return {}
        marks = ", ".join([self._p] * len(chunk_ids))
        with self._cursor() as cur:
            cur.execute(f"SELECT rowid, body FROM {TABLE} WHERE rowid IN ({marks})", [int(i) for i in chunk_ids])
            return {int(row[0]): row[1] for row in cur.fetchall()}

    def search(self, query: str, *, n: int, version_ids: Sequence[int] | None = None) -> list[KeywordHit]:
        """Best ``n`` chunks for ``query``; ``version_ids`` restricts to those versions (None: all)."""
        expression = match_expression(query)
        if not expression or n <= 0 or (version_ids is not None and not version_ids):
            return []
        p = self._p
        sql = f"SELECT rowid, bm25({TABLE}) FROM {TABLE} WHERE {TABLE} MATCH {p}"
        params: list[Any] = [expression]
        if version_ids is not None:
            sql += f" AND version_id IN ({', '.join([p] * len(version_ids))})"
            params.extend(version_ids)
        sql += f" ORDER BY bm25({TABLE}) LIMIT {int(n)}"
        with self._cursor() as cur:
            cur.execute(sql, params)
            return [KeywordHit(chunk_id=int(row[0]), bm25=-float(row[1])) for row in cur.fetchall()]


    def has_token(self, token: str, *, version_ids: Sequence[int] | None = None) -> bool:
        """Whether any chunk (of ``version_ids``; None: all) contains the segmentation token ``token`` (a bigram)."""
        if not token or (version_ids is not None and not version_ids):
            return False
        p = self._p
        sql = f"SELECT 1 FROM {TABLE} WHERE {TABLE} MATCH {p}"
        params: list[Any] = ['"' + token.replace('"', '""') + '"']
        if version_ids is not None:
            sql += f" AND version_id IN ({', '.join([p] * len(version_ids))})"
            params.extend(version_ids)
        with self._cursor() as cur:
            cur.execute(sql + " LIMIT 1", params)
            return cur.fetchone() is not None


def live_keyword_index() -> KeywordIndex:
    """The index in the portal's own database."""
    from django.db import connection

    return KeywordIndex(connection.cursor, placeholder="%s")
