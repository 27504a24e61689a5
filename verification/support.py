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
3. it names something the evidence never mentions: a Latin or katakana word
   that does not occur in it (``Slack``, ``レシート``), a kanji compound of three or
   more characters none of whose character pairs occurs in it (``総務部``), or
   two or more two-kanji words that do not (``残業`` … ``承認``);
4. too little of its content (character pairs of its kanji/katakana/Latin
   words) occurs in the evidence — an added claim.

Abstentions and connective sentences (``以下の通りです。``) are not claims.
English sentences checked against Japanese evidence are judged on their
quantities only (their words cannot be compared). Precision and recall on a
labelled set built from the demo corpus: ``python -m verification.bench``.
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
from ragportal.text import is_english, looks_like_citation, nfkc
from verification.textnorm import fold_nfkc, is_kanji, is_katakana, normalize

_KANJI_CLASS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff々"
_KATAKANA_CLASS = "\u30a0-\u30ff\u31f0-\u31ff"
_CJK_RE = re.compile(f"[{_KANJI_CLASS}{_KATAKANA_CLASS}\u3041-\u309f]")
_LATIN_LETTER_RE = re.compile("[A-Za-z]")
_CONTENT_RUN_RE = re.compile(f"[{_KANJI_CLASS}{_KATAKANA_CLASS}a-z]+")

__all__ = ["Evidence", "EvidencePiece", "SentenceSupport", "check_sentence", "check_support",
           "extract_quantities", "split_sentences"]


# --- Evidence -----------------------------------------------------------------

# Words an answer adds around its claims that the evidence need not contain.
_STOCK_WORDS = (
    "以下", "下記", "上記", "記載", "資料", "文書", "出典", "参照", "回答", "質問", "確認", "記述", "内容",
    "該当", "情報", "参考", "詳細", "詳しく", "以上", "次", "通り", "ドキュメント", "ファイル", "ページ",
)
_STOCK_RE = re.compile("|".join(sorted(map(re.escape, _STOCK_WORDS), key=len, reverse=True)))
_QUOTED_RE = re.compile(r"[「『“\"]([^「」『』“”\"\n]{1,60})[」』”\"]")
_LATIN_TOKEN_RE = re.compile(r"[a-z][a-z0-9]*(?:[\-_.][a-z0-9]+)*")
_CITATION_STRIP_RE = re.compile(
    r"[(（\[［](?:[^()（）\[\]［］\n]{0,120})[)）\]］]"
)
_MARKDOWN_RE = re.compile(r"^\s*(?:[-*・•]|#+|\d+[.)])\s*|\*\*|__|`")
_ENGLISH_STOPWORDS = frozenset(
    "a an the of to in on at for from by with and or is are was were be been it its this that these those "
    "you your we our they their can may must should will would please as if not no yes do does than "
    "according document documents source sources based".split()
)

# An evidence text longer than this is still indexed whole; the cap only bounds
# memory for pathological inputs.
_MAX_EVIDENCE_CHARS = 200_000
# A number in the evidence is "about" the words of its line and of the line
# before (a heading, or a sentence broken by PDF extraction), at most this many
# characters either side of it.
_CONTEXT_CHARS = 150


class EvidencePiece:
    """One evidence text, pre-processed on demand (a verdict processes each chunk once).

    Only the folded text is computed up front; character pairs, quantities and
    Latin words are computed the first time a sentence needs them.
    """

    def __init__(self, text: str) -> None:
        self.nfkc = nfkc(text[:_MAX_EVIDENCE_CHARS])
        self.flat = fold_nfkc(self.nfkc)
        self._contexts: dict[int, str] = {}

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


@dataclass
class SentenceSupport:
    """The support verdict for one answer sentence.

    ``start``/``end`` are offsets into the text given to :func:`check_support`.
    ``reason`` is one of ``supported``, ``abstention``, ``connective`` (these
    two are not claims), ``no_evidence``, ``number_not_in_evidence``,
    ``number_out_of_context``, ``quoted_term_not_in_evidence``,
    ``unknown_term``, ``low_overlap``;
    ``missing`` lists what was not found (quantities or terms as written).
    """

    text: str
    start: int
    end: int
    supported: bool
    reason: str
    claim: bool = True
    missing: list[str] = field(default_factory=list)
    coverage: float | None = None


# Below this share of content character pairs found in the evidence, a
# sentence is an added claim (tuned on verification/labelled/support.jsonl).
MIN_COVERAGE = 0.5
# Two-character kanji words (残業, 承認) are the commonest words of Japanese; one
# new word is usually paraphrase (必要, 番号), two or more is a new claim.
MAX_NEW_WORDS = 2


def split_sentences(answer: str) -> list[tuple[int, int]]:
    """``(start, end)`` spans of the sentences of ``answer``, list markers and citations included.

    See :func:`ragportal.text.split_sentences`; every non-whitespace character
    of the answer is in exactly one sentence, so every claim gets checked.
    """
    return [(s.start, s.end) for s in plain_text.split_sentences(answer)]


def check_support(
    answer: str, evidence: list[str], *, sources: list[str] | tuple[str, ...] = ()
) -> list[SentenceSupport]:
    """Judge every sentence of ``answer`` against the ``evidence`` texts (see module docstring).

    ``sources`` are the evidence's file names: a sentence naming one of them
    (or its base name, ``attendanceの資料``) cites, it does not claim.
    """
    index = Evidence(evidence, names=sources)
    return [check_sentence(answer[s:e], index, start=s) for s, e in split_sentences(answer)]


def check_sentence(sentence: str, evidence: Evidence, *, start: int = 0) -> SentenceSupport:
    """Judge one sentence against pre-processed ``evidence``; offsets are shifted by ``start``."""
    judgement = _judge(sentence, evidence)
    return SentenceSupport(
        sentence,
        start,
        start + len(sentence),
        judgement.supported,
        judgement.reason,
        judgement.claim,
        judgement.missing or [],
        judgement.coverage,
    )


class _Judgement(NamedTuple):
    """What :class:`SentenceSupport` says about a sentence, without where the sentence is."""

    supported: bool
    reason: str
    missing: list[str] | None = None
    coverage: float | None = None
    claim: bool = True


_CONNECTIVE = _Judgement(True, "connective", claim=False)


def _judge(sentence: str, evidence: Evidence) -> _Judgement:
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
        return _Judgement(False, "no_evidence")

    missing_numbers = [q.text for q in quantities if not quantity_in(q, evidence.quantities)]
    if missing_numbers:
        return _Judgement(False, "number_not_in_evidence", missing_numbers)
    # An English sentence may name the Japanese system or term it is about (勤怠くん);
    # its other words still cannot be compared with Japanese evidence.
    english = is_english(body, mixed_share=0.2)
    if english and evidence.japanese:
        return _Judgement(True, "supported")
    return (
        _misplaced_numbers(quantities, content, evidence)
        or _missing_quotes(body, evidence)
        or (_english_overlap(body, evidence) if english else _content_overlap(content, evidence))
    )


def _misplaced_numbers(quantities: list[Quantity], content: list[str], evidence: Evidence) -> _Judgement | None:
    """Unsupported when a quantity of the sentence occurs in the evidence only about something else."""
    misplaced = [q.text for q in quantities if not _said_about(q, content, evidence)]
    return _Judgement(False, "number_out_of_context", misplaced) if misplaced else None


def _missing_quotes(body: str, evidence: Evidence) -> _Judgement | None:
    """Unsupported when a term the sentence quotes (「勤怠くん」) is not in the evidence."""
    missing = [q for q in _QUOTED_RE.findall(body) if fold_nfkc(q) and not evidence.contains(fold_nfkc(q))]
    return _Judgement(False, "quoted_term_not_in_evidence", missing) if missing else None


def _english_overlap(body: str, evidence: Evidence) -> _Judgement:
    """An English sentence against evidence not in Japanese: enough of its content words (stemmed) must occur."""
    words = [
        w for w in _LATIN_TOKEN_RE.findall(fold_nfkc(body, keep_whitespace=True))
        if len(w) > 2 and w not in _ENGLISH_STOPWORDS
    ]
    if not words:
        return _CONNECTIVE
    found = [w for w in words if _stem(w) in evidence.latin_words]
    coverage = len(found) / len(words)
    if coverage < MIN_COVERAGE:
        return _Judgement(False, "low_overlap", [w for w in words if w not in found], coverage)
    return _Judgement(True, "supported", coverage=coverage)


def _content_overlap(content: list[str], evidence: Evidence) -> _Judgement:
    """A Japanese (or mixed) sentence: no unknown name, few new two-kanji words, enough shared content."""
    coverage, unknown, new_words = _content_coverage(content, evidence)
    if unknown:
        return _Judgement(False, "unknown_term", unknown, coverage)
    if len(new_words) >= MAX_NEW_WORDS:
        return _Judgement(False, "unknown_term", new_words, coverage)
    if coverage < MIN_COVERAGE:
        return _Judgement(False, "low_overlap", coverage=coverage)
    return _Judgement(True, "supported", coverage=coverage)


def _content_coverage(content: list[str], evidence: Evidence) -> tuple[float, list[str], list[str]]:
    """``(coverage, unknown names, new two-kanji words)`` of the sentence's content runs.

    Coverage is the share of the runs' character pairs found in the evidence
    (a Latin word counts whole, a lone character by itself); 1.0 for no content.
    """
    unknown: list[str] = []
    new_words: list[str] = []
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
        for term in _SCRIPT_RUN_RE.findall(run):
            if len(term) == 2 and is_kanji(term[0]):
                if term not in bigrams:
                    new_words.append(term)
            elif _is_named_term(term) and not _term_found(term, evidence):
                unknown.append(term)
    return (hits / total if total else 1.0), unknown, new_words


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
    return False


def _strip_citations(text: str) -> str:
    """Drop what cites rather than claims: file names, citation brackets, Markdown markers (NFKC text in)."""
    if _BRACKET_RE.search(text):
        text = _CITATION_STRIP_RE.sub(
            lambda m: " " if looks_like_citation(m.group(0)) else m.group(0), text
        )
    if "." in text:
        for name in file_names_in(text):
            text = text.replace(name, " ")
    return _MARKDOWN_RE.sub(" ", text)


_BRACKET_RE = re.compile(r"[(\[（［]")


def _content_runs(rest: str) -> list[str]:
    """Maximal runs of kanji/katakana/Latin letters (folded) of NFKC text whose quantities are blanked."""
    return _CONTENT_RUN_RE.findall(_STOCK_RE.sub(" ", fold_nfkc(rest, keep_whitespace=True)))


def _is_named_term(term: str) -> bool:
    """Is this single-script term a name whose absence from the evidence changes what the sentence is about?

    Latin words of two or more letters and katakana words of three or more
    (product, system and place names), and kanji compounds of three or more
    characters (人事部, 翌年度) once a generic suffix (基本的, 可能性) is stripped.
    """
    if term.isascii():
        return len(term) >= 2
    if is_katakana(term[0]):
        return len(term.strip("ー")) >= 3 and term not in _GENERIC_KATAKANA
    stem = term.rstrip(_KANJI_SUFFIXES)
    return len(stem) >= 3 and stem not in _GENERIC_KANJI


def _term_found(term: str, evidence: Evidence) -> bool:
    """Latin and katakana names must occur whole; a kanji compound needs one of its pairs."""
    if evidence.contains(term) or term in evidence.names:
        return True
    if term.isascii() or is_katakana(term[0]):
        return False
    stem = term.rstrip(_KANJI_SUFFIXES)
    return any(stem[i : i + 2] in evidence.bigrams for i in range(len(stem) - 1))


_SCRIPT_RUN_RE = re.compile(f"[a-z]+|[{_KATAKANA_CLASS}]+|[{_KANJI_CLASS}]+")
# Katakana words an answer uses generically, not as names of things.
_GENERIC_KATAKANA = frozenset({"システム", "ルール", "ケース", "ポイント", "サービス", "ツール", "データ", "メール"})
# Kanji suffixes that turn any word into an adjective/noun (基本的, 可能性) or a
# time/place phrase (経過後, 期間内), and common words of answers that name nothing.
_KANJI_SUFFIXES = "的性化等中上後前間内外"
_GENERIC_KANJI = frozenset({"大丈夫", "具体例", "一般論", "原則論"})


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
