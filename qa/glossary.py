"""Glossary files: wording pairs for the synonym dictionary, kept as data outside the database.

A glossary file is UTF-8 JSON: ``{"entries": {"term": "expansion, expansion", ...}}``
(other top-level keys, such as ``"about"``, are ignored). The portal ships none:
a fresh install's dictionary is empty and holds only the company's own pairs,
typed in the admin or loaded with ``load_glossary``. The demo's pairs, written
against the demo corpus, are documents/demo_corpus/glossary.json, which
``load_demo`` loads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction

from qa.models import SynonymEntry


@dataclass(frozen=True)
class SynonymsLoaded:
    created: int
    updated: int
    unchanged: int

    @property
    def total(self) -> int:
        return self.created + self.updated + self.unchanged


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    seen: dict[str, object] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"term {key!r} appears twice")
        seen[key] = value
    return seen


def glossary_read(path: Path) -> dict[str, str]:
    """The ``term → expansions`` pairs of a glossary file, in file order.

    Raises ValueError naming the problem when the file is not UTF-8 JSON of the
    documented shape, a term appears twice, or a term or its expansions are empty.
    """
    try:
        data = json.loads(path.read_text("utf-8"), object_pairs_hook=_unique_keys)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path.name}: not UTF-8 JSON ({exc})") from exc
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise ValueError(f'{path.name}: expected {{"entries": {{"term": "expansions", ...}}}}')
    for term, expansions in entries.items():
        if not term.strip() or not isinstance(expansions, str) or not expansions.strip():
            raise ValueError(f"{path.name}: term {term!r} needs a non-empty term and expansions text")
    return dict(entries)


@transaction.atomic
def synonyms_load(*, entries: Mapping[str, str]) -> SynonymsLoaded:
    """Make the dictionary hold each ``term → expansions`` pair: new terms are added, a term's expansions overwritten.

    Idempotent: loading the same pairs again changes nothing. Terms not in
    ``entries`` (the company's own pairs) are left alone. A pair the admin form
    would refuse (too long) raises ValidationError and nothing is written.
    """
    existing = dict(SynonymEntry.objects.filter(term__in=list(entries)).values_list("term", "expansions"))
    created = updated = 0
    for term, expansions in entries.items():
        if existing.get(term) == expansions:
            continue
        try:
            SynonymEntry(term=term, expansions=expansions).full_clean(validate_unique=False)
        except ValidationError as exc:
            raise ValidationError(f"{term!r}: {'; '.join(exc.messages)}") from exc
        SynonymEntry.objects.update_or_create(term=term, defaults={"expansions": expansions})
        if term in existing:
            updated += 1
        else:
            created += 1
    return SynonymsLoaded(created=created, updated=updated, unchanged=len(entries) - created - updated)
