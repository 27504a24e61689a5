"""What to do with a question once its hits are in: answer, ask back, or say "not found". One place.

Pure Python, no Django, no I/O: :func:`decide` reads the analysed question
(:class:`qa.question.Question`), what retrieval found (:class:`Evidence`) and
the corpus's :class:`Calibration`, and returns a :class:`Decision` naming the
rules that produced it, so "why was this asked back?" has a one-line answer.

The rules, in the order they are tried:

1. Off-topic (→ not found) when nothing retrieved is close to the question:
   ``REASON_NO_HITS`` (nothing the user may read), ``REASON_ENGLISH_UNKNOWN_SUBJECT``, ``REASON_ENGLISH_NAMES_NOTHING`` (an
   English question: no glossary or document word, and its best chunk below
   the English floor), ``REASON_UNKNOWN_NAME`` (the question names a
   company, person or place that nothing the user may read names:
   「ソニーの育児休業は？」 or 「What is Sony's parental leave?」 asks about another
   company's rules, however close our own 育児休業 rule is in meaning), ``REASON_UNKNOWN_WORD`` (it uses a word
   nothing the user may read uses, and no hit is even as close as 中 needs:
   「忘年会の会費は？」; or every noun it names is such a word, and on a measured
   corpus nothing is closer than 高's chunk or calibration's off-topic sentences:
   「ロッカーの鍵をなくしたら？」), ``REASON_UNKNOWN_SUBJECT`` (a Japanese question whose
   subject is in nothing the user may read, and no sentence confidently close),
   ``REASON_NO_CLOSE_SENTENCE`` (no chunk confidently close and no sentence
   above the floor), ``REASON_UNREADABLE_WORD`` (it uses a word that only
   documents the asker may not read use, and no hit is confidently close),
   ``REASON_NOTHING_RECOMMENDED`` (it asks what is recommended, 「おすすめの…は？」,
   and the best hit recommends nothing: rules are no recommendation).
   ``REASON_ASPECT_ONLY`` overrides them for a question
   whose words single out no document and whose subject is not unknown
   (「締め切りはいつ？」), or that names nothing but asks for a date or an amount
   (「何日前？」): which document is meant is the question to ask.
2. Ask back (→ ask back) a short question over several documents:
   ``REASON_GENERIC`` (its words single out none) or ``REASON_TIED`` (their best
   scores within the clarify gap, and the best hit at least as close as 中 needs).
   Never when the user chose one document. Documents that tie on a question whose
   subject is a word none of them uses are no choice to offer
   (``REASON_TIED_WITHOUT_SUBJECT`` → not found): 「社内サークルの部費は月いくら？」 over a
   handbook that never writes 部費 ties two expense pages through 社内 and サークル.
3. Otherwise ``REASON_ON_TOPIC`` → answer (the provider writes it).

After the provider has written and verification has checked the answer, one
rule more (:func:`answer_stands`): an answer sharing none of the question's key
terms, quoting a passage not even as close as 中 needs, is about something
else: ``REASON_NO_FITTING_ANSWER`` → not found.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from qa.types import RetrievedChunk

if TYPE_CHECKING:
    from qa.question import Question

ANSWER = "answer"
ASK_BACK = "ask_back"
NOT_FOUND = "not_found"

REASON_NO_HITS = "no_hits"
REASON_ENGLISH_UNKNOWN_SUBJECT = "english_unknown_subject"
REASON_ENGLISH_NAMES_NOTHING = "english_names_nothing"
REASON_UNKNOWN_SUBJECT = "unknown_subject"
REASON_UNKNOWN_NAME = "unknown_name"
REASON_UNKNOWN_WORD = "unknown_word"
REASON_NO_CLOSE_SENTENCE = "no_close_sentence"
REASON_NOTHING_RECOMMENDED = "nothing_recommended"
REASON_UNREADABLE_WORD = "unreadable_word"
REASON_ASPECT_ONLY = "aspect_only"
REASON_GENERIC = "generic"
REASON_TIED = "tied"
REASON_TIED_WITHOUT_SUBJECT = "tied_without_subject"
REASON_ONE_DOCUMENT = "one_document"
REASON_ON_TOPIC = "on_topic"
REASON_NO_FITTING_ANSWER = "no_fitting_answer"

MAX_OPTIONS = 4


@dataclass(frozen=True)
class Calibration:
    """The thresholds :func:`decide` and the confidence steps use.

    ``off_topic_floor``: question–sentence similarity below which a Japanese
    question is off-topic (0 turns the off-topic rules off); ``english_floor``:
    the same for an English question's best chunk; ``confident``: a chunk this
    similar keeps the question on topic (and is the 高 retrieval threshold);
    ``medium``: the 中 retrieval threshold; ``clarify_gap``: relative score gap
    within which two documents tie. ``unknown_word_sentence``: the closest any
    everyday off-topic question came to a sentence of the corpus (qa.calibration);
    a question with a word the documents never use stays on topic only when one of
    its hits' sentences is closer than that (1.0, the default without a measured
    corpus: never). ``source`` says where the values came from.
    """

    off_topic_floor: float
    english_floor: float
    confident: float
    medium: float
    clarify_gap: float
    source: str = "settings"
    unknown_word_sentence: float = 1.0

    @property
    def off_topic_sentences_measured(self) -> bool:
        """Whether the corpus was measured for how close everyday off-topic questions come to its sentences."""
        return self.unknown_word_sentence < 1.0

    @classmethod
    def from_settings(cls) -> Calibration:
        """The values configured in settings (RAG_OFF_TOPIC_SIMILARITY, ...)."""
        from django.conf import settings

        return cls(
            off_topic_floor=settings.RAG_OFF_TOPIC_SIMILARITY,
            english_floor=settings.RAG_OFF_TOPIC_SIMILARITY_EN,
            confident=settings.RAG_CONFIDENCE_HIGH,
            medium=settings.RAG_CONFIDENCE_MEDIUM,
            clarify_gap=settings.RAG_CLARIFY_GAP,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "off_topic_floor": self.off_topic_floor,
            "english_floor": self.english_floor,
            "confident": self.confident,
            "medium": self.medium,
            "clarify_gap": self.clarify_gap,
            "unknown_word_sentence": self.unknown_word_sentence,
            "source": self.source,
        }


def _no_sentences() -> float:
    return 0.0


@dataclass(frozen=True)
class Evidence:
    """What retrieval found, as :func:`decide` reads it.

    ``best_sentence`` gives the highest question–sentence similarity among the
    hits' sentences; it is called only when a rule needs it (it may embed the
    question). ``names_something``: an English question names a word the
    glossary or the hits use (``qa.retrieval.names_something_retrieved``).
    ``unknown_names``: the names of the question (its proper nouns; an English
    question's owners, Toyota's) that nothing the user may read names;
    ``unknown_words``: its other nouns that nothing the user may read uses and
    no vocabulary match or expansion reached (``qa.vocabulary.unknown_words``);
    ``unknown_among_known``: the question also names a noun the documents use, and no
    unknown word qualifies one as 「X の Y」 (``qa.vocabulary.unknown_words_asked_with_known_ones``).
    """

    hits: Sequence[RetrievedChunk]
    subject_unknown: bool = False
    unknown_names: tuple[str, ...] = ()
    unknown_words: tuple[str, ...] = ()
    # The unknown words are asked with words the documents use, not as someone else's (qa.vocabulary).
    unknown_among_known: bool = False
    # Unknown words that documents the asker may not read use (a managers-only manual's 自己評価).
    unreadable_words: tuple[str, ...] = ()
    generic: bool = False
    one_document: bool = False
    names_something: bool = False
    # The best hit recommends something (推奨, お勧め): what a question asking for a recommendation needs.
    recommends: bool = False
    best_sentence: Callable[[], float] = field(default=_no_sentences, compare=False)

    @property
    def top_chunk(self) -> float:
        """The closest hit's dense similarity to the question (its chunk; there must be a hit)."""
        return max(h.similarity for h in self.hits)


@dataclass(frozen=True)
class Decision:
    """The outcome (:data:`ANSWER`, :data:`ASK_BACK`, :data:`NOT_FOUND`) and the rules that produced it.

    ``options``: for an ask-back, one hit per document to offer, best first.
    """

    outcome: str
    reasons: tuple[str, ...]
    options: tuple[RetrievedChunk, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "reasons": list(self.reasons)}


def decide(question: Question, evidence: Evidence, calibration: Calibration) -> Decision:
    """Answer, ask back or not found for ``question`` given ``evidence`` (see the module docstring)."""
    off_topic = off_topic_reason(question, evidence, calibration)
    reasons: tuple[str, ...] = ()
    if (
        off_topic is not None
        and evidence.generic
        and not evidence.subject_unknown
        and not evidence.unknown_names
        and (question.terms or question.whole.types)
    ):
        # 「締め切りはいつ？」: only an aspect several documents have; ask which one, do not abstain.
        # 「何日前？」 names no term at all, yet asks for a date: about what is the question to ask.
        reasons = (off_topic, REASON_ASPECT_ONLY)
        off_topic = None
    if off_topic is not None:
        return Decision(NOT_FOUND, (off_topic,))
    if evidence.one_document:
        return Decision(ANSWER, (*reasons, REASON_ONE_DOCUMENT))
    options, why = ask_back_options(
        evidence.hits, gap=calibration.clarify_gap, short=question.short, generic=evidence.generic
    )
    # Documents that tie only far from the question (none even as close as 中 needs) are no choice to
    # offer: 「車通勤の許可はどうやって取る？」 over a handbook with no such rule ties two benefit guides.
    # The question is answered, and the answer then has to stand (:func:`answer_stands`). A question
    # whose words single out no document (generic) is asked back however close: which one is meant.
    if options and why == REASON_TIED and _subject_unknown_to_all(question, evidence, calibration):
        return Decision(NOT_FOUND, (*reasons, REASON_TIED_WITHOUT_SUBJECT))
    if options and (why != REASON_TIED or evidence.top_chunk >= calibration.medium):
        return Decision(ASK_BACK, (*reasons, why), tuple(options))
    return Decision(ANSWER, (*reasons, REASON_ON_TOPIC))


def _subject_unknown_to_all(question: Question, evidence: Evidence, calibration: Calibration) -> bool:
    """Whether what the question is about (the head of its subject) is a word nothing the user may read uses.

    Then documents that tie on its other words (「社内サークルの部費は」: 社内, サークル) tie on what
    it is not about, and asking which of them is meant offers only documents that do not say. A
    sentence closer than calibration's everyday off-topic questions came to the corpus
    (:func:`_closer_than_off_topic`) says otherwise: a tie there is between documents that answer.
    Only on a measured corpus: without that measurement, nothing tells them apart, and they are offered.
    """
    if not question.subject_terms or not evidence.unknown_words or not calibration.off_topic_sentences_measured:
        return False
    head = question.subject_terms[-1]
    return any(word in head for word in evidence.unknown_words) and not _closer_than_off_topic(evidence, calibration)


def answer_stands(*, retrieval: str, shared_terms: float | None, two_part: bool = False) -> bool:
    """Whether a checked answer is shown, rather than said to be not found.

    Not when the passage it quotes is not even as close to the question as 中 needs
    (``retrieval`` "low") and the answer, read with the headings it stands under, shares not one
    of the question's key terms (``shared_terms`` 0, verification.answer_fit's coverage): it is
    about something else. 「新大阪から東京まで新幹線で何分？」 over a handbook that writes 新幹線 and 大阪
    and gives no travel time gets the 「片道90分」 of a commute rule; the documents do not say.
    Either alone keeps the answer (at 中 or 低, with its warning): a close passage worded otherwise,
    or a sentence sharing the question's words in a weakly retrieved passage, is often right. A
    two-part question may be answered in one part only (``shared_terms`` is its weaker part's),
    and an English one's terms are not compared (None).
    """
    return not (retrieval == "low" and shared_terms == 0 and not two_part)


def off_topic_reason(question: Question, evidence: Evidence, calibration: Calibration) -> str | None:
    """The rule that makes ``question`` off-topic, or None when it is on topic.

    Near enough: a hit's dense similarity (its chunk, embedded under its title
    and section) at least ``confident``, or a sentence of a hit at least
    ``off_topic_floor`` similar to the question. Sentences tell off-topic
    questions apart better than whole chunks, but a sentence lacks its heading,
    so a confidently retrieved chunk keeps the question on topic. An English
    question is not judged by sentence similarity (across languages the same
    meaning scores lower): it is off-topic when its subject is unknown, or when
    it names nothing the glossary or the hits name and its best chunk is below
    ``english_floor``.
    """
    if not evidence.hits:
        return REASON_NO_HITS
    if evidence.unknown_names:
        return REASON_UNKNOWN_NAME
    if question.recommendation and not evidence.recommends:
        # 「おすすめの転職エージェントは？」: documents that recommend nothing do not answer it, however close.
        return REASON_NOTHING_RECOMMENDED
    if calibration.off_topic_floor <= 0:
        return None
    top_chunk = evidence.top_chunk
    if evidence.unreadable_words and top_chunk < calibration.confident:
        # 「人事評価の自己評価はいつまでに入力する？」 asked by an employee of a company whose managers' manual alone
        # writes 自己評価: no everyday wording (the company writes it), and nothing the asker may read covers it.
        # Said as "not found", as for any question the documents do not answer: nothing tells what is hidden.
        return REASON_UNREADABLE_WORD
    if question.english:
        if evidence.subject_unknown:
            return REASON_ENGLISH_UNKNOWN_SUBJECT
        if not evidence.names_something and top_chunk < calibration.english_floor:
            return REASON_ENGLISH_NAMES_NOTHING
        return None
    if evidence.unknown_words and not _closer_than_off_topic(evidence, calibration):
        if top_chunk < calibration.medium or _names_only_unknown(evidence, calibration, top_chunk):
            # 「忘年会の会費は？」: a word the documents never use, and nothing retrieved even medium close;
            # or 「ロッカーの鍵をなくしたら？」: no word they use, and nothing retrieved closely.
            return REASON_UNKNOWN_WORD
    best_sentence = evidence.best_sentence()
    if best_sentence < calibration.confident and evidence.subject_unknown:
        return REASON_UNKNOWN_SUBJECT
    if top_chunk >= calibration.confident:
        return None
    return REASON_NO_CLOSE_SENTENCE if best_sentence < calibration.off_topic_floor else None


def _names_only_unknown(evidence: Evidence, calibration: Calibration, top_chunk: float) -> bool:
    """Whether the question is about something the documents never name, and nothing retrieved says otherwise.

    Every noun it names is unknown, or an unknown one owns the rest (``unknown_among_known`` false):
    a chunk as close as 中 needs is then near only in general meaning (losing a key, for a ロッカー).
    A chunk as close as 高 needs, or a sentence closer than calibration's everyday off-topic
    questions came to the corpus, keeps it on topic. Only on a measured corpus.
    """
    return (
        not evidence.unknown_among_known
        and calibration.off_topic_sentences_measured
        and top_chunk < calibration.confident
        and evidence.best_sentence() <= calibration.unknown_word_sentence
    )


def _closer_than_off_topic(evidence: Evidence, calibration: Calibration) -> bool:
    """Whether a hit's sentence is closer to the question than any everyday off-topic question came to the corpus.

    An everyday word the documents never use (「USBメモリ」 where they write USB
    フラッシュドライブ, 「手土産」 where they write ギフト) does not make a question off
    topic when a sentence answers it more closely than calibration's off-topic
    questions (weather, recipes, sport) got to any sentence of the same corpus.
    Only when the question also names something the documents use, and not as
    another party's (``unknown_among_known``: 「楽天の有給休暇は？」 is close to our own
    有給休暇 sentences, and still not about them). Without a measured corpus
    (``unknown_word_sentence`` 1.0) never, and the sentences are then not embedded.
    """
    return (
        evidence.unknown_among_known
        and calibration.off_topic_sentences_measured
        and evidence.best_sentence() > calibration.unknown_word_sentence
    )


def ask_back_options(
    hits: Sequence[RetrievedChunk],
    *,
    gap: float,
    short: bool = True,
    generic: bool = False,
    max_options: int = MAX_OPTIONS,
) -> tuple[list[RetrievedChunk], str]:
    """The documents to offer when the question does not say which one it means, and the rule; ([], "") if none.

    Only a ``short`` question is asked back (a longer one says enough; when its
    top documents tie, either answers it), and then in two cases. ``generic``
    (its words single out no document, :func:`qa.ambiguity.is_generic`): every
    document among the hits is an option (``REASON_GENERIC``). Or the best hit
    of another document scores within ``gap`` (relative) of the top hit: the
    tied documents are the options (``REASON_TIED``). One option per document
    (its first hit, the one shown), best first, at most ``max_options``; never
    a single option.
    """
    if not short or len(hits) < 2:
        return [], ""
    # Per document: its first hit (the one shown) and its best score. The
    # re-ranker may put a document's lower-scored chunk first.
    first: dict[int, RetrievedChunk] = {}
    best: dict[int, float] = {}
    for h in hits:
        first.setdefault(h.document_id, h)
        best[h.document_id] = max(best.get(h.document_id, h.score), h.score)
    top = max(best.values())
    if generic:
        options, why = list(first.values()), REASON_GENERIC
    elif gap > 0 and top > 0:
        options, why = [h for doc, h in first.items() if (top - best[doc]) / top < gap], REASON_TIED
    else:
        return [], ""
    options.sort(key=lambda h: -best[h.document_id])
    return (options[:max_options], why) if len(options) > 1 else ([], "")


def clarification_options(
    hits: Sequence[RetrievedChunk],
    *,
    gap: float,
    short: bool = True,
    generic: bool = False,
    max_options: int = MAX_OPTIONS,
) -> list[RetrievedChunk]:
    """:func:`ask_back_options` without the rule's name."""
    return ask_back_options(hits, gap=gap, short=short, generic=generic, max_options=max_options)[0]
