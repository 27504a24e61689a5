"""Query expansion: the editable synonym dictionary, then (optionally) the LLM.

The dictionary adds the expansions of every term found in the query (NFKC,
case-insensitive). An LLM expansion, when enabled, goes through the
configured provider; any failure there falls back to the dictionary result,
as the reference project does, so expansion can never fail a question.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ragportal.text import fold

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Expansion:
    query: str
    expanded_query: str
    added_keywords: list[str] = field(default_factory=list)


def expand_with_dictionary(query: str, rules: Iterable[tuple[str, list[str]]]) -> Expansion:
    """Add the expansions of each dictionary term that occurs in ``query`` (each keyword once)."""
    normalized = fold(query)
    added: list[str] = []
    for term, expansions in rules:
        if term and fold(term) in normalized:
            for word in expansions:
                if fold(word) not in normalized and word not in added:
                    added.append(word)
    expanded = f"{query} {' '.join(added)}" if added else query
    return Expansion(query=query, expanded_query=expanded, added_keywords=added)


def expand(
    query: str,
    *,
    rules: Iterable[tuple[str, list[str]]],
    llm: Callable[[str], list[str]] | None = None,
) -> Expansion:
    """Dictionary expansion, then LLM keywords if ``llm`` is given; LLM failures are logged and ignored."""
    result = expand_with_dictionary(query, rules)
    if llm is None:
        return result
    try:
        keywords = [k.strip() for k in llm(query) if k and k.strip()]
    except Exception:
        log.warning("LLM query expansion failed; using the dictionary expansion", exc_info=True)
        return result
    normalized = fold(result.expanded_query)
    extra = [k for k in keywords[:8] if fold(k) not in normalized]
    if not extra:
        return result
    added = result.added_keywords + extra
    return Expansion(query=query, expanded_query=f"{result.expanded_query} {' '.join(extra)}", added_keywords=added)


def expand_with_terms(expansion: Expansion, terms: Iterable[str], *, keywords: bool = True) -> Expansion:
    """``expansion`` with ``terms`` added (the corpus vocabulary's matches, qa.vocabulary); those already there are skipped.

    With ``keywords`` False the terms are searched for but not reported as
    ``added_keywords``, which the off-topic and subject checks and the provider
    take as words the question means for certain.
    """
    normalized = fold(expansion.expanded_query)
    extra = [t for t in dict.fromkeys(terms) if t and fold(t) not in normalized]
    if not extra:
        return expansion
    return Expansion(
        query=expansion.query,
        expanded_query=f"{expansion.expanded_query} {' '.join(extra)}",
        added_keywords=expansion.added_keywords + (extra if keywords else []),
    )


# The dictionary as last read, under the fingerprint it was read at (see dictionary_rules).
_rules: tuple[tuple[int, Any], list[tuple[str, list[str]]]] | None = None


def dictionary_rules() -> list[tuple[str, list[str]]]:
    """The synonym dictionary as edited in the admin (or by a reviewer's wording pair), as it is now.

    Read again only when its fingerprint changed: the number of entries and the
    latest edit (``updated_at``, set on every save) change with every addition, edit
    and removal, in this process or another, and cost one aggregate query instead of
    reading and building every entry for each question (two or three reads per question).
    """
    from django.db.models import Count, Max

    from qa.models import SynonymEntry

    global _rules
    seen = SynonymEntry.objects.aggregate(n=Count("pk"), last=Max("updated_at"))
    fingerprint = (seen["n"], seen["last"])
    cached = _rules
    if cached is None or cached[0] != fingerprint:
        cached = (fingerprint, [(e.term, e.expansion_list()) for e in SynonymEntry.objects.all()])
        _rules = cached
    return [(term, list(words)) for term, words in cached[1]]
