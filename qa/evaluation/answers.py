"""Answers to a JSONL corpus's questions as the portal serves them (``evaluate --answers``).

The corpus is uploaded into a throw-away portal (:mod:`qa.evaluation.portal`)
through the ingest service, one document per line (named ``<doc_id>.md``,
titled by the line's ``title``), and every question is asked through
:func:`qa.services.answer_question`, read back as the API returns it
(:func:`qa.presenters.answer_payload`). So every step the portal takes is
measured: off-topic, clarification, two-part questions, the unknown-subject
check, the provider, verification and the grounding gate.

A question counts as answered right when the portal gives an ``answer``
response, not withheld, whose text holds one of the gold strings
(:func:`qa.evaluation.golden.score_payload`, as the golden set is); ``citation_hits_gold`` is the
share whose first footnote cites the gold line's document.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from documents.services import version_ingest, versions_index
from qa.evaluation.golden import GoldenQuery, Result, score_payload
from qa.evaluation.portal import throwaway_portal
from qa.evaluation.scoring import percentile, reliability
from qa.glossary import synonyms_load
from qa.models import SynonymEntry
from qa.presenters import answer_payload
from qa.services import answer_question

ASKER = "evaluate-asker"
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Outcome:
    """What the portal answered to one question (scored as the golden set is), and whether it cited the gold line."""

    result: Result
    cites_gold: bool


def answers_evaluate(
    *,
    corpus_records: Iterable[Mapping[str, Any]],
    queries: Sequence[Mapping[str, Any]],
    glossary: Mapping[str, str] | None = None,
    expansion: bool = True,
    progress: Callable[[str], Progress] | None = None,
) -> dict[str, Any]:
    """Upload the corpus into a throw-away portal, ask every query there, return the answer metrics.

    ``glossary`` (term → expansions) is loaded into the portal's synonym
    dictionary; without ``expansion`` the dictionary is emptied. ``progress``
    makes a reporter for a stage label.
    """
    with throwaway_portal():
        asker, _ = get_user_model().objects.get_or_create(username=ASKER)
        if not expansion:
            SynonymEntry.objects.all().delete()
        elif glossary:
            synonyms_load(entries=glossary)
        documents = corpus_upload(corpus_records, owner=asker, progress=progress("indexing") if progress else None)
        outcomes = []
        show = progress("answers") if progress else None
        for i, query in enumerate(queries, start=1):
            outcomes.append(ask(query, user=asker, documents=documents))
            if show:
                show(i, len(queries))
    return answers_summary(outcomes)


def corpus_upload(
    records: Iterable[Mapping[str, Any]], *, owner: User, progress: Progress | None = None
) -> dict[str, str]:
    """Upload one document per corpus line, indexed in one batch; returns document name → the line's ``doc_id``.

    A line the ingest service refuses (empty text, say) is left out, as an upload would be.
    """
    documents: dict[str, str] = {}
    versions = []
    for record in records:
        doc_id = str(record["doc_id"])
        try:
            result = version_ingest(
                owner=owner,
                filename=f"{doc_id}.md",
                data=str(record["text"]).encode("utf-8"),
                title=str(record.get("title") or ""),
                index=False,
            )
        except ValidationError:
            continue
        documents[result.document.filename] = doc_id
        if result.version is not None:
            versions.append(result.version)
    versions_index(versions=versions, progress=progress)
    return documents


def ask(query: Mapping[str, Any], *, user: User, documents: Mapping[str, str]) -> Outcome:
    """Ask ``query`` as ``user`` in a new conversation and score what the API would return."""
    answer = answer_question(user=user, text=str(query["question"])).answer
    payload = answer_payload(answer)
    citations = payload.get("citations") or []
    first = documents.get(str(citations[0]["filename"])) if citations else None
    result = score_payload(
        GoldenQuery.from_json({**query, "expect": "answer"}), payload, latency_ms=float(answer.latency_ms or 0.0)
    )
    return Outcome(result=result, cites_gold=first is not None and first == str(query["gold_doc_id"]))


def answers_summary(outcomes: list[Outcome]) -> dict[str, Any]:
    """The share answered right, citing the gold document, per response type and confidence, the latency, and each answer."""
    n = len(outcomes) or 1
    results = [o.result for o in outcomes]
    latencies = [r.latency_ms for r in results]
    return {
        "n": len(outcomes),
        "answer_contains_gold": round(sum(r.correct for r in results) / n, 4),
        "citation_hits_gold": round(sum(o.cites_gold for o in outcomes) / n, 4),
        "response_types": dict(Counter(r.response_type for r in results)),
        "answer_latency_ms": {"p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95)},
        "reliability": reliability((r.confidence, r.correct) for r in results),
        "results": [{**o.result.as_json(), "cites_gold": o.cites_gold} for o in outcomes],
    }
