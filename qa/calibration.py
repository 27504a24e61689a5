"""Per-corpus calibration: the off-topic floor and the confidence thresholds, measured on the corpus itself.

Nothing here is fitted to one corpus. ``calibrate`` asks two kinds of
pseudo-question through the same retrieval the portal uses, over every live
document:

- **on topic**: the corpus's own section headings, asked as questions
  (「<見出し>について教えてください」): every company's documents answer their own headings;
- **off topic**: :data:`OFF_TOPIC_QUESTIONS`, everyday questions no workplace
  document answers (weather, recipes, sport, trivia). They were written without
  any corpus at hand, as general Japanese, and are the same for every install.

For each it records the best chunk's dense similarity and the best sentence's
similarity (what :func:`qa.decision.off_topic_reason` reads), then
:func:`thresholds_from` turns the two distributions into a
:class:`qa.decision.Calibration`, each threshold by a named rule. The clarify
gap and the English floor are not measured yet: they keep their settings.
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


def thresholds_from(on_topic: Sequence[Measured], off_topic: Sequence[Measured], defaults: Calibration) -> Calibration:
    """The calibration the two distributions give (``defaults`` for what is not measured)."""
    if not on_topic or not off_topic:
        raise ValueError("calibration needs on-topic and off-topic measurements")
    confident = confident_similarity(on_topic, off_topic)
    return Calibration(
        off_topic_floor=off_topic_floor(on_topic, off_topic),
        english_floor=defaults.english_floor,
        confident=confident,
        medium=medium_similarity(off_topic, confident),
        clarify_gap=defaults.clarify_gap,
        source="corpus",
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
