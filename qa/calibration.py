"""Per-corpus calibration: the off-topic floor and the confidence thresholds, measured on the corpus itself.

Nothing here is fitted to one corpus. ``calibrate`` asks two kinds of
pseudo-question through the same retrieval the portal uses, over every live
document:

- **on topic**: the corpus's own section headings, asked as questions
  (「<見出し>について教えてください」): every company's documents answer their own headings;
- **off topic**: :data:`OFF_TOPIC_QUESTIONS`, everyday questions no workplace
  document answers (weather, recipes, sport, trivia). They were written without
  any corpus at hand, as general Japanese, and are the same for every install.

- **off topic, in English**: :data:`ENGLISH_OFF_TOPIC_QUESTIONS`, the same kind of
  everyday questions written in English, for the English floor.

For each it records the best chunk's dense similarity and the best sentence's
similarity (what :func:`qa.decision.off_topic_reason` reads), then
:func:`thresholds_from` turns the distributions into a
:class:`qa.decision.Calibration`, each threshold by a named rule.

The closest any off-topic question's best sentence came is stored too
(:func:`off_topic_sentence_ceiling`) and applied: a question that uses a word
the documents never use (「USBメモリ」 where they write USB フラッシュドライブ) stays
on topic only when one of its hits' sentences is closer than that.

The English floor has one side only: the corpus gives no English on-topic
questions (its headings are Japanese, and translating them would need a model
the portal does not ship), so the floor is the lowest that still turns away
every everyday English question, never above the Japanese 中 threshold.

The clarify gap stays a setting, for two reasons. It compares two documents'
fused scores within one question's candidates, and those scores are min-max
normalised per question (qa.fusion.score_fusion): it is already relative to
the corpus, unlike the similarities above, whose level moves with the corpus's
language, length and density. And measuring where a tie begins needs
questions known to be ambiguous between two documents, which headings are not.

What the portal applies of a calibration is its 高/中 thresholds; the floors are
stored and shown, not applied (qa.services.applied_calibration says why, with
the measurements). Calibration can follow the corpus: with
RAG_CALIBRATE_AFTER_INDEXING, qa.tasks recomputes it in the background after
the live documents change; until it has, the previous calibration stays in use.
Without any, the settings apply.
"""

from __future__ import annotations

import hashlib
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from qa.decision import Calibration

OFF_TOPIC_QUESTIONS = (
    "明日の天気はどうなりますか？",
    "おいしいカレーの作り方を教えてください",
    "昨日のプロ野球の試合結果は？",
    "富士山の高さは何メートルですか？",
    "おすすめの映画を教えて",
    "猫の平均寿命はどれくらいですか？",
    "宇宙はどうやってできたのですか？",
    "次の日曜日に行けるおすすめの観光地は？",
    "ピアノを上達させるコツは？",
    "恐竜はいつ絶滅しましたか？",
    "ラーメンのスープのとり方は？",
    "サッカーのワールドカップの優勝国は？",
)
ENGLISH_OFF_TOPIC_QUESTIONS = (
    "What will the weather be like tomorrow?",
    "How do I make a good curry at home?",
    "Who won the football world cup?",
    "How tall is Mount Fuji?",
    "Can you recommend a good movie?",
    "How long do cats usually live?",
    "How did the universe begin?",
    "When did the dinosaurs die out?",
)
# The on-topic side is asked as a question about each heading (at most this many headings).
HEADING_QUESTION = "{heading}について教えてください"
MAX_HEADINGS = 60
# Rules: the floor halfway between the highest off-topic sentence and the low end (10th
# percentile) of the on-topic ones; 高 only above every off-topic chunk by MARGIN and at
# least the on-topic median; 中 from the highest off-topic chunk.
ON_TOPIC_LOW_QUANTILE = 0.10
MARGIN = 0.01


@dataclass(frozen=True)
class Measured:
    """One pseudo-question's evidence: its best chunk's and its best sentence's similarity."""

    question: str
    top_chunk: float
    best_sentence: float


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(q * (len(ordered) - 1) + 0.5)))]


def off_topic_floor(on_topic: Sequence[Measured], off_topic: Sequence[Measured]) -> float:
    """Halfway between the closest off-topic sentence and the on-topic sentences' low end."""
    high_off = max(m.best_sentence for m in off_topic)
    low_on = _quantile([m.best_sentence for m in on_topic], ON_TOPIC_LOW_QUANTILE)
    return round((high_off + low_on) / 2, 4)


def confident_similarity(on_topic: Sequence[Measured], off_topic: Sequence[Measured]) -> float:
    """The chunk similarity that earns 高 and keeps a question on topic: above every off-topic chunk."""
    above_off = max(m.top_chunk for m in off_topic) + MARGIN
    return round(max(above_off, statistics.median(m.top_chunk for m in on_topic)), 4)


def medium_similarity(off_topic: Sequence[Measured], confident: float) -> float:
    """中 from the closest off-topic chunk up, always below :func:`confident_similarity`."""
    return round(min(confident - MARGIN, max(m.top_chunk for m in off_topic)), 4)


def off_topic_sentence_ceiling(off_topic: Sequence[Measured]) -> float:
    """The closest any off-topic question's best sentence came: what an unknown-word question must beat.

    Read by :func:`qa.decision.off_topic_reason`: a question using a word the
    documents never use is kept on topic only by a sentence closer than this.
    The maximum, not a quantile: every everyday question measured stays turned away.
    """
    return round(max(m.best_sentence for m in off_topic), 4)


def english_floor(english_off_topic: Sequence[Measured], medium: float) -> float:
    """Just above the closest everyday English question's best chunk, and never above ``medium``.

    An English question is compared with Japanese passages, so even its right
    passage scores lower than a Japanese question's would: the floor only
    has to turn away what is surely off topic, and the 中 threshold caps it.
    """
    return round(min(medium, max(m.top_chunk for m in english_off_topic) + MARGIN), 4)


def thresholds_from(
    on_topic: Sequence[Measured],
    off_topic: Sequence[Measured],
    defaults: Calibration,
    *,
    english_off_topic: Sequence[Measured] = (),
) -> Calibration:
    """The calibration the distributions give (``defaults`` for what is not measured).

    Without ``english_off_topic`` the English floor keeps its default. Raises
    ValueError without on-topic or off-topic measurements.
    """
    if not on_topic or not off_topic:
        raise ValueError("calibration needs on-topic and off-topic measurements")
    confident = confident_similarity(on_topic, off_topic)
    medium = medium_similarity(off_topic, confident)
    return Calibration(
        off_topic_floor=off_topic_floor(on_topic, off_topic),
        english_floor=english_floor(english_off_topic, medium) if english_off_topic else defaults.english_floor,
        confident=confident,
        medium=medium,
        clarify_gap=defaults.clarify_gap,
        source="corpus",
        unknown_word_sentence=off_topic_sentence_ceiling(off_topic),
    )


def corpus_key(version_ids: Sequence[int]) -> str:
    """A fingerprint of the live versions a calibration was measured on."""
    return hashlib.sha256(",".join(str(v) for v in sorted(version_ids)).encode()).hexdigest()


def heading_questions(headings: Sequence[str]) -> list[str]:
    """The on-topic pseudo-questions: each distinct last heading segment, asked about, at most MAX_HEADINGS."""
    seen = dict.fromkeys(h.split(">")[-1].strip().lstrip("#").strip() for h in headings)
    names = [h for h in seen if len(h) >= 2]
    step = max(1, len(names) // MAX_HEADINGS)
    return [HEADING_QUESTION.format(heading=h) for h in names[::step][:MAX_HEADINGS]]
