"""The offline, deterministic default provider: answers by quoting sentences.

It never writes text of its own except the abstention sentence: every answer
block is a sentence copied from a retrieved chunk and cited by its exact
character span, so the answer is grounded by construction. Importable without
Django settings.

Scoring, per sentence of every chunk:

- lexical coverage: the share of the question's tokens (character bigrams of
  Japanese text, words of Latin text, NFKC-normalised, lower-cased) that the
  sentence contains, each token weighted by its rarity among the candidate
  sentences (so 「有給」 outweighs 「した」) and hiragana-only bigrams down-weighted
  (particles and endings carry little meaning); plus a smaller share for the
  best-covered expansion term;
- a bonus when the sentence carries the kind of fact the question asks for
  (a number for 何日/いくら/いつ/how many, a procedure for 方法/手続き/how to, ...);
- a small prior for higher-ranked chunks; penalties for headings and fragments.

When the best sentence's lexical coverage is below ``threshold`` the answer
is the abstention sentence, with no citations.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from qa.providers.base import abstention_text, elapsed_ms, sentence_separator
from qa.types import AnswerBlock, Citation, ProviderAnswer, RetrievedChunk
from ragportal.text import fold, split_sentences

DEFAULT_THRESHOLD = 0.2
MAX_SENTENCES = 3
STRICT_MAX_SENTENCES = 1

_HIRAGANA = re.compile(r"^[\u3040-\u309f]+$")
_LATIN_WORD = re.compile(r"[a-z0-9]+")
_CJK_RUN = re.compile(r"[^\W\d_a-z]+")
_LATIN_STOPWORDS = frozenset(
    "a an and are as at be by can do does did for from has have how i in is it its many much of on or "
    "the this that to was were what when where which who whom why will with you your me my our we".split()
)
# Interrogatives and question endings carry no content to match.
_QUESTION_CHARS = frozenset("何誰")
_QUESTION_BIGRAMS = frozenset(
    ["どこ", "いつ", "いく", "くら", "どう", "うや", "やっ", "って", "すか", "ます", "どの", "のよ", "よう", "うに", "どれ", "れく", "らい"]
)

_NUMBER = re.compile(r"[0-9０-９一二三四五六七八九十百千万億]")
_DIGIT_UNIT = re.compile(r"[0-9０-９一二三四五六七八九十百千万億]+\s*(日|時|回|年|月|人|歳|円|%|％|分|週|ヶ月|か月|カ月|個|件|倍|度|割|名)")


@dataclass(frozen=True)
class _FactType:
    """A kind of fact a question asks for and how to recognise it in a sentence."""

    name: str
    question: re.Pattern[str]
    sentence: re.Pattern[str]
    bonus: float


_FACT_TYPES: tuple[_FactType, ...] = (
    _FactType(
        "number",
        re.compile(
            r"何(日|時|回|年|月|人|歳|円|分|週|ヶ月|か月|カ月|個|件|倍|度|割|名|%|パーセント|番|位|代|枚|本|台|キロ|メートル)|"
            r"いくら|いくつ|いつ|どのくらい|どれくらい|どれだけ|"
            r"\bhow (many|much|long|often|old)\b|\bwhen\b|\bwhat (time|date|year)\b"
        ),
        _NUMBER,
        0.12,
    ),
    _FactType(
        "procedure",
        re.compile(r"どうやって|どのように|どうすれば|方法|手続|手順|やり方|申請するには|\bhow (do|to|can|should)\b"),
        re.compile(r"申請|提出|手続|連絡|から行|ください|必要|手順|方法|利用|(す|し)ること"),
        0.08,
    ),
    _FactType(
        "place",
        re.compile(r"どこ|\bwhere\b"),
        re.compile(r"[国県市町村区州島部課室窓口所館場]|システム|サイト"),
        0.05,
    ),
    _FactType(
        "person",
        re.compile(r"誰|だれ|\bwho\b"),
        re.compile(r"[者氏長員官王帝]|さん|担当|[\u30a0-\u30ff]{3,}"),
        0.05,
    ),
)


def tokens(text: str, *, question: bool = False) -> dict[str, float]:
    """Tokens of ``text`` with their intrinsic weights (before rarity weighting).

    Japanese runs give character bigrams (a lone kanji gives a unigram);
    Latin text gives words. With ``question=True`` interrogatives
    (何, 誰, どこ, いつ, ...) and Latin stop words are dropped.
    """
    norm = fold(text)
    result: dict[str, float] = {}
    for word in _LATIN_WORD.findall(norm):
        if word in _LATIN_STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        result["w:" + word] = 1.0
    for run in _CJK_RUN.findall(norm):
        if len(run) == 1:
            if not _HIRAGANA.match(run) and not (question and run in _QUESTION_CHARS):
                result.setdefault(run, 0.7)
            continue
        for i in range(len(run) - 1):
            bigram = run[i : i + 2]
            if question and (bigram[0] in _QUESTION_CHARS or bigram[1] in _QUESTION_CHARS or bigram in _QUESTION_BIGRAMS):
                continue
            if _HIRAGANA.match(bigram):
                weight = 0.2
            elif _HIRAGANA.match(bigram[0]) or _HIRAGANA.match(bigram[1]):
                # A particle glued to a word (「休暇の」, 「の申」): weaker evidence.
                weight = 0.5
            else:
                weight = 1.0
            if result.get(bigram, 0.0) < weight:
                result[bigram] = weight
    return result


@dataclass(frozen=True)
class _Candidate:
    chunk_index: int
    start: int
    end: int
    text: str
    lexical: float
    score: float


def _asked_fact_types(question: str) -> list[_FactType]:
    norm = fold(question)
    return [fact for fact in _FACT_TYPES if fact.question.search(norm)]


def _fact_bonus(question: str, sentence: str, facts: list[_FactType]) -> float:
    bonus = 0.0
    norm_sentence = fold(sentence)
    for fact in facts:
        if fact.sentence.search(norm_sentence):
            bonus += fact.bonus
            if fact.name == "number":
                # 何日 → a number followed by 日 is the strongest evidence.
                asked_unit = re.search(r"何(日|時|回|年|月|人|歳|円|分|週|ヶ月|か月|カ月|個|件|倍|度|割|名)", fold(question))
                if asked_unit:
                    units = [m.group(1) for m in _DIGIT_UNIT.finditer(norm_sentence)]
                    if asked_unit.group(1) in units:
                        bonus += 0.08
                elif "いくら" in question and re.search(r"[0-9０-９]\s*円", norm_sentence):
                    bonus += 0.08
    return bonus


@dataclass(frozen=True)
class _Sentence:
    """A sentence of a retrieved chunk, with its span in the chunk and its tokens."""

    chunk_index: int
    start: int
    end: int
    heading: bool
    text: str
    tokens: dict[str, float]


def _sentences(chunks: Sequence[RetrievedChunk]) -> tuple[list[_Sentence], list[dict[str, float]]]:
    """Every sentence of every chunk, and per chunk the tokens of what it is about.

    What a chunk is about (its section, title and heading lines) counts, at
    half weight, for each of its sentences: under 「## 有給休暇」 the sentence
    「申請は…から行います」 answers 「有給休暇の申請方法は？」.
    """
    sentences: list[_Sentence] = []
    contexts: list[dict[str, float]] = []
    for chunk_index, chunk in enumerate(chunks):
        headings = [chunk.section, chunk.title]
        for sentence in split_sentences(chunk.text, strip_markers=True):
            text = chunk.text[sentence.start : sentence.end]
            sentences.append(_Sentence(chunk_index, sentence.start, sentence.end, sentence.heading, text, tokens(text)))
            if sentence.heading:
                headings.append(text)
        contexts.append(tokens(" ".join(h for h in headings if h)))
    return sentences, contexts


@dataclass(frozen=True)
class _Query:
    """The question as the scorer sees it: its tokens and the expansion terms' weighted by rarity."""

    text: str
    weights: dict[str, float]
    total: float
    term_weights: list[dict[str, float]]
    # An English question over Japanese text matches nothing by itself: then
    # the (Japanese) expansion terms are the whole query.
    matches: bool
    facts: list[_FactType]

    @classmethod
    def over(cls, sentences: list[_Sentence], question: str, expanded_terms: Sequence[str]) -> _Query:
        """Token weights times their rarity (inverse document frequency) among ``sentences``."""
        doc_freq: dict[str, int] = {}
        for sentence in sentences:
            for token in sentence.tokens:
                doc_freq[token] = doc_freq.get(token, 0) + 1
        total = len(sentences)

        def weighted(query: dict[str, float]) -> dict[str, float]:
            return {t: w * math.log((total + 1) / (doc_freq.get(t, 0) + 0.5)) for t, w in query.items()}

        weights = weighted(tokens(question, question=True))
        return cls(
            text=question,
            weights=weights,
            total=sum(weights.values()),
            term_weights=[q for q in (weighted(tokens(term)) for term in expanded_terms) if q],
            matches=any(t in doc_freq for t in weights),
            facts=_asked_fact_types(question),
        )


class ExtractiveProvider:
    """Answers by quoting the best-matching sentences of the retrieved chunks.

    Deterministic: the same question and chunks give the same answer. No
    network, no key. ``history`` is accepted for interface compatibility and
    ignored (each question must stand on its own words).
    """

    name = "extractive"
    model = "extractive-v1"

    retrieval_weight = 0.5
    confident_similarity = 0.88
    confident_relaxation = 0.5

    def __init__(self, *, threshold: float = DEFAULT_THRESHOLD, max_sentences: int = MAX_SENTENCES) -> None:
        self.threshold = threshold
        self.max_sentences = max_sentences

    def generate(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        *,
        expanded_terms: Sequence[str] = (),
        strict: bool = False,
        history: Sequence[tuple[str, str]] = (),
    ) -> ProviderAnswer:
        """Quote 1–3 sentences that answer ``question`` (1 when ``strict``), or abstain."""
        started = time.perf_counter()
        candidates = self._rank(question, chunks, expanded_terms)
        limit = STRICT_MAX_SENTENCES if strict else self.max_sentences
        chosen = self._choose(candidates, limit, question, threshold=self._threshold_for(chunks))
        if not chosen:
            return ProviderAnswer(
                blocks=[AnswerBlock(text=abstention_text(question))],
                provider=self.name,
                model=self.model,
                abstained=True,
                latency_ms=elapsed_ms(started),
            )
        blocks = []
        for position, cand in enumerate(chosen):
            separator = "" if position == len(chosen) - 1 else sentence_separator(cand.text)
            blocks.append(
                AnswerBlock(
                    text=cand.text + separator,
                    citations=[Citation(cand.chunk_index, cand.text, cand.start, cand.end)],
                )
            )
        return ProviderAnswer(
            blocks=blocks,
            provider=self.name,
            model=self.model,
            usage={"candidates": len(candidates), "best_lexical": round(chosen[0].lexical, 4)},
            latency_ms=elapsed_ms(started),
        )

    # -- scoring -----------------------------------------------------------------

    def _rank(self, question: str, chunks: Sequence[RetrievedChunk], expanded_terms: Sequence[str]) -> list[_Candidate]:
        """All sentences of all chunks, scored, best first (ties: chunk rank, position)."""
        sentences, contexts = _sentences(chunks)
        if not sentences:
            return []
        query = _Query.over(sentences, question, expanded_terms)
        best_score = max((c.score for c in chunks), default=0.0)
        relevance = [
            (c.score / best_score) if best_score > 0 else 1.0 / (1 + i) for i, c in enumerate(chunks)
        ]
        candidates = [
            self._score(s, query, context=contexts[s.chunk_index], relevance=relevance[s.chunk_index])
            for s in sentences
        ]
        candidates.sort(key=lambda c: (-c.score, c.chunk_index, c.start))
        return candidates

    def _score(self, sentence: _Sentence, query: _Query, *, context: dict[str, float], relevance: float) -> _Candidate:
        """One sentence's lexical coverage of the question and its score (coverage plus bonuses and penalties).

        A question token found only in the chunk's context (headings) counts
        half; when the question matches no sentence at all (English over
        Japanese text), the expansion terms alone make the coverage.
        """
        found = sentence.tokens
        matched = sum(w if t in found else 0.5 * w for t, w in query.weights.items() if t in found or t in context)
        coverage = matched / query.total if query.total else 0.0
        term_coverage = max(
            (sum(w for t, w in q.items() if t in found) / sum(q.values()) for q in query.term_weights),
            default=0.0,
        )
        if query.matches:
            lexical = coverage + 0.25 * term_coverage
        else:
            lexical = 0.9 * term_coverage
        score = lexical + _fact_bonus(query.text, sentence.text, query.facts)
        # Retrieval already judged the chunks (densely, so paraphrases count):
        # a sentence of the best chunk starts ahead of one from a weak chunk.
        score += self.retrieval_weight * relevance
        if sentence.heading:
            score -= 0.3
            lexical -= 0.3
        if len(sentence.text) < 6:
            score -= 0.2
        return _Candidate(sentence.chunk_index, sentence.start, sentence.end, sentence.text, lexical, score)

    def _threshold_for(self, chunks: Sequence[RetrievedChunk]) -> float:
        """The lexical threshold, relaxed when dense retrieval is sure of its top chunk.

        A paraphrased question shares few characters with its answer; when the
        best chunk is semantically very close, fewer shared words suffice.
        """
        if chunks and chunks[0].similarity >= self.confident_similarity:
            return self.threshold * self.confident_relaxation
        return self.threshold

    def _choose(
        self, candidates: list[_Candidate], limit: int, question: str, *, threshold: float | None = None
    ) -> list[_Candidate]:
        """The best sentence, its context when it needs one, then close runners-up.

        A best sentence that merely restates the question, or opens with a
        pronoun (これ, その, 同...), usually has its answer (the subject) in
        the sentence before it, so that sentence is quoted first. At most
        ``limit`` sentences, no sentence twice.
        """
        threshold = self.threshold if threshold is None else threshold
        if not candidates or candidates[0].lexical < threshold:
            return []
        best = candidates[0]
        chosen = [best]
        if limit > 1 and _needs_context(best.text, question):
            previous = _previous_in_chunk(candidates, best)
            if previous is not None:
                chosen = [previous, best]
        # The best match names the topic but not the fact asked for (何日 and
        # no number): the chunk's best sentence that carries it completes it.
        facts = _asked_fact_types(question)
        if facts and len(chosen) < limit and not any(_fact_bonus(question, c.text, facts) for c in chosen):
            carrier = _fact_carrier(candidates, chosen, question, facts)
            if carrier is not None:
                chosen.append(carrier)
        seen = {fold(c.text) for c in chosen}
        for cand in candidates[1:]:
            if len(chosen) >= limit:
                break
            if cand.lexical < threshold or cand.score < 0.8 * best.score:
                break
            key = fold(cand.text)
            if key in seen:
                continue
            seen.add(key)
            chosen.append(cand)
        return chosen


_CONTEXT_OPENERS = re.compile(r"^(これ|それ|あれ|この|その|あの|同|こう|そう|彼|彼女|また、|なお、|しかし|ただし|一方)")


def _needs_context(sentence: str, question: str) -> bool:
    """True when a sentence cannot stand alone as an answer to ``question``.

    Either it starts with a pronoun or connective, or nearly everything it
    says is already in the question (the answer must then be nearby).
    """
    if _CONTEXT_OPENERS.match(fold(sentence)):
        return True
    sentence_tokens = {t: w for t, w in tokens(sentence).items() if w >= 1.0}
    if not sentence_tokens:
        return False
    question_tokens = tokens(question)
    novel = sum(1 for t in sentence_tokens if t not in question_tokens)
    return novel / len(sentence_tokens) < 0.3


def _fact_carrier(
    candidates: list[_Candidate], chosen: list[_Candidate], question: str, facts: list[_FactType]
) -> _Candidate | None:
    """The best sentence not yet chosen, in the best one's chunk, with a fact of a kind ``question`` asks for."""
    best = candidates[0]
    return next(
        (
            c
            for c in candidates
            if c.chunk_index == best.chunk_index and c.lexical > 0 and c not in chosen
            and _fact_bonus(question, c.text, facts) > 0
        ),
        None,
    )


def _previous_in_chunk(candidates: list[_Candidate], sentence: _Candidate) -> _Candidate | None:
    """The sentence just before ``sentence`` in its chunk, if any."""
    before = [c for c in candidates if c.chunk_index == sentence.chunk_index and c.end <= sentence.start]
    return max(before, key=lambda c: c.start, default=None)


__all__ = ["ExtractiveProvider", "tokens"]
