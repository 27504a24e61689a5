"""The verdict on one answer: confidence, flags, warnings, and whether it needs review.

Pure Python, no Django, no import of ``qa``: blocks, citations and chunks are
duck-typed (``qa.types.AnswerBlock``, ``Citation`` and ``RetrievedChunk`` fit).
:func:`verify` combines

1. retrieval strength (the dense similarity of the passage the answer stands on, against the calibrated thresholds),
2. citation presence (first reference article): the sources the blocks cite (structured
   citations) and the file names the answer text writes itself,
3. the quote check (every citation against the chunk it claims),
4. the grounding gate (second reference article),
5. claim support per sentence (words, then meaning where the words are
   unsure and a :class:`~verification.meaning.MeaningCheck` is given), and
6. the "not found" abstention.

Confidence is decided by :mod:`verification.confidence` from retrieval, the
article's citation rules and these findings; the level after each step is kept
in ``Verdict.confidence_steps``. An abstention is ``"low"`` with the
``not_found`` flag and nothing else to warn about.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol

from verification.answer_fit import DEFAULT_FIT_THRESHOLDS, AnswerFit, FitThresholds, answer_fit
from verification.answer_types import AskedQuestion
from verification.citations import verify_citation_presence
from verification.confidence import ConfidenceSteps, answer_confidence, retrieval_confidence
from verification.flags import (
    REVIEW_FLAGS,
    VERIFIER_FLAG_NAMES,
    WARNING_ANSWER_MISMATCH,
    WARNING_FABRICATED,
    WARNING_FABRICATED_QUOTE,
    WARNING_LOW_GROUNDING,
    WARNING_LOW_RETRIEVAL,
    WARNING_NONE,
    WARNING_UNKNOWN_DOCUMENT,
    WARNING_UNSUPPORTED,
    WARNING_WEAK,
)
from verification.grounding import (
    DEFAULT_MIN_GROUNDED_RATIO,
    UNGROUNDED_MESSAGE,
    grounded_ratio,
    is_abstention,
    is_lead_in,
)
from verification.quotes import locate_quote, quote_matches
from verification.meaning import MeaningCheck, settle
from verification.support import (
    Evidence,
    EvidencePiece,
    SentenceSupport,
    check_sentence,
    split_sentences,
    subject_terms,
)


# The flags verify() can set (the registry in verification.flags defines them).
FLAG_NAMES = VERIFIER_FLAG_NAMES

# What the verdict concluded: stored on the answer's own fields (``qa.models.Answer``), never in its checks.
CONCLUSION_KEYS = frozenset({"confidence", "flags", "needs_review", "warnings", "warning_templates"})


class StoredVerdict(Protocol):
    """An answer row holding a verdict (``qa.models.Answer``): its conclusions in fields, its checks in one dict."""

    confidence: str
    needs_review: bool
    warnings: Any
    verification: Any

    @property
    def flags(self) -> list[str]: ...


@dataclass
class QuoteCheck:
    """One citation with its check: ``block``/``citation`` index it, offsets are into the chunk text.

    Carries the quote (``cited_text``) so the answer can be stored from the
    checks alone, in answer order; ``start``/``end`` are the checked offsets.

    ``reason``: ``exact`` (offsets matched), ``relocated`` (found elsewhere or
    after normalisation; ``start``/``end`` are the corrected offsets),
    ``not_found``, ``empty_quote``, ``unknown_document`` (chunk index None or
    out of range). ``found_in_chunk`` names another chunk holding the quote
    when it was attributed to the wrong one.
    """

    block: int
    citation: int
    chunk_index: int | None
    verified: bool
    start: int | None
    end: int | None
    reason: str
    found_in_chunk: int | None = None
    cited_text: str = ""


@dataclass
class SentenceCheck:
    """Support of one answer sentence; offsets are into the answer text (blocks joined).

    ``reason`` and ``missing`` as in :class:`verification.support.SentenceSupport`;
    ``closest`` is the evidence sentence it is closest to (for an unsupported
    or unsure sentence, "" otherwise), shown to reviewers beside the reason.
    """

    text: str
    start: int
    end: int
    supported: bool
    reason: str
    missing: list[str] = field(default_factory=list)
    closest: str = ""


@dataclass
class Verdict:
    """Everything verification concluded about one answer (see :func:`verify`)."""

    confidence: str
    flags: list[str]
    warnings: list[str]
    needs_review: bool
    grounded_ratio: float
    citation_presence: dict | None
    quote_checks: list[QuoteCheck]
    sentences: list[SentenceCheck]
    replaced_text: str | None
    retrieval_confidence: str = "low"
    # Whether the answer answers the question (verification.answer_fit); None when not judged.
    fit: AnswerFit | None = None
    # The same warnings as (msgid, params), so a page can show them in the reader's language.
    warning_templates: list[dict[str, Any]] = field(default_factory=list)
    # The level after each step of verification.confidence, as [step, level]: why this confidence.
    confidence_steps: list[list[str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The whole verdict as a JSON-serialisable dict (an example answer's file keeps it so)."""
        return asdict(self)

    def checks(self) -> dict[str, Any]:
        """What the conclusions rest on (the per-quote and per-sentence checks, ratios, steps), JSON-serialisable.

        This is what an answer row keeps in ``verification``; the conclusions
        (:data:`CONCLUSION_KEYS`) are kept once, in the row's own fields.
        """
        return {key: value for key, value in self.to_dict().items() if key not in CONCLUSION_KEYS}

    @classmethod
    def from_answer(cls, answer: StoredVerdict) -> Verdict:
        """The verdict stored on ``answer``: the one reader of a stored verdict.

        Stored once, in one form: the conclusions in the row's own fields (the
        review queue filters on confidence, flags and needs_review, so they must
        be columns; the warnings, as (msgid, params), sit beside them), and the
        checks they rest on in ``verification`` (:meth:`checks`), which repeats
        none of them. A warning stored as plain text (a row made by hand) is read
        as a message without parameters.
        """
        templates = [t for t in (_warning_template(item) for item in answer.warnings or []) if t is not None]
        checks = answer.verification if isinstance(answer.verification, Mapping) else {}
        return cls.from_dict(
            {
                **{key: value for key, value in checks.items() if key not in CONCLUSION_KEYS},
                "confidence": answer.confidence,
                "flags": answer.flags,
                "needs_review": answer.needs_review,
                "warnings": [_formatted(t) for t in templates],
                "warning_templates": templates,
            }
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Verdict:
        """The verdict :meth:`to_dict` stored, read back: the one reader of a stored verdict.

        Tolerant of rows stored by earlier versions (missing keys take their
        defaults; malformed sentences, quote checks and fit are left out).
        """
        data = data or {}
        return cls(
            confidence=str(data.get("confidence") or "low"),
            flags=[str(f) for f in data.get("flags") or []],
            warnings=[str(w) for w in data.get("warnings") or [] if w],
            needs_review=bool(data.get("needs_review")),
            grounded_ratio=float(data.get("grounded_ratio", 1.0) or 0.0),
            citation_presence=data.get("citation_presence"),
            quote_checks=_read_rows(QuoteCheck, data.get("quote_checks")),
            sentences=_read_rows(SentenceCheck, data.get("sentences")),
            replaced_text=data.get("replaced_text") or None,
            retrieval_confidence=str(data.get("retrieval_confidence") or "low"),
            fit=_read_fit(data.get("fit")),
            warning_templates=[
                t for t in data.get("warning_templates") or [] if isinstance(t, dict) and t.get("template")
            ],
            confidence_steps=[list(step) for step in data.get("confidence_steps") or []],
        )

    @classmethod
    def _without_answer(cls, flags: list[str], *, retrieval: str = "low", needs_review: bool = False) -> Verdict:
        return cls(
            confidence="low",
            flags=sorted(flags),
            warnings=[],
            needs_review=needs_review,
            grounded_ratio=1.0,
            citation_presence=None,
            quote_checks=[],
            sentences=[],
            replaced_text=None,
            retrieval_confidence=retrieval,
        )

    @classmethod
    def abstention(cls, *, retrieval: str = "low") -> Verdict:
        """Nothing to answer from: ``not_found`` (and ``low_retrieval`` when retrieval was weak)."""
        return cls._without_answer(
            ["not_found", *(["low_retrieval"] if retrieval == "low" else [])], retrieval=retrieval
        )

    @classmethod
    def clarification(cls, *, retrieval: str = "low") -> Verdict:
        """The user was asked which document they mean: no answer, nothing to flag."""
        return cls._without_answer([], retrieval=retrieval)

    @classmethod
    def error(cls, *, retrieval: str = "low") -> Verdict:
        """The provider failed (set by the answering service): reviewed like a flagged answer."""
        return cls._without_answer(["provider_error"], retrieval=retrieval, needs_review=True)


def verify(
    *,
    blocks: Sequence[Any],
    chunks: Sequence[Any],
    top_similarity: float | None,
    thresholds: tuple[float, float],
    min_grounded_ratio: float = DEFAULT_MIN_GROUNDED_RATIO,
    abstained: bool = False,
    question: str | AskedQuestion | None = None,
    fit_similarity: float | None = None,
    fit_thresholds: FitThresholds = DEFAULT_FIT_THRESHOLDS,
    meaning: MeaningCheck | None = None,
) -> Verdict:
    """Verify an answer made of ``blocks`` (``.text``, ``.citations``) against the retrieved ``chunks``.

    ``chunks`` are those sent to the provider (``.filename``, ``.text``); a
    citation's ``chunk_index`` indexes them. ``top_similarity`` is the dense
    similarity of the passage the answer stands on (the portal passes the one
    it quotes first; ``None`` when nothing was retrieved).
    ``abstained`` is the provider's own "not found" signal; an answer whose
    whole text is the abstention sentence counts too. With ``question``, the
    answer's fit to it is judged too (``fit_similarity``: question–answer cosine
    similarity, when the caller embedded both); a poor fit lowers confidence.
    ``meaning`` settles the sentences whose words leave support unsure (built
    over the same ``chunks``); without it their words decide. ``question`` is
    read as analysed (``qa.question.Question.asked``); a plain string is analysed here.
    """
    if isinstance(question, str):
        question = AskedQuestion.of(question)
    base = retrieval_confidence(top_similarity, thresholds)
    answer_text = "".join(block.text for block in blocks)
    if abstained or is_abstention(answer_text):
        return Verdict.abstention(retrieval=base)

    found = _Findings()
    quote_checks = _check_quotes(blocks, chunks)
    presence = verify_citation_presence(answer_text, _filenames(chunks), cited=_cited_filenames(blocks, chunks))
    _judge_citations(found, presence, quote_checks)
    ratio = _judge_grounding(found, blocks, quote_checks, min_grounded_ratio)
    sentences, unsupported, fit = _judge_content(
        found, blocks, chunks, answer_text, question, meaning, similarity=fit_similarity, thresholds=fit_thresholds
    )
    if base == "low":
        found.add("low_retrieval", WARNING_LOW_RETRIEVAL)

    steps = answer_confidence(
        top_similarity=top_similarity,
        thresholds=thresholds,
        citation_result=presence,
        flags=found.flags,
        unsupported=unsupported,
        fit_failed=fit.failed if fit is not None else None,
        terms_unchecked_across_languages=fit is not None and fit.terms is None and bool(question and question.english),
    )
    return _verdict(
        found, steps, base=base, ratio=ratio, presence=presence, quote_checks=quote_checks, sentences=sentences, fit=fit
    )


def _verdict(
    found: _Findings,
    steps: ConfidenceSteps,
    *,
    base: str,
    ratio: float,
    presence: dict | None,
    quote_checks: list[QuoteCheck],
    sentences: list[SentenceCheck],
    fit: AnswerFit | None,
) -> Verdict:
    """The verdict of an answer that was checked (not an abstention), from what :func:`verify` found."""
    return Verdict(
        confidence=steps.level,
        flags=sorted(found.flags),
        warnings=found.warnings,
        needs_review=steps.level == "low" or bool(found.flags & REVIEW_FLAGS),
        grounded_ratio=round(ratio, 4),
        citation_presence=presence,
        quote_checks=quote_checks,
        sentences=sentences,
        replaced_text=UNGROUNDED_MESSAGE if "low_grounding" in found.flags else None,
        retrieval_confidence=base,
        warning_templates=found.templates,
        fit=fit,
        confidence_steps=[list(step) for step in steps.steps],
    )


def _judge_grounding(
    found: _Findings, blocks: Sequence[Any], quote_checks: list[QuoteCheck], min_grounded_ratio: float
) -> float:
    """The share of the answer grounded by verified quotes; flagged ``low_grounding`` under ``min_grounded_ratio``."""
    verified = {(q.block, q.citation) for q in quote_checks if q.verified}
    ratio = grounded_ratio(_blocks_with_verified(blocks, verified))
    if ratio < min_grounded_ratio:
        found.add("low_grounding", WARNING_LOW_GROUNDING, percent=round(ratio * 100))
    return ratio


def _judge_content(
    found: _Findings,
    blocks: Sequence[Any],
    chunks: Sequence[Any],
    answer_text: str,
    question: AskedQuestion | None,
    meaning: MeaningCheck | None,
    *,
    similarity: float | None,
    thresholds: FitThresholds,
) -> tuple[list[SentenceCheck], int, AnswerFit | None]:
    """Each sentence's support in ``chunks``, and the answer's fit to ``question`` (None without one).

    Returns (sentences, how many are unsupported, fit); flags ``unsupported_claim``
    and ``answer_mismatch`` in ``found``.
    """
    sentences = _check_sentences(
        blocks, chunks, answer_text, question=question.text if question else "", meaning=meaning
    )
    unsupported = sum(not s.supported for s in sentences)
    if unsupported:
        found.add("unsupported_claim", WARNING_UNSUPPORTED, count=unsupported)
    fit = None
    if question is not None:
        fit = answer_fit(
            question,
            answer_text,
            context=_cited_sections(blocks, chunks),
            similarity=similarity,
            thresholds=thresholds,
        )
        if not fit.fits:
            found.add("answer_mismatch", WARNING_ANSWER_MISMATCH)
    return sentences, unsupported, fit


def _cited_sections(blocks: Sequence[Any], chunks: Sequence[Any]) -> str:
    """Headings of the chunks the answer cites: what its quotes stand under."""
    indexes = {c.chunk_index for block in blocks for c in block.citations or ()}
    return "\n".join(
        str(getattr(chunks[i], "section", "") or "")
        for i in sorted(x for x in indexes if _chunk_at(chunks, x) is not None)
    )


# What a stored row lacking a field meant before the field existed (a sentence without
# ``supported`` was not marked).
_ROW_DEFAULTS: dict[str, dict[str, Any]] = {
    "SentenceCheck": {"text": "", "start": None, "end": None, "supported": True, "reason": ""},
    "QuoteCheck": {
        "block": 0,
        "citation": 0,
        "chunk_index": None,
        "verified": False,
        "start": None,
        "end": None,
        "reason": "",
    },
}


def _warning_template(item: Any) -> dict[str, Any] | None:
    """A stored warning as (msgid, params): plain text is a message without parameters; None when empty."""
    if not isinstance(item, Mapping):
        return {"template": str(item), "params": {}} if item else None
    template = item.get("template") or item.get("message") or item.get("text")
    if not template:
        return None
    params = item.get("params")
    return {"template": str(template), "params": dict(params) if isinstance(params, Mapping) else {}}


def _formatted(template: Mapping[str, Any]) -> str:
    """A warning's text as stored (untranslated); the msgid itself when its parameters do not fit it."""
    try:
        return str(template["template"]).format(**template["params"])
    except (KeyError, IndexError, ValueError):
        return str(template["template"])


def _read_fit(data: Any) -> AnswerFit | None:
    """A stored answer fit (``asdict(AnswerFit)``), or None when absent or malformed."""
    if not isinstance(data, Mapping):
        return None
    try:
        return AnswerFit(**{f.name: data[f.name] for f in fields(AnswerFit) if f.name in data})
    except TypeError:
        return None


def _read_rows(kind: type, rows: Any) -> list:
    """``rows`` (stored dicts) as ``kind`` instances; a row that is not a dict is left out."""
    names = {f.name for f in fields(kind)}
    defaults = _ROW_DEFAULTS.get(kind.__name__, {})
    out = []
    for row in rows if isinstance(rows, list) else []:
        try:
            out.append(kind(**{**defaults, **{k: v for k, v in row.items() if k in names}}))
        except (AttributeError, TypeError):
            continue
    return out


@dataclass
class _Findings:
    """Flags and warnings gathered by the phases of :func:`verify`, in the order found."""

    flags: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    templates: list[dict[str, Any]] = field(default_factory=list)

    def add(self, flag: str, template: str | None = None, **params: Any) -> None:
        self.flags.add(flag)
        if template is not None:
            self.warnings.append(template.format(**params))
            self.templates.append({"template": template, "params": params})


def _judge_citations(found: _Findings, presence: dict | None, quote_checks: list[QuoteCheck]) -> None:
    """The first reference article's citation rules, then the quote check."""
    if presence is not None:
        unexpected = presence["unexpected_sources"]
        quality = presence["citation_quality"]
        if unexpected:
            found.add("fabricated_source", WARNING_FABRICATED, names=", ".join(sorted(unexpected)))
        if quality == "none":
            found.add("no_citation", None if unexpected else WARNING_NONE)
        elif quality == "weak":
            found.add("weak_citation", None if unexpected else WARNING_WEAK)
    if any(q.reason == "unknown_document" for q in quote_checks):
        found.add("fabricated_source", WARNING_UNKNOWN_DOCUMENT)
    fabricated = sum(not q.verified and q.reason != "unknown_document" for q in quote_checks)
    if fabricated:
        found.add("fabricated_quote", WARNING_FABRICATED_QUOTE, count=fabricated)


def _chunk_at(chunks: Sequence[Any], index: int | None) -> Any | None:
    if index is None or not (0 <= index < len(chunks)):
        return None
    return chunks[index]


def _filenames(chunks: Sequence[Any]) -> list[str]:
    return list(dict.fromkeys(chunk.filename for chunk in chunks))


def _cited_filenames(blocks: Sequence[Any], chunks: Sequence[Any]) -> list[str]:
    """The file names of the retrieved chunks the answer's citations point at (structured, never re-parsed)."""
    cited = (_chunk_at(chunks, c.chunk_index) for block in blocks for c in block.citations or ())
    return list(dict.fromkeys(chunk.filename for chunk in cited if chunk is not None))


def _check_quotes(blocks: Sequence[Any], chunks: Sequence[Any]) -> list[QuoteCheck]:
    return [
        _check_quote(b, c, citation, chunks)
        for b, block in enumerate(blocks)
        for c, citation in enumerate(block.citations or ())
    ]


def _check_quote(b: int, c: int, citation: Any, chunks: Sequence[Any]) -> QuoteCheck:
    """The check of citation ``c`` of block ``b``: offsets that match stand, else the quote is located once."""
    quote = citation.cited_text or ""
    chunk = _chunk_at(chunks, citation.chunk_index)
    if chunk is None:
        return QuoteCheck(b, c, citation.chunk_index, False, None, None, "unknown_document", cited_text=quote)
    if not quote.strip():
        return QuoteCheck(b, c, citation.chunk_index, False, None, None, "empty_quote", cited_text=quote)
    if quote_matches(quote, chunk.text, citation.start, citation.end):
        return QuoteCheck(b, c, citation.chunk_index, True, citation.start, citation.end, "exact", cited_text=quote)
    span = locate_quote(quote, chunk.text, near=citation.start)
    if span is not None:
        return QuoteCheck(b, c, citation.chunk_index, True, span[0], span[1], "relocated", cited_text=quote)
    elsewhere = next(
        (i for i, other in enumerate(chunks) if i != citation.chunk_index and locate_quote(quote, other.text)),
        None,
    )
    return QuoteCheck(b, c, citation.chunk_index, False, None, None, "not_found", elsewhere, cited_text=quote)


@dataclass
class _CountedBlock:
    text: str
    citations: list[Any]


def _blocks_with_verified(blocks: Sequence[Any], verified: set[tuple[int, int]]) -> list[_CountedBlock]:
    """Blocks keeping only citations whose quote checked out: a fabricated citation grounds nothing.

    The English lead-in claims nothing and is left out of the count.
    """
    return [
        _CountedBlock(block.text, [cit for c, cit in enumerate(block.citations or ()) if (b, c) in verified])
        for b, block in enumerate(blocks)
        if not is_lead_in(block.text)
    ]


def _check_sentences(
    blocks: Sequence[Any],
    chunks: Sequence[Any],
    answer_text: str,
    *,
    question: str = "",
    meaning: MeaningCheck | None = None,
) -> list[SentenceCheck]:
    """Claim support per sentence of the whole answer.

    A sentence's evidence is the text of the chunks cited by the blocks it
    overlaps (providers may split a sentence over several blocks), or all
    retrieved chunks when none of them cites. The answer's subject (the
    question's terms, terms repeated across sentences) is not invention.
    Unsure sentences are settled by ``meaning`` in one batch.
    """
    spans = split_sentences(answer_text)
    subject = subject_terms([answer_text[s:e] for s, e in spans], question)
    block_spans: list[tuple[int, int, frozenset[int]]] = []
    offset = 0
    for block in blocks:
        cited = frozenset(c.chunk_index for c in block.citations or () if _chunk_at(chunks, c.chunk_index) is not None)
        block_spans.append((offset, offset + len(block.text), cited))
        offset += len(block.text)
    every = frozenset(range(len(chunks)))
    pieces: dict[int, EvidencePiece] = {}
    indexes: dict[frozenset[int], Evidence] = {}
    results: list[SentenceSupport] = []
    keys: list[frozenset[int]] = []
    first = 0
    for start, end in spans:
        # Sentences and blocks are both in text order: skip blocks that end before this sentence.
        while first < len(block_spans) and block_spans[first][1] <= start:
            first += 1
        cited_here: set[int] = set()
        k = first
        while k < len(block_spans) and block_spans[k][0] < end:
            cited_here |= block_spans[k][2]
            k += 1
        key = frozenset(cited_here) or every
        evidence = indexes.get(key)
        if evidence is None:
            for i in key:
                if i not in pieces:
                    pieces[i] = EvidencePiece.of(chunks[i].text)
            evidence = indexes[key] = Evidence.from_pieces(
                [pieces[i] for i in sorted(key)], [chunks[i].filename for i in sorted(key)]
            )
        results.append(check_sentence(answer_text[start:end], evidence, start=start, subject=subject))
        keys.append(key)
    if meaning is not None:
        unsure = [i for i, r in enumerate(results) if r.unsure]
        similar = meaning.closest([results[i].text.strip() for i in unsure], [sorted(keys[i]) for i in unsure])
        for i, similarity in zip(unsure, similar):
            results[i] = settle(results[i], similarity)
    return [SentenceCheck(r.text, r.start, r.end, r.supported, r.reason, r.missing, r.closest) for r in results]
