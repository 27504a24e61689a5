"""Hit@k of questions with a gold document against what the portal has loaded now.

``evaluate`` builds a throw-away index from a corpus file; this asks the
portal's own search (``qa.retrieval.search``: live versions, the access rules,
the synonym dictionary, no cloud expansion) as one user, so it measures a
corpus as it was imported (``import_documents``) at whatever size it has grown
to. A question's gold document is named as the portal names it (its path in
the import, ``people-group/leave/_index.md``); questions without one are skipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from qa import retrieval

CUTOFFS = (1, 3, 5)


@dataclass
class QuestionRank:
    qid: str
    gold: str
    rank: int | None  # of the gold document among the distinct documents found (None: not found)
    documents: list[str]  # the documents found, best first
    ms: float


@dataclass
class HitReport:
    ranks: list[QuestionRank] = field(default_factory=list)

    def hit_at(self, cutoff: int) -> float:
        if not self.ranks:
            return 0.0
        return round(sum(1 for r in self.ranks if r.rank and r.rank <= cutoff) / len(self.ranks), 4)

    def latency(self, q: float) -> float:
        """Nearest-rank percentile (``q`` in 0..1) of the searches' wall time in ms."""
        ordered = sorted(r.ms for r in self.ranks)
        if not ordered:
            return 0.0
        return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)

    def summary(self) -> dict[str, object]:
        return {
            "questions": len(self.ranks),
            **{f"hit@{c}": self.hit_at(c) for c in CUTOFFS},
            "search_p50_ms": self.latency(0.5),
            "search_p95_ms": self.latency(0.95),
        }


def search_hits(
    *,
    user,  # noqa: ANN001
    questions: Iterable[dict],
    chunks: int = 10,
    progress: Callable[[int], None] | None = None,
) -> HitReport:
    """Search each question with a ``gold_doc_id`` as ``user``; rank the gold document among the documents found.

    ``chunks`` is how many chunks each search returns (at most
    ``RAG_MAX_CHUNKS_PER_DOCUMENT`` per document), enough for five documents.
    The first search also loads the model: it is run once before timing.
    """
    asked = [q for q in questions if q.get("gold_doc_id")]
    report = HitReport()
    if asked:
        retrieval.search(user=user, query=str(asked[0]["question"]), k=chunks, llm_expansion=None)
    for i, q in enumerate(asked, start=1):
        t0 = time.perf_counter()
        result = retrieval.search(user=user, query=str(q["question"]), k=chunks, llm_expansion=None)
        ms = (time.perf_counter() - t0) * 1000
        documents: list[str] = []
        for hit in result.hits:
            if hit.filename not in documents:
                documents.append(hit.filename)
        gold = str(q["gold_doc_id"])
        rank = documents.index(gold) + 1 if gold in documents else None
        report.ranks.append(QuestionRank(str(q.get("qid", i)), gold, rank, documents, round(ms, 1)))
        if progress is not None:
            progress(i)
    return report
