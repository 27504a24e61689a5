"""decide(): answer, ask back or not found, each with the rule that produced it (qa.decision).

One row per rule: what the employee gets (an answer, 「どの文書についての質問ですか？」, or
"not found") and the named reason a reviewer reads in the answer's usage.
"""

from __future__ import annotations

import pytest

from qa.decision import (
    ANSWER,
    ASK_BACK,
    NOT_FOUND,
    REASON_ASPECT_ONLY,
    REASON_ENGLISH_NAMES_NOTHING,
    REASON_ENGLISH_UNKNOWN_SUBJECT,
    REASON_GENERIC,
    REASON_NO_CLOSE_SENTENCE,
    REASON_NOTHING_RECOMMENDED,
    REASON_UNKNOWN_NAME,
    REASON_UNKNOWN_WORD,
    REASON_UNREADABLE_WORD,
    REASON_NO_HITS,
    REASON_ON_TOPIC,
    REASON_ONE_DOCUMENT,
    REASON_TIED,
    REASON_TIED_WITHOUT_SUBJECT,
    REASON_UNKNOWN_SUBJECT,
    Calibration,
    Evidence,
    decide,
)
from qa.question import analyse_question
from qa.types import RetrievedChunk

CALIBRATION = Calibration(off_topic_floor=0.84, english_floor=0.81, confident=0.88, medium=0.83, clarify_gap=0.03)


def _hit(document_id: int, similarity: float, score: float = 0.5) -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=document_id * 10,
        document_id=document_id,
        version_id=document_id,
        filename=f"doc{document_id}.md",
        section="",
        text="申請は支払日から1ヶ月以内に行います。",
        score=score,
        similarity=similarity,
    )


CLOSE = [_hit(1, 0.90, 0.9), _hit(2, 0.80, 0.5)]  # one document clearly ahead, its chunk confidently close
LOOSE = [_hit(1, 0.82, 0.9), _hit(2, 0.80, 0.5)]  # no chunk confidently close
TIED = [_hit(1, 0.90, 0.90), _hit(2, 0.89, 0.895)]  # two documents within the clarify gap
WEAK_TIE = [_hit(1, 0.82, 0.90), _hit(2, 0.81, 0.895)]  # tied too, but neither as close as 中 needs

LONG_JA = "経費精算の申請は支払日から何日以内に行えばよいですか？"
SHORT_JA = "申請の期限は？"
EN = "How long do I have to submit an expense claim?"

CASES = [
    # (question, hits, evidence flags, best sentence similarity, outcome, reasons)
    (LONG_JA, [], {}, 0.0, NOT_FOUND, (REASON_NO_HITS,)),
    (LONG_JA, CLOSE, {}, 0.70, ANSWER, (REASON_ON_TOPIC,)),  # a confident chunk keeps it on topic
    (LONG_JA, LOOSE, {}, 0.86, ANSWER, (REASON_ON_TOPIC,)),  # a close sentence does too
    (LONG_JA, LOOSE, {}, 0.80, NOT_FOUND, (REASON_NO_CLOSE_SENTENCE,)),
    (LONG_JA, CLOSE, {"subject_unknown": True}, 0.86, NOT_FOUND, (REASON_UNKNOWN_SUBJECT,)),
    (LONG_JA, CLOSE, {"subject_unknown": True}, 0.90, ANSWER, (REASON_ON_TOPIC,)),  # a sentence says it after all
    # A word nothing here uses, and nothing even as close as 中 needs: 「忘年会の会費は？」.
    (LONG_JA, LOOSE, {"unknown_words": ("忘年会",)}, 0.95, NOT_FOUND, (REASON_UNKNOWN_WORD,)),
    (LONG_JA, CLOSE, {"unknown_words": ("定期券",)}, 0.95, ANSWER, (REASON_ON_TOPIC,)),  # a close chunk answers
    # A word only documents the asker may not read use, however close a sentence: a managers' manual's 自己評価.
    (LONG_JA, LOOSE, {"unreadable_words": ("自己評価",)}, 0.95, NOT_FOUND, (REASON_UNREADABLE_WORD,)),
    (LONG_JA, CLOSE, {"unreadable_words": ("自己評価",)}, 0.95, ANSWER, (REASON_ON_TOPIC,)),  # a confident chunk
    # Another company's rules however close ours are: 「ソニーの経費精算は…」.
    (LONG_JA, CLOSE, {"unknown_names": ("ソニー",)}, 0.95, NOT_FOUND, (REASON_UNKNOWN_NAME,)),
    (SHORT_JA, TIED, {"unknown_names": ("ソニー",), "one_document": True}, 0.95, NOT_FOUND, (REASON_UNKNOWN_NAME,)),
    # A recommendation asked of documents none of whose hits recommends anything, however close they are.
    ("おすすめの転職エージェントを教えて", CLOSE, {}, 0.95, NOT_FOUND, (REASON_NOTHING_RECOMMENDED,)),
    ("おすすめの転職エージェントを教えて", CLOSE, {"recommends": True}, 0.95, ANSWER, (REASON_ON_TOPIC,)),
    ("Can you recommend a good browser?", CLOSE, {}, 0.0, NOT_FOUND, (REASON_NOTHING_RECOMMENDED,)),
    (EN, LOOSE, {}, 0.0, ANSWER, (REASON_ON_TOPIC,)),  # its best chunk reaches the English floor
    # In English too: 「How long does Toyota give for an expense claim?」 asks about Toyota's rules.
    (EN, CLOSE, {"unknown_names": ("Toyota",)}, 0.0, NOT_FOUND, (REASON_UNKNOWN_NAME,)),
    (EN, [_hit(1, 0.79)], {}, 0.0, NOT_FOUND, (REASON_ENGLISH_NAMES_NOTHING,)),
    (EN, [_hit(1, 0.79)], {"names_something": True}, 0.0, ANSWER, (REASON_ON_TOPIC,)),
    (EN, CLOSE, {"subject_unknown": True}, 0.0, NOT_FOUND, (REASON_ENGLISH_UNKNOWN_SUBJECT,)),
    (SHORT_JA, TIED, {}, 0.90, ASK_BACK, (REASON_TIED,)),
    # Two documents tie far from the question: neither is a choice worth offering, so it is answered
    # (and the answer must still stand); one that names no document is asked back however far.
    (SHORT_JA, WEAK_TIE, {}, 0.90, ANSWER, (REASON_ON_TOPIC,)),
    (SHORT_JA, WEAK_TIE, {"generic": True}, 0.90, ASK_BACK, (REASON_GENERIC,)),
    (LONG_JA, TIED, {}, 0.90, ANSWER, (REASON_ON_TOPIC,)),  # a long question says enough: either answers it
    (SHORT_JA, CLOSE, {"generic": True}, 0.90, ASK_BACK, (REASON_GENERIC,)),
    (
        SHORT_JA,
        LOOSE,
        {"generic": True},
        0.50,
        ASK_BACK,
        (REASON_NO_CLOSE_SENTENCE, REASON_ASPECT_ONLY, REASON_GENERIC),
    ),
    (SHORT_JA, TIED, {"one_document": True}, 0.90, ANSWER, (REASON_ONE_DOCUMENT,)),
    # No term at all, but a date asked for: which document it is about is the question to ask.
    (
        "何日前？",
        LOOSE,
        {"generic": True},
        0.50,
        ASK_BACK,
        (REASON_NO_CLOSE_SENTENCE, REASON_ASPECT_ONLY, REASON_GENERIC),
    ),
    # No term and nothing asked for (a greeting): nothing to ask back about.
    ("こんにちは", LOOSE, {"generic": True}, 0.50, NOT_FOUND, (REASON_NO_CLOSE_SENTENCE,)),
]


@pytest.mark.parametrize(("text", "hits", "flags", "sentence", "outcome", "reasons"), CASES)
def test_each_rule_gives_its_outcome_and_names_itself(
    text: str, hits: list[RetrievedChunk], flags: dict, sentence: float, outcome: str, reasons: tuple[str, ...]
) -> None:
    decision = decide(analyse_question(text), Evidence(hits=hits, best_sentence=lambda: sentence, **flags), CALIBRATION)
    assert (decision.outcome, decision.reasons) == (outcome, reasons)
    assert bool(decision.options) is (outcome == ASK_BACK)


def test_the_documents_offered_are_one_per_document_best_first() -> None:
    decision = decide(analyse_question(SHORT_JA), Evidence(hits=[*TIED, _hit(1, 0.8, 0.1)]), CALIBRATION)
    assert [h.document_id for h in decision.options] == [1, 2]


def test_a_floor_of_zero_turns_the_off_topic_rules_off() -> None:
    off = Calibration(off_topic_floor=0.0, english_floor=0.0, confident=0.88, medium=0.83, clarify_gap=0.03)
    decision = decide(analyse_question(LONG_JA), Evidence(hits=LOOSE, subject_unknown=True), off)
    assert decision.outcome == ANSWER


def test_the_sentence_similarity_is_measured_only_when_a_rule_needs_it() -> None:
    def never() -> float:
        raise AssertionError("an English question is not judged by sentence similarity")

    assert decide(analyse_question(EN), Evidence(hits=CLOSE, best_sentence=never), CALIBRATION).outcome == ANSWER


MEASURED = Calibration(
    off_topic_floor=0.84, english_floor=0.81, confident=0.88, medium=0.83, clarify_gap=0.03, unknown_word_sentence=0.86
)


@pytest.mark.parametrize(("sentence", "outcome"), [(0.87, ANSWER), (0.86, NOT_FOUND), (0.85, NOT_FOUND)])
def test_an_unknown_word_is_answered_when_a_sentence_is_closer_than_any_off_topic_question_came(
    sentence: float, outcome: str
) -> None:
    """「USBメモリを挿してもいい？」 where the documents write USB フラッシュドライブ: nothing retrieved is
    as close as 中 needs, but one sentence is closer than calibration's everyday off-topic questions
    (weather, recipes) ever got to the corpus, so the question is answered; otherwise it is not found."""
    evidence = Evidence(
        hits=LOOSE, unknown_words=("usbメモリ",), unknown_among_known=True, best_sentence=lambda: sentence
    )
    decision = decide(analyse_question(LONG_JA), evidence, MEASURED)
    assert decision.outcome == outcome
    assert decision.reasons == ((REASON_ON_TOPIC,) if outcome == ANSWER else (REASON_UNKNOWN_WORD,))


def test_an_unknown_word_asked_as_someone_elses_or_alone_is_not_found_however_close_a_sentence() -> None:
    """「楽天の有給休暇は？」 (the unknown word owns a subject we cover) and 「確定申告の医療費控除は？」
    (every noun unknown): a sentence close to our own 有給休暇 rule does not answer them."""
    evidence = Evidence(hits=LOOSE, unknown_words=("楽天",), unknown_among_known=False, best_sentence=lambda: 0.95)
    assert decide(analyse_question(LONG_JA), evidence, MEASURED).reasons == (REASON_UNKNOWN_WORD,)


def test_without_a_measured_corpus_an_unknown_word_is_not_found_however_close_a_sentence() -> None:
    """The settings' calibration has no measured off-topic sentence: the unknown-word rule holds as before,
    without embedding any sentence for it."""

    def never() -> float:
        raise AssertionError("no sentence is measured for the unknown-word rule without a calibrated corpus")

    evidence = Evidence(hits=LOOSE, unknown_words=("忘年会",), best_sentence=never)
    assert decide(analyse_question(LONG_JA), evidence, CALIBRATION).reasons == (REASON_UNKNOWN_WORD,)


@pytest.mark.parametrize(
    ("text", "unknown", "calibration", "sentence", "outcome", "reasons"),
    [
        # What it asks about (部費) is a word no document uses: the tie is on サークル alone.
        ("サークルの部費は？", ("部費",), MEASURED, 0.85, NOT_FOUND, (REASON_TIED_WITHOUT_SUBJECT,)),
        # Without a measured corpus nothing tells the tied documents apart from ones that answer: offered.
        ("サークルの部費は？", ("部費",), CALIBRATION, 0.85, ASK_BACK, (REASON_TIED,)),
        # A sentence closer than calibration's off-topic questions came to the corpus: the tied documents answer.
        ("サークルの部費は？", ("部費",), MEASURED, 0.87, ASK_BACK, (REASON_TIED,)),
        # The unknown word only says whose: what is asked (申請) is the documents' own word.
        ("サークルの申請は？", ("サークル",), MEASURED, 0.85, ASK_BACK, (REASON_TIED,)),
    ],
    ids=["unknown-head", "not-measured", "closer-sentence", "unknown-modifier"],
)
def test_documents_tied_around_a_subject_none_of_them_uses_are_not_offered(
    text: str, unknown: tuple[str, ...], calibration: Calibration, sentence: float, outcome: str, reasons: tuple
) -> None:
    evidence = Evidence(hits=TIED, unknown_words=unknown, unknown_among_known=True, best_sentence=lambda: sentence)
    decision = decide(analyse_question(text), evidence, calibration)
    assert (decision.outcome, decision.reasons) == (outcome, reasons)
    assert bool(decision.options) is (outcome == ASK_BACK)


BETWEEN = [_hit(1, 0.85, 0.9), _hit(2, 0.80, 0.5)]  # at least 中 close (0.83), not 高 close (0.88)


@pytest.mark.parametrize(
    ("hits", "sentence", "among_known", "outcome"),
    [
        (BETWEEN, 0.85, False, NOT_FOUND),  # every noun unknown, nothing closer than off-topic questions came
        (BETWEEN, 0.87, False, ANSWER),  # a sentence closer than any off-topic question came
        (CLOSE, 0.85, False, ANSWER),  # a chunk confidently close
        (BETWEEN, 0.85, True, ANSWER),  # an everyday word among words the documents use: as before
    ],
    ids=["all-unknown", "closer-sentence", "confident-chunk", "among-known"],
)
def test_a_question_naming_only_words_the_documents_never_use_is_not_found_unless_something_answers_it_closely(
    hits: list[RetrievedChunk], sentence: float, among_known: bool, outcome: str
) -> None:
    """「ロッカーの鍵をなくしたらどうする？」 over documents that never say ロッカー: its chunk can be as close
    as 中 needs in general meaning (losing things), and no more than that. With every noun unknown, only a
    sentence closer than calibration's everyday off-topic questions came, or a confidently close chunk,
    keeps it on topic."""
    evidence = Evidence(
        hits=hits, unknown_words=("ロッカー",), unknown_among_known=among_known, best_sentence=lambda: sentence
    )
    decision = decide(analyse_question(LONG_JA), evidence, MEASURED)
    assert decision.outcome == outcome
    assert decision.reasons == ((REASON_ON_TOPIC,) if outcome == ANSWER else (REASON_UNKNOWN_WORD,))


def test_a_short_question_naming_only_unknown_words_is_not_asked_back() -> None:
    """「社宅の申込期限は？」 over two documents tied on 申込 and 期限: offering them would ask which document
    covers 社宅, which none does. It is not found instead."""
    evidence = Evidence(
        hits=[_hit(1, 0.85, 0.90), _hit(2, 0.84, 0.895)],
        unknown_words=("社宅", "申込期限"),
        best_sentence=lambda: 0.85,
    )
    assert decide(analyse_question("社宅の申込期限は？"), evidence, MEASURED).outcome == NOT_FOUND
    assert decide(analyse_question("社宅の申込期限は？"), evidence, CALIBRATION).outcome == ASK_BACK
