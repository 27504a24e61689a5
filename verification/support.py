"""Claim support: is each sentence of an answer backed by its evidence?

Pure Python, no Django, no model: lexical checks that run in well under a
millisecond per sentence, designed for the two ways a generated sentence goes
wrong in this product — a changed number and an invented name or claim.

A sentence is *unsupported* when, checked against the evidence text:

1. a quantity in it (``10日``, ``6ヶ月後``, ``¥15,000``, ``1万5千円``, ``9:00``,
   ``３日前``, ``十日``) does not occur in the evidence with the same value and
   unit (and, if the sentence says before/after/at least..., a compatible
   qualifier) — whatever else matches — or occurs only about something else
   (``当日朝10:00まで`` against ``コアタイムは10:00〜15:00``: no word of the
   sentence on the number's line or the line before);
2. a term it quotes (``「勤怠くん」``) is not in the evidence;
3. it names something the evidence never mentions: a Latin word that does not
   occur in it (``Slack``, ``SAP``), or kanji/katakana terms the evidence lacks
   that together carry too much information (:data:`INVENTION_SCORE`). A term
   is weighed by its surprisal under a web-scale language model, less what the
   evidence explains of it (:mod:`verification.term_weights`): 理由, 影響, 発生,
   場合 are everyday words and weigh nothing; 総務部, 勤怠くん, 翌年度 do;
   Terms that are the answer's subject (the question's, or repeated across
   the answer's sentences: :func:`subject_terms`) weigh nothing either;
4. it contradicts the evidence sentence it restates: it is negated where that
   sentence is not, or the other way round (``できます`` / ``できません``,
   ``必要`` / ``不要``);
5. (English against English evidence) too few of its content words occur.

Between "clearly supported" and "clearly invented" lies a band where the words
cannot decide (:data:`UNSURE_SCORE` to :data:`INVENTION_SCORE`): such a sentence is marked ``unsure``. :func:`verification.verdict.verify`
settles it by meaning when it has sentence embeddings
(:mod:`verification.meaning`); without them, by :data:`LEXICAL_SCORE`.

Abstentions and connective sentences (``以下の通りです。``) are not claims.
English sentences checked against Japanese evidence are judged on their
quantities only (their words cannot be compared). Precision, recall and
false-alarm curves on the project's labelled sets and on real LLM answers
(JHARS): ``python -m qa.evaluation.support_calibration``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from verification.citations import file_names_in
from verification.grounding import is_abstention, is_lead_in
from verification.quantities import Quantity, extract_quantities, quantity_in, scan_quantities, states
from ragportal import text as plain_text
from ragportal.words import ENGLISH_STOP_WORDS
from ragportal.text import (
    HIRAGANA,
    KANJI,
    KATAKANA,
    MIDDLE_DOT,
    TABLE_ROW,
    TABLE_RULE,
    is_english,
    is_katakana,
    looks_like_citation,
    nfkc,
    table_cells,
)
from verification.term_weights import residual_surprisal, surprisal
from verification.textnorm import fold_nfkc, normalize

# Katakana words joined by ・ (キーボード・マウス) are one run.
_KATAKANA_CLASS = KATAKANA + MIDDLE_DOT
_CJK_RE = re.compile(f"[{KANJI}{_KATAKANA_CLASS}{HIRAGANA}]")
_LATIN_LETTER_RE = re.compile("[A-Za-z]")
_CONTENT_RUN_RE = re.compile(f"[{KANJI}{_KATAKANA_CLASS}a-z]+")

__all__ = [
    "Evidence",
    "EvidencePiece",
    "SentenceSupport",
    "check_sentence",
    "check_support",
    "extract_quantities",
    "split_sentences",
]


# --- Evidence -----------------------------------------------------------------

# Words an answer adds around its claims that the evidence need not contain.
_STOCK_WORDS = (
    "以下",
    "下記",
    "上記",
    "記載",
    "資料",
    "文書",
    "出典",
    "参照",
    "回答",
    "質問",
    "確認",
    "記述",
    "内容",
    "該当",
    "情報",
    "参考",
    "詳細",
    "詳しく",
    "以上",
    "次",
    "通り",
    "ドキュメント",
    "ファイル",
    "ページ",
)
_STOCK_RE = re.compile("|".join(sorted(map(re.escape, _STOCK_WORDS), key=len, reverse=True)))
_QUOTED_RE = re.compile(r"[「『“\"]([^「」『』“”\"\n]{1,60})[」』”\"]")
_LATIN_TOKEN_RE = re.compile(r"[a-z][a-z0-9]*(?:[\-_.][a-z0-9]+)*")
_CITATION_STRIP_RE = re.compile(r"[(（\[［](?:[^()（）\[\]［］\n]{0,120})[)）\]］]")
_MARKDOWN_RE = re.compile(r"^\s*(?:[-*・•]|#+|\d+[.)])\s*|\*\*|__|`")
# English words that carry no claim: the stop words and the words that name a source.
_ENGLISH_STOPWORDS = ENGLISH_STOP_WORDS | frozenset("according document documents source sources based".split())

# An evidence text longer than this is still indexed whole; the cap only bounds
# memory for pathological inputs.
_MAX_EVIDENCE_CHARS = 200_000
# A number in the evidence is "about" the words of its line and of the line
# before (a heading, or a sentence broken by PDF extraction), at most this many
# characters either side of it; in a table row, also about the table's header row (:func:`_said_about`).
_CONTEXT_CHARS = 150


class _EvidenceSentence(NamedTuple):
    text: str
    bigrams: frozenset[str]
    negations: int


class EvidencePiece:
    """One evidence text, pre-processed on demand (a verdict processes each chunk once).

    Only the folded text is computed up front; character pairs, quantities and
    Latin words are computed the first time a sentence needs them.
    """

    def __init__(self, text: str) -> None:
        self.nfkc = nfkc(text[:_MAX_EVIDENCE_CHARS])
        self.flat = fold_nfkc(self.nfkc)
        self._contexts: dict[int, str] = {}
        self._headers: dict[int, tuple[str, ...]] = {}  # a table row's start → its table's header cells

    @classmethod
    def of(cls, text: str) -> EvidencePiece:
        return cls(text)

    @cached_property
    def bigrams(self) -> frozenset[str]:
        flat = self.flat
        return frozenset(map(str.__add__, flat, flat[1:]))

    @cached_property
    def quantities(self) -> tuple[Quantity, ...]:
        return tuple(extract_quantities(self.nfkc, already_nfkc=True))

    @cached_property
    def latin_words(self) -> frozenset[str]:
        if not _LATIN_LETTER_RE.search(self.nfkc):
            return frozenset()
        return frozenset(_stem(w) for w in _LATIN_TOKEN_RE.findall(fold_nfkc(self.nfkc, keep_whitespace=True)))

    @cached_property
    def cjk_chars(self) -> int:
        return len(_CJK_RE.findall(self.flat))

    @cached_property
    def sentences(self) -> tuple[_EvidenceSentence, ...]:
        """The piece's sentences (NFKC text, folded character pairs, negated?)."""
        out = []
        for span in plain_text.split_sentences(self.nfkc, strip_markers=True):
            text = self.nfkc[span.start : span.end].strip()
            flat = fold_nfkc(text)
            if len(flat) >= 2:
                out.append(_EvidenceSentence(text, frozenset(map(str.__add__, flat, flat[1:])), _negations(flat)))
        return tuple(out)

    def context(self, q: Quantity) -> str:
        """The folded text around an evidence quantity: what the number is said about."""
        around = self._contexts.get(q.start)
        if around is None:
            text = self.nfkc
            line_start = text.rfind("\n", 0, q.start) + 1
            line_end = text.find("\n", q.start)
            line_end = len(text) if line_end < 0 else line_end
            # Include the previous non-blank line: a heading or the first half of a
            # sentence that PDF extraction broke.
            previous = line_start - 1
            while previous > 0 and text[previous - 1] in " \t\r\n\u3000":
                previous -= 1
            if previous > 0:
                line_start = text.rfind("\n", 0, previous) + 1
            start = max(line_start, q.start - _CONTEXT_CHARS)
            end = min(line_end, q.start + len(q.text) + _CONTEXT_CHARS)
            around = self._contexts[q.start] = fold_nfkc(text[start:end])
        return around

    def header_cells(self, q: Quantity) -> tuple[str, ...]:
        """The folded cells of the header row of the table whose row states ``q``; () outside a table.

        「| 3年以上5年未満 | 16日 |」 says 16日 about its column, 付与日数, named only in the header row
        above it: an answer that shows the row under its header (「付与日数: 16日」) says the same.
        """
        row = self.table_row(q.start)
        if row is None:
            return ()
        cells = self._headers.get(row)
        if cells is None:
            header = self._table_header(row)
            cells = self._headers[row] = (
                tuple(fold_nfkc(cell) for cell in table_cells(header) if cell) if header else ()
            )
        return cells

    def table_row(self, at: int) -> int | None:
        """Where the table row holding offset ``at`` starts; None when its line is no table row."""
        text = self.nfkc
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        return (
            line_start if TABLE_ROW.match(text[line_start : len(text) if line_end < 0 else line_end].strip()) else None
        )

    def _table_header(self, row: int) -> str:
        """The header row (its first line) of the table whose row starts at ``row``; "" when its first line is a rule."""
        text, line_start, header = self.nfkc, row, ""
        while line_start > 0:
            previous_start = text.rfind("\n", 0, line_start - 1) + 1
            previous = text[previous_start : line_start - 1].strip()
            if not TABLE_ROW.match(previous):
                break
            header, line_start = previous, previous_start
        return "" if TABLE_RULE.match(header) else header


class Evidence:
    """Evidence texts for checking many sentences against them (union of :class:`EvidencePiece`)."""

    def __init__(self, texts: list[str], *, names: tuple[str, ...] | list[str] = ()) -> None:
        self._init([EvidencePiece(t) for t in texts], names)

    @classmethod
    def from_pieces(cls, pieces: list[EvidencePiece], names: tuple[str, ...] | list[str] = ()) -> Evidence:
        """Evidence made of already processed texts."""
        evidence = cls.__new__(cls)
        evidence._init(pieces, names)
        return evidence

    def _init(self, pieces: list[EvidencePiece], names: tuple[str, ...] | list[str]) -> None:
        self.pieces = pieces
        # The evidence's own file names and their base names ("attendance" for
        # attendance.md) are citations when a sentence uses them, not new terms.
        self.names = frozenset(
            form for name in names for form in (normalize(name), normalize(name).rpartition(".")[0]) if form
        )
        # Texts are joined with NUL so that no match spans two chunks.
        self.flat = "\x00".join(p.flat for p in pieces)
        self.empty = not self.flat.strip("\x00")

    @cached_property
    def bigrams(self) -> frozenset[str]:
        if len(self.pieces) == 1:
            return self.pieces[0].bigrams
        return frozenset().union(*(p.bigrams for p in self.pieces))

    @cached_property
    def quantities(self) -> list[Quantity]:
        return [q for p in self.pieces for q in p.quantities]

    @cached_property
    def latin_words(self) -> frozenset[str]:
        return frozenset().union(*(p.latin_words for p in self.pieces))

    @cached_property
    def japanese(self) -> bool:
        """Mostly Japanese text (at least a fifth of its characters are kana or kanji)."""
        return sum(p.cjk_chars for p in self.pieces) >= max(1, len(self.flat) // 5)

    def contains(self, folded: str) -> bool:
        return folded in self.flat

    def knows(self, folded: str) -> bool:
        """Does the evidence contain this folded term (or part of one)?"""
        if len(folded) == 2:
            return folded in self.bigrams
        return folded in self.flat or folded in self.names

    @cached_property
    def sentences(self) -> tuple[_EvidenceSentence, ...]:
        return tuple(s for p in self.pieces for s in p.sentences)

    @cached_property
    def _postings(self) -> dict[str, list[int]]:
        """Character pair → the evidence sentences holding it (for :meth:`closest_sentence`)."""
        postings: dict[str, list[int]] = {}
        for i, sentence in enumerate(self.sentences):
            for gram in sentence.bigrams:
                postings.setdefault(gram, []).append(i)
        return postings

    def closest_sentence(
        self, text: str, *, folded: bool = False, negated_only: bool = False
    ) -> tuple[str, float, float]:
        """The evidence sentence holding the largest share of ``text``'s character pairs.

        Returns ``(sentence, share of text's pairs in it, share of its pairs in
        text)``; ``("", 0.0, 0.0)`` when there is none. With ``negated_only``
        only evidence sentences with a negation are candidates.
        """
        flat = text if folded else fold_nfkc(nfkc(text))
        grams = frozenset(map(str.__add__, flat, flat[1:]))
        if not grams or (negated_only and not any(s.negations for s in self.sentences)):
            return "", 0.0, 0.0
        counts: dict[int, int] = {}
        postings = self._postings
        for gram in grams:
            for i in postings.get(gram, ()):
                counts[i] = counts.get(i, 0) + 1
        sentences = self.sentences
        candidates = [(n, -i) for i, n in counts.items() if not negated_only or sentences[i].negations]
        if not candidates:
            return "", 0.0, 0.0
        found, minus_i = max(candidates)
        best = sentences[-minus_i]
        return best.text, found / len(grams), found / max(1, len(best.bigrams))


@dataclass
class SentenceSupport:
    """The support verdict for one answer sentence.

    ``start``/``end`` are offsets into the text given to :func:`check_support`.
    ``reason`` is one of ``supported``, ``abstention``, ``connective`` (these
    two are not claims), ``no_evidence``, ``number_not_in_evidence``,
    ``number_out_of_context``, ``quoted_term_not_in_evidence``,
    ``unknown_term``, ``contradiction``, ``low_overlap`` (and, set by the
    meaning check, ``meaning_not_in_evidence``);
    ``missing`` lists what was not found (quantities or terms as written).
    ``score`` is the weight of the terms the evidence lacks (nats beyond the
    everyday; 0 for none, :data:`STRICT_SCORE` when a strict rule failed).
    ``unsure``: the words alone cannot decide (see the module docstring).
    ``closest`` is the evidence sentence the sentence is closest to, when one
    was looked for (unsupported and unsure sentences).
    """

    text: str
    start: int
    end: int
    supported: bool
    reason: str
    claim: bool = True
    missing: list[str] = field(default_factory=list)
    coverage: float | None = None
    score: float = 0.0
    unsure: bool = False
    closest: str = ""


# Below this share of its content words found in the evidence, an English
# sentence checked against English evidence is an added claim.
MIN_COVERAGE = 0.5
# A term whose surprisal (nats) is at most this is an everyday word: its absence
# from the evidence is paraphrase, not invention. One vocabulary piece of the
# language model is 10-15 nats (理由 11.9, 発生 13.5, プロセス 14.6); names,
# codes and rare compounds cost 20 and more (総務部 35, 勤怠くん 41).
COMMON_SURPRISAL = 15.0
# Invention score (sum over the terms the evidence lacks of their surprisal
# beyond COMMON_SURPRISAL): at or above INVENTION_SCORE a sentence is
# unsupported on its words alone; from UNSURE_SCORE it is unsure, and without
# a meaning check unsupported from LEXICAL_SCORE. Chosen on jhars-dev and the
# dev half of verification/labelled, then read on its holdout half
# (python -m qa.evaluation.support_calibration): below 15 the unsure band holds almost
# only faithful sentences of real LLM answers; from 60 only names and numbers
# remain; words alone at 25 keep false alarms under 4% of faithful sentences.
UNSURE_SCORE = 15.0
LEXICAL_SCORE = 25.0
INVENTION_SCORE = 60.0
# The score given when a strict rule (number, quote, Latin name) failed.
STRICT_SCORE = 999.0


@dataclass(frozen=True)
class SupportThresholds:
    """The operating point of the support check (defaults: the module constants)."""

    unsure: float = UNSURE_SCORE
    lexical: float = LEXICAL_SCORE
    invention: float = INVENTION_SCORE


DEFAULT_THRESHOLDS = SupportThresholds()


def split_sentences(answer: str) -> list[tuple[int, int]]:
    """``(start, end)`` spans of the sentences of ``answer``, list markers and citations included.

    See :func:`ragportal.text.split_sentences`; every non-whitespace character
    of the answer is in exactly one sentence, so every claim gets checked.
    """
    return [(s.start, s.end) for s in plain_text.split_sentences(answer)]


def check_support(
    answer: str,
    evidence: list[str],
    *,
    sources: list[str] | tuple[str, ...] = (),
    thresholds: SupportThresholds = DEFAULT_THRESHOLDS,
    question: str = "",
) -> list[SentenceSupport]:
    """Judge every sentence of ``answer`` against the ``evidence`` texts (see module docstring).

    ``sources`` are the evidence's file names: a sentence naming one of them
    (or its base name, ``attendanceの資料``) cites, it does not claim. Unsure
    sentences are decided on their words (no meaning check here). The
    answer's subject (:func:`subject_terms`) is not invention.
    """
    index = Evidence(evidence, names=sources)
    spans = split_sentences(answer)
    subject = subject_terms([answer[s:e] for s, e in spans], question)
    return [check_sentence(answer[s:e], index, start=s, thresholds=thresholds, subject=subject) for s, e in spans]


class SubjectTerms:
    """What an answer is about: kanji/katakana terms of the question, and those the answer uses in two sentences.

    An answer restates its question's subject (スパゲティ, 蒸気機関車) in
    sentence after sentence though its evidence need not name it; an invented
    detail comes once. Folded terms, as :func:`_term_weight` sees them;
    computed on the first question asked (most answers never need them).
    """

    def __init__(self, sentences: list[str], question: str = "") -> None:
        self._sentences = sentences
        self._question = question

    @cached_property
    def terms(self) -> frozenset[str]:
        seen: dict[str, int] = {}
        for sentence in self._sentences:
            for term in _terms(sentence):
                seen[term] = seen.get(term, 0) + 1
        return frozenset(t for t, n in seen.items() if n >= 2) | _terms(self._question)

    def __contains__(self, term: object) -> bool:
        return term in self.terms


def subject_terms(sentences: list[str], question: str = "") -> SubjectTerms:
    """The answer's subject (see :class:`SubjectTerms`)."""
    return SubjectTerms(sentences, question)


def _terms(text: str) -> frozenset[str]:
    if not text:
        return frozenset()
    _quantities, rest = scan_quantities(_strip_citations(nfkc(text)))
    return frozenset(
        _weighed_form(term)
        for run in _content_runs(rest)
        if not run.isascii()
        for term in _SCRIPT_RUN_RE.findall(run)
        if len(term) >= 2
    )


def check_sentence(
    sentence: str,
    evidence: Evidence,
    *,
    start: int = 0,
    thresholds: SupportThresholds = DEFAULT_THRESHOLDS,
    subject: SubjectTerms | frozenset[str] = frozenset(),
) -> SentenceSupport:
    """Judge one sentence against pre-processed ``evidence``; offsets are shifted by ``start``.

    An unsure sentence is decided by ``thresholds.lexical``; a caller with a
    meaning check may decide it again (:func:`verification.meaning.settle`).
    ``subject``: terms that are the answer's subject (:func:`subject_terms`).
    """
    j = _judge(sentence, evidence, thresholds, subject)
    supported = j.supported
    reason = j.reason
    if j.unsure and supported and j.score >= thresholds.lexical:
        supported, reason = False, "unknown_term"
    closest = ""
    if j.claim and (j.unsure or not supported) and not evidence.empty:
        closest = evidence.closest_sentence(sentence)[0]
    return SentenceSupport(
        sentence,
        start,
        start + len(sentence),
        supported,
        reason,
        j.claim,
        j.missing or [],
        j.coverage,
        round(j.score, 2),
        j.unsure,
        closest,
    )


class _Judgement(NamedTuple):
    """What :class:`SentenceSupport` says about a sentence, without where the sentence is."""

    supported: bool
    reason: str
    missing: list[str] | None = None
    coverage: float | None = None
    claim: bool = True
    score: float = 0.0
    unsure: bool = False


_CONNECTIVE = _Judgement(True, "connective", claim=False)


def _strict(supported: bool, reason: str, missing: list[str] | None = None) -> _Judgement:
    return _Judgement(supported, reason, missing, score=0.0 if supported else STRICT_SCORE)


def _judge(
    sentence: str, evidence: Evidence, thresholds: SupportThresholds, subject: SubjectTerms | frozenset[str]
) -> _Judgement:
    """The checks of the module docstring, in order: the first that fails decides.

    Abstentions and sentences with no quantity and under two content
    characters are not claims; with no evidence every claim is unsupported.
    """
    if is_abstention(sentence) or is_lead_in(sentence):
        return _Judgement(True, "abstention", claim=False)
    body = _strip_citations(nfkc(sentence))
    quantities, rest = scan_quantities(body)
    content = _content_runs(rest)
    if not quantities and sum(len(r) for r in content) < 2:
        return _CONNECTIVE
    if evidence.empty:
        return _strict(False, "no_evidence")

    missing_numbers = [q.text for q in quantities if not quantity_in(q, evidence.quantities) and not _is_count(q, body)]
    if missing_numbers:
        return _strict(False, "number_not_in_evidence", missing_numbers)
    # An English sentence may name the Japanese system or term it is about (勤怠くん);
    # its other words still cannot be compared with Japanese evidence.
    english = is_english(body, mixed_share=0.2)
    if english and evidence.japanese:
        return _Judgement(True, "supported")
    return (
        _misplaced_numbers([q for q in quantities if not _is_count(q, body)], content, evidence, body)
        or _missing_quotes(body, evidence)
        or (
            _english_overlap(body, evidence)
            if english
            else _content_overlap(body, content, evidence, thresholds, subject)
        )
    )


# What follows a bare number that counts the items an answer lists ("2つの団体", "3種類").
_COUNT_RE = re.compile(r"\s?(?:つ|種類|点|項目|通り)")


def _is_count(q: Quantity, body: str) -> bool:
    """A bare small number counting what the answer enumerates: the answer's own tally, not a fact to check."""
    return not q.unit and q.value <= 10 and bool(_COUNT_RE.match(body, q.start + len(q.text)))


def _misplaced_numbers(
    quantities: list[Quantity], content: list[str], evidence: Evidence, body: str
) -> _Judgement | None:
    """Unsupported when a quantity of the sentence occurs in the evidence only about something else.

    Also when two of its clauses swap their values: "休憩時間は9:00〜18:00、
    標準勤務時間は12:00〜13:00" — each number is in the evidence, but said about
    the other clause's words.
    """
    misplaced = [q.text for q in quantities if not _said_about(q, content, evidence)]
    misplaced = misplaced or _swapped(quantities, evidence, body) or _rows_apart(quantities, evidence)
    return _strict(False, "number_out_of_context", misplaced) if misplaced else None


def _rows_apart(quantities: list[Quantity], evidence: Evidence) -> list[str]:
    """The quantities of a sentence that the evidence states only in table rows, and on no row together.

    「勤続年数: 2年6ヶ月 / 付与日数: 14日」 takes 2年6ヶ月 from one row and 14日 from another: each is in the
    table, under the words of its header, but the table pairs neither with the other.
    """
    if len(quantities) < 2:
        return []
    rows: list[set[tuple[int, int | None]]] = []
    for q in quantities:
        found = {
            (index, piece.table_row(e.start))
            for index, piece in enumerate(evidence.pieces)
            for e in piece.quantities
            if states(e, q)
        }
        if not found or any(row is None for _, row in found):
            return []  # said in prose, or not at all: not a pairing only a table makes
        rows.append(found)
    return [] if set.intersection(*rows) else [q.text for q in quantities]


_CLAUSE_END_RE = re.compile(r"[、，,;；。]")


def _swapped(quantities: list[Quantity], evidence: Evidence, body: str) -> list[str]:
    """Quantities whose own clause's words the evidence never puts near them, but puts near another clause's number."""
    if len(quantities) < 2:
        return []
    cuts = [0, *(m.end() for m in _CLAUSE_END_RE.finditer(body)), len(body) + 1]
    clause_of = {id(q): next(i for i in range(len(cuts) - 1) if cuts[i] <= q.start < cuts[i + 1]) for q in quantities}
    if len(set(clause_of.values())) < 2:
        return []
    probes: dict[int, set[str]] = {}
    for index in set(clause_of.values()):
        runs = _content_runs(body[cuts[index] : cuts[index + 1]])
        probes[index] = {run[i : i + 2] for run in runs if not run.isascii() for i in range(len(run) - 1)}
    shared = set.intersection(*probes.values())
    swapped = []
    for q in quantities:
        own = probes[clause_of[id(q)]] - shared
        others = [o for o in quantities if clause_of[id(o)] != clause_of[id(q)]]
        if own and not _near(q, own, evidence) and any(_near(o, own, evidence) for o in others):
            swapped.append(q.text)
    return swapped


def _near(q: Quantity, probes: set[str], evidence: Evidence) -> bool:
    """Does some occurrence of ``q`` in the evidence have one of ``probes`` in its context?"""
    return any(
        states(e, q) and any(p in piece.context(e) for p in probes)
        for piece in evidence.pieces
        for e in piece.quantities
    )


def _missing_quotes(body: str, evidence: Evidence) -> _Judgement | None:
    """Unsupported when a term the sentence quotes (「勤怠くん」) is not in the evidence."""
    missing = [q for q in _QUOTED_RE.findall(body) if fold_nfkc(q) and not evidence.contains(fold_nfkc(q))]
    return _strict(False, "quoted_term_not_in_evidence", missing) if missing else None


def _english_overlap(body: str, evidence: Evidence) -> _Judgement:
    """An English sentence against evidence not in Japanese: enough of its content words (stemmed) must occur."""
    words = [
        w
        for w in _LATIN_TOKEN_RE.findall(fold_nfkc(body, keep_whitespace=True))
        if len(w) > 2 and w not in _ENGLISH_STOPWORDS
    ]
    if not words:
        return _CONNECTIVE
    found = [w for w in words if _stem(w) in evidence.latin_words]
    coverage = len(found) / len(words)
    if coverage < MIN_COVERAGE:
        return _Judgement(False, "low_overlap", [w for w in words if w not in found], coverage, score=STRICT_SCORE)
    return _Judgement(True, "supported", coverage=coverage)


def _content_overlap(
    body: str,
    content: list[str],
    evidence: Evidence,
    thresholds: SupportThresholds,
    subject: SubjectTerms | frozenset[str],
) -> _Judgement:
    """A Japanese (or mixed) sentence: no unknown Latin name, little invented, no negation flipped.

    Unsure: the weight of what the evidence lacks is in the unsure band. A
    sentence of everyday words only is paraphrase or framing, however little
    of it the evidence repeats (real LLM answers: low overlap alone flagged
    one faithful sentence in eight).
    """
    coverage, unknown, weighed = _content_coverage(content, evidence, subject)
    if unknown:
        return _Judgement(False, "unknown_term", unknown, coverage, score=STRICT_SCORE)
    score = sum(weight for _term, weight in weighed)
    heaviest = [term for term, _weight in sorted(weighed, key=lambda tw: -tw[1])]
    if score >= thresholds.invention:
        return _Judgement(False, "unknown_term", heaviest, coverage, score=score)
    flipped = _contradiction(body, evidence)
    if flipped is not None:
        return _Judgement(False, "contradiction", [flipped], coverage, score=STRICT_SCORE)
    unsure = score >= thresholds.unsure
    return _Judgement(True, "supported", heaviest or None, coverage, score=score, unsure=unsure)


def _content_coverage(
    content: list[str], evidence: Evidence, subject: SubjectTerms | frozenset[str] = frozenset()
) -> tuple[float, list[str], list[tuple[str, float]]]:
    """``(coverage, unknown Latin names, (term, weight) of terms the evidence lacks)`` of the content runs.

    Coverage is the share of the runs' character pairs found in the evidence
    (a Latin word counts whole, a lone character by itself); 1.0 for no content.
    A kanji or katakana term's weight is its surprisal beyond the everyday
    (:data:`COMMON_SURPRISAL`), counting only what the evidence does not
    contain of it; terms of weight 0 are left out.
    """
    unknown: list[str] = []
    weighed: list[tuple[str, float]] = []
    hits = total = 0
    bigrams = evidence.bigrams
    for run in content:
        if run.isascii():
            # Latin words are compared whole: their letter pairs occur everywhere.
            size = max(1, len(run) - 1)
            found = evidence.contains(run) or run in evidence.names
            hits += size if found else 0
            total += size
            if not found and len(run) >= 2:
                unknown.append(run)
            continue
        if len(run) == 1:
            hits += run in evidence.flat
            total += 1
            continue
        grams = list(map(str.__add__, run, run[1:]))
        hits += sum(map(bigrams.__contains__, grams))
        total += len(grams)
        if len(run) >= 3 and run[-1] in _ORGANISATION_SUFFIXES and not evidence.contains(run):
            # A department or office (人事部, 情報システム部) is a name however common its words.
            weighed.append((run, INVENTION_SCORE))
            continue
        for term in _SCRIPT_RUN_RE.findall(run):
            weight = _term_weight(term, evidence, subject)
            if weight > 0:
                weighed.append((term, weight))
    return (hits / total if total else 1.0), unknown, weighed


def _weighed_form(term: str) -> str:
    """The part of a kanji term that is weighed: without a generic suffix (基本的 → 基本)."""
    if len(term) > 2 and not is_katakana(term[0]):
        return term.rstrip(_KANJI_SUFFIXES) or term
    return term


def _term_weight(term: str, evidence: Evidence, subject: SubjectTerms | frozenset[str] = frozenset()) -> float:
    """How much a kanji/katakana term the evidence may lack carries (0 for what it contains or says everyday)."""
    if len(term) < 2 or term.isascii():
        return 0.0
    term = _weighed_form(term)
    if len(term) < 2 or term in _GENERIC_KANJI or term in _GENERIC_KATAKANA:
        return 0.0
    if is_katakana(term[0]) and len(term.strip("ー")) < 2:
        return 0.0
    if term in evidence.bigrams or term in evidence.names or (len(term) > 2 and evidence.contains(term)):
        return 0.0
    if surprisal(term) <= COMMON_SURPRISAL or term in subject:
        return 0.0
    return max(0.0, residual_surprisal(term, evidence.knows) - COMMON_SURPRISAL)


# Negation, after the obligations that are written with it (しなければならない) are removed.
_OBLIGATION_RE = re.compile(
    r"(?:なければ|なくては|なくちゃ|ないと)(?:なら|いけ|だめ)(?:ない|ません)|少な|危な|間違いな"
    # Permission is written with a negation too: 問題ありません, 構いません, 差し支えない.
    r"|(?:問題|差し支え|差支え)(?:は|が)?(?:ない|ありません|無い)|構わない|構いません"
)
_NEGATION_RE = re.compile(r"(?<!つ)ない|無い|ません|(?<![ま必わ])ず[、。]|不可|不要|禁止|なし|無し")


def _negations(folded: str) -> int:
    """How many negations a folded sentence has (one more or one fewer flips what it says)."""
    return len(_NEGATION_RE.findall(_OBLIGATION_RE.sub("", folded)))


def _contradiction(body: str, evidence: Evidence) -> str | None:
    """The evidence sentence that this sentence restates with the opposite polarity, if any.

    Only a close restatement counts (:data:`_RESTATEMENT` of its character
    pairs in that one evidence sentence): "申請は不要です" against "申請が必要です".
    """
    folded = fold_nfkc(body)
    if evidence.contains(folded.rstrip("。.!！?？")):
        return None  # a quote cannot contradict what it quotes
    negations = _negations(folded)
    # An affirmative sentence can only contradict a negated one: look among those alone (cheap).
    closest, share, covered = evidence.closest_sentence(folded, folded=True, negated_only=not negations)
    if share < _RESTATEMENT or covered < _RESTATED or not closest:
        return None
    if negations != _negations(fold_nfkc(nfkc(closest))):
        return closest
    return None


# Share of a sentence's character pairs that one evidence sentence must hold for
# the sentence to be a restatement of it (for the negation check).
_RESTATEMENT = 0.7
# ... and the share of that evidence sentence's pairs the sentence must repeat
# (a heading is not a restatement of every sentence that mentions its topic).
_RESTATED = 0.6


def _said_about(q: Quantity, content: list[str], evidence: Evidence) -> bool:
    """Is some occurrence of ``q`` in the evidence near words of the sentence?

    "当日朝10:00までに連絡" is not backed by "コアタイムは10:00〜15:00": the
    number occurs, but about something else. A sentence with no words of its
    own ("10日です。") cannot be placed and passes.
    """
    probes = [run for run in content if run.isascii() and len(run) >= 2]
    probes += [run[i : i + 2] for run in content if not run.isascii() for i in range(len(run) - 1)]
    if not probes:
        return True
    for piece in evidence.pieces:
        for e in piece.quantities:
            if states(e, q):
                around = piece.context(e)
                if any(probe in around for probe in probes):
                    return True
                # A table row's value is said about its header: the sentence names two of its columns or more
                # (「勤続年数: 3年以上5年未満 / 付与日数: 16日」), not merely a word one column shares with it.
                cells = piece.header_cells(e)
                if sum(any(probe in cell for probe in probes) for cell in cells) >= 2:
                    return True
    return False


def _strip_citations(text: str) -> str:
    """Drop what cites rather than claims: file names, citation brackets, Markdown markers (NFKC text in)."""
    if _BRACKET_RE.search(text):
        text = _CITATION_STRIP_RE.sub(lambda m: " " if looks_like_citation(m.group(0)) else m.group(0), text)
    if "." in text:
        for name in file_names_in(text):
            text = text.replace(name, " ")
    return _MARKDOWN_RE.sub(" ", text)


_BRACKET_RE = re.compile(r"[(\[（［]")


def _content_runs(rest: str) -> list[str]:
    """Maximal runs of kanji/katakana/Latin letters (folded) of NFKC text whose quantities are blanked."""
    return _CONTENT_RUN_RE.findall(_STOCK_RE.sub(" ", fold_nfkc(rest, keep_whitespace=True)))


_SCRIPT_RUN_RE = re.compile(f"[a-z]+|[{_KATAKANA_CLASS}]+|[{KANJI}]+")
# Katakana words an answer uses generically, not as names of things.
_GENERIC_KATAKANA = frozenset(
    {
        "システム",
        "ルール",
        "ケース",
        "ポイント",
        "サービス",
        "ツール",
        "データ",
        "メール",
        # Units: the number they measure is checked by the quantity rule.
        "メートル",
        "キロメートル",
        "センチメートル",
        "ミリメートル",
        "キログラム",
        "グラム",
        "パーセント",
        "リットル",
    }
)
# Kanji suffixes that turn any word into an adjective/noun (基本的, 可能性) or a
# time/place phrase (経過後, 期間内), and common words of answers that name nothing.
_KANJI_SUFFIXES = "的性化等中上後前間内外"
# The last character of an organisation's name: 人事部, 総務課, 経営企画室, 消費者庁.
_ORGANISATION_SUFFIXES = "部課室局係庁省"
_GENERIC_KANJI = frozenset({"大丈夫", "具体例", "一般論", "原則論"})


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
