"""The question, analysed once: what every later stage of an answer reads instead of the raw text.

Pure Python, no Django. :func:`analyse_question` runs at the start of
``qa.services.answer_question`` and its :class:`Question` is handed to
retrieval, to :func:`qa.decision.decide`, to the provider and to the verifier;
none of them reads the question's language, parts or asked types again.

Where the rules live (each kind once):

- language: ``ragportal.text.is_english``;
- what a question asks for (answer types, units, two-part questions):
  ``verification.answer_types``;
- question words, stop words and script classes: ``ragportal.words``, ``ragportal.text``;
- content terms, aspect words (FACETS), question length: ``qa.ambiguity``;
- the subject before は: :data:`SUBJECT` and :data:`SUBJECT_WORD` here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from documents.vocabulary import inflected_starts, says_when
from qa.ambiguity import content_terms, is_facet, is_short
from ragportal.text import KANJI_IDEOGRAPHS, KATAKANA, MIDDLE_DOT, fold, is_english, spelled_out
from verification.answer_types import AskedPart, AskedQuestion, asks_recommendation, own_parts, question_parts

# The subject of a question: the words before its first topic particle (「本社の駐車場は…」).
# A later clause's subject counts too (「評価に納得できないとき、異議申し立ては…」).
SUBJECT = re.compile(r"(?:^|、)([^、。?？]{2,24}?)(?:は|って|とは)")
SUBJECT_WORD = re.compile(f"[{KANJI_IDEOGRAPHS}{KATAKANA}{MIDDLE_DOT}]{{2,}}|[a-z][a-z0-9-]+")
# 「何日ある？」 asks how many, not whether.
_ASKING = re.compile(r"何|幾")
# 「社員食堂ある？」, 「ランチ代の補助とかってある？」, 「住宅手当はありますか？」: whether a thing exists.
EXISTENCE = re.compile(
    f"([{KANJI_IDEOGRAPHS}{KATAKANA}{MIDDLE_DOT}]{{2,}})(?:とか|なんて)?(?:って|は|が|も)?(?:ある(?!程度|いは)|あります|あんの)"
)


# "Is there a cafeteria in the office?", "Do we have a dormitory?", "Does the company offer a shuttle bus?":
# whether a thing exists, asked in English (the thing: up to three words before a preposition or the end).
# "Do I have to report it?" asks what must be done: have to, get to, is no thing had.
ENGLISH_EXISTENCE = re.compile(
    r"\b(?:(?:is|are) there|do (?:we|you|i|employees|staff) (?:have|get)|does (?:the company|\w+) (?:have|offer|provide))"
    r" (?!to\b)(?:a |an |any |some )?((?:[a-z][a-z-]* ?){1,3}?)(?= (?:in|at|for|on|near|available|to|that|which|with|here)\b|[?.!,]|$)"
)


def existence_terms(text: str, *, english: bool) -> tuple[str, ...]:
    """The things ``text`` asks whether they exist (「社員食堂ある？」: 社員食堂; "Is there a gym?": gym), folded."""
    if english:
        return tuple(dict.fromkeys(t.strip() for t in ENGLISH_EXISTENCE.findall(fold(text)) if t.strip()))
    return tuple(dict.fromkeys(t for t in EXISTENCE.findall(fold(text)) if not _ASKING.search(t)))


@dataclass(frozen=True)
class Question:
    """One question as analysed once (see :func:`analyse_question`).

    - ``text``: as asked; ``spelled``: with spoken durations as documents write
      them (「2年半」 → 「2年6ヶ月」), the form the provider matches sentences against.
    - ``english``: written in English (no kana or kanji).
    - ``whole``: what the whole question asks for; ``parts``: a two-part question's
      parts, each standing alone (what retrieval searches and the provider answers
      part by part), ``(whole,)`` for one question.
    - ``asked``: the parts in their own words, as the verifier judges an answer.
    - ``terms``: content terms; ``subject_terms``: the words of the subject before
      は (empty when there is none); ``existence_terms``: the things whose existence is
      asked (「社員食堂ある？」: 社員食堂); ``aspect_words``: the terms that name only an
      aspect of a policy (申請, 期限, 上限…).
    - ``short``: too short to settle a tie between documents.
    - ``readings``: other spellings of the question's words (kana readings), when known.
    - ``recommendation``: it asks what is recommended (「おすすめの…は？」).
    """

    text: str
    spelled: str
    english: bool
    whole: AskedPart
    parts: tuple[AskedPart, ...]
    asked: AskedQuestion
    terms: tuple[str, ...]
    subject_terms: tuple[str, ...]
    aspect_words: tuple[str, ...]
    short: bool
    readings: tuple[str, ...] = ()
    existence_terms: tuple[str, ...] = ()
    recommendation: bool = False

    @property
    def two_part(self) -> bool:
        return len(self.parts) > 1


def analyse_question(text: str, *, english: bool | None = None) -> Question:
    """Everything the answer path needs to know about ``text``, read once.

    ``english``: the language the asker wrote in, when ``text`` is a rewriting of
    their words (「my password」 written as the documents write it, 「my パスワード」, is
    still an English question: its terms cannot be checked against Japanese quotes).
    """
    spelled = spelled_out(text)
    whole = AskedPart.of(spelled)
    english = is_english(text) if english is None else english
    # Spelling out durations changes no letter's script: the language of ``spelled`` is ``text``'s.
    parts = question_parts(spelled, english=english)
    terms = tuple(content_terms(text))
    return Question(
        text=text,
        spelled=spelled,
        english=english,
        whole=whole,
        parts=(whole,) if len(parts) == 1 else tuple(AskedPart.of(part) for part in parts),
        asked=AskedQuestion(text, english, own_parts(text, english=english)),
        terms=terms,
        subject_terms=subject_words(text),
        existence_terms=existence_terms(text, english=english),
        aspect_words=tuple(term for term in terms if is_facet(term)),
        short=is_short(text),
        recommendation=asks_recommendation(text),
    )


def subject_words(text: str) -> tuple[str, ...]:
    """The words of ``text``'s subject, before its first topic particle; () without one.

    A time counted from now (「今年は有給何日？」) says when, not what the question is about: not a subject word.
    """
    match = SUBJECT.search(fold(text))
    if not match:
        return ()
    subject = match.group(1)
    # A word ends where a verb starts (「会社辞めたいときって」: 会社, then 辞めたい), a particle left out between them.
    verbs = inflected_starts(subject)
    words = []
    for found in SUBJECT_WORD.finditer(subject):
        end = min((at for at in verbs if found.start() < at < found.end()), default=found.end())
        word = subject[found.start() : end]
        if len(word) >= 2 and not says_when(word):
            words.append(word)
    return tuple(words)
