"""Keyword-search hit@k of one corpus on SQLite FTS5 and on PostgreSQL, in one run and without embeddings.

``evaluate --compare`` measures the keyword mode on whichever database
``DATABASE_URL`` names, but it embeds the corpus and every question for the
dense and hybrid modes as well. The keyword mode's ranking needs none of that
(a candidate's order is its BM25 rank), so parity between the two back-ends is
measured here on the keyword indexes alone: the same chunks (``build_corpus``)
and the same expanded questions go into an in-memory FTS5 table and into
PostgreSQL keyword tables in a throw-away schema, and each question's documents
are ranked as ``evaluate`` ranks them.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.db import connection, transaction

from documents.keyword_index import KeywordIndex, PostgresKeywordIndex, in_memory_fts5
from qa.evaluation.evaluate import Corpus
from qa.expansion import expand

CUTOFFS = (1, 3, 5)


def keyword_hits(
    index: KeywordIndex, corpus: Corpus, queries: list[dict], *, candidates: int
) -> tuple[dict[str, float], list[list[str]]]:
    """hit@1/3/5 of ``queries`` on ``index`` (filled with ``corpus``), and each query's documents, best first."""
    hits = dict.fromkeys(CUTOFFS, 0)
    rankings: list[list[str]] = []
    for q in queries:
        ranking: list[str] = []
        for hit in index.search(expand(q["question"], rules=[]).expanded_query, n=candidates):
            doc = corpus.chunk_doc[hit.chunk_id]
            if doc not in ranking:
                ranking.append(doc)
        rankings.append(ranking)
        gold = str(q["gold_doc_id"])
        for cutoff in CUTOFFS:
            hits[cutoff] += gold in ranking[:cutoff]
    n = max(len(queries), 1)
    return {f"hit@{c}": round(hits[c] / n, 4) for c in CUTOFFS}, rankings


def _fill(index: KeywordIndex, corpus: Corpus) -> None:
    for i in range(0, len(corpus.items), 2000):  # as indexing does: a transaction per batch
        index.add(
            (it.chunk_id, it.version_id, f"{it.title} {it.heading_path} {it.text}") for it in corpus.items[i : i + 2000]
        )


def keyword_parity(
    corpus: Corpus, queries: list[dict], *, candidates: int, each: Callable[[str], None] | None = None
) -> dict[str, object]:
    """Both back-ends' hit@k, their differences, and how many queries rank their documents differently.

    Needs the portal's database to be PostgreSQL (its keyword tables go into a
    schema of their own, dropped afterwards).
    """
    if connection.vendor != "postgresql":
        raise ValueError("keyword parity compares FTS5 with PostgreSQL: point DATABASE_URL at PostgreSQL")
    fts5, db = in_memory_fts5()
    postgres = PostgresKeywordIndex(
        connection.cursor, transaction.atomic, schema=f"ragportal_parity_{secrets.token_hex(6)}"
    )
    postgres.create()
    try:
        results = {}
        for name, index in (("sqlite-fts5", fts5), ("postgresql", postgres)):
            _fill(index, corpus)
            if index is postgres:
                postgres.vacuum()
            if each is not None:
                each(name)
            results[name] = keyword_hits(index, corpus, queries, candidates=candidates)
    finally:
        postgres.drop_schema()
        db.close()
    (fts_hits, fts_rank), (pg_hits, pg_rank) = results["sqlite-fts5"], results["postgresql"]
    return {
        "queries": len(queries),
        "chunks": len(corpus.items),
        "sqlite-fts5": fts_hits,
        "postgresql": pg_hits,
        "difference": {key: round(pg_hits[key] - fts_hits[key], 4) for key in fts_hits},
        "queries_ranked_differently_top5": sum(a[:5] != b[:5] for a, b in zip(fts_rank, pg_rank)),
    }
