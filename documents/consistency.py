"""Comparing the live chunks in the database with what the two indexes hold.

Pure: the caller reads the database, the keyword index and the dense index into
plain mappings, and :func:`compare` says, per document, which entries are

- missing: a live chunk the index lacks (retrieval cannot find it);
- extra: an entry for no live chunk (a deleted document, a replaced version,
  a crashed run) — versions still being indexed are not extra;
- stale: an entry for a live chunk that disagrees with it (another version or
  document in its metadata, different keyword text, an older embedding model).
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass, field


@dataclass(frozen=True)
class LiveChunk:
    document_id: int
    version_id: int
    keyword_body: str  # the segmented text the keyword index should hold for it


@dataclass(frozen=True)
class DenseEntry:
    document_id: int | None
    version_id: int | None


@dataclass(frozen=True)
class KeywordEntry:
    version_id: int | None
    body: str


@dataclass
class DocumentDrift:
    """What one document's entries lack or hold too much of, by chunk id."""

    document_id: int | None  # None: entries of a document no longer in the database
    dense_missing: list[int] = field(default_factory=list)
    dense_extra: list[int] = field(default_factory=list)
    dense_stale: list[int] = field(default_factory=list)
    keyword_missing: list[int] = field(default_factory=list)
    keyword_extra: list[int] = field(default_factory=list)
    keyword_stale: list[int] = field(default_factory=list)

    @property
    def needs_reindex(self) -> bool:
        """Live chunks missing or stale in either index: the live version must be indexed again."""
        return bool(self.dense_missing or self.dense_stale or self.keyword_missing or self.keyword_stale)

    def counts(self) -> dict[str, int]:
        return {
            "dense_missing": len(self.dense_missing),
            "dense_extra": len(self.dense_extra),
            "dense_stale": len(self.dense_stale),
            "keyword_missing": len(self.keyword_missing),
            "keyword_extra": len(self.keyword_extra),
            "keyword_stale": len(self.keyword_stale),
        }


def compare(
    *,
    live: Mapping[int, LiveChunk],
    dense: Mapping[int, DenseEntry],
    keyword: Mapping[int, KeywordEntry],
    in_flight_versions: Set[int] = frozenset(),
    version_documents: Mapping[int, int] | None = None,
    outdated_versions: Set[int] = frozenset(),
) -> list[DocumentDrift]:
    """The documents whose entries disagree with the live chunks (none: both indexes are consistent).

    ``live``, ``dense`` and ``keyword`` are keyed by chunk id. Entries of
    ``in_flight_versions`` (being indexed now) are neither extra nor stale.
    ``version_documents`` (version id → document id, for every version in the
    database) places an extra keyword entry, which carries no document id.
    ``outdated_versions`` were embedded with another model: their dense entries are stale.
    """
    version_documents = version_documents or {}
    drifts: dict[int | None, DocumentDrift] = {}

    def drift(document_id: int | None) -> DocumentDrift:
        return drifts.setdefault(document_id, DocumentDrift(document_id=document_id))

    for chunk_id, chunk in live.items():
        entry = dense.get(chunk_id)
        if entry is None:
            drift(chunk.document_id).dense_missing.append(chunk_id)
        elif (entry.document_id, entry.version_id) != (chunk.document_id, chunk.version_id) or (
            chunk.version_id in outdated_versions
        ):
            drift(chunk.document_id).dense_stale.append(chunk_id)
        row = keyword.get(chunk_id)
        if row is None:
            drift(chunk.document_id).keyword_missing.append(chunk_id)
        elif row.version_id != chunk.version_id or row.body != chunk.keyword_body:
            drift(chunk.document_id).keyword_stale.append(chunk_id)

    for chunk_id, entry in dense.items():
        if chunk_id not in live and entry.version_id not in in_flight_versions:
            document_id = entry.document_id if entry.version_id in version_documents else None
            drift(document_id).dense_extra.append(chunk_id)
    for chunk_id, row in keyword.items():
        if chunk_id not in live and row.version_id not in in_flight_versions:
            drift(version_documents.get(row.version_id) if row.version_id is not None else None).keyword_extra.append(
                chunk_id
            )

    for item in drifts.values():
        for ids in (item.dense_missing, item.dense_extra, item.dense_stale):
            ids.sort()
        for ids in (item.keyword_missing, item.keyword_extra, item.keyword_stale):
            ids.sort()
    return sorted(drifts.values(), key=lambda d: (d.document_id is None, d.document_id or 0))
