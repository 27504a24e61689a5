"""An answer is as sure as the passage it quotes, not as the best passage the search found (qa.services)."""

from __future__ import annotations

from dataclasses import replace

from qa.decision import Calibration
from qa.providers.extractive import ExtractiveProvider
from qa.services import evidence_similarity, verify_answer
from qa.types import AnswerBlock, Citation
from tests.qa.providers.conftest import make_chunk

CALIBRATION = Calibration(off_topic_floor=0.8, english_floor=0.8, confident=0.9, medium=0.85, clarify_gap=0.03)


def _hits():
    # The search ranks a travel rule first and very close; the leave rule the question asks about second.
    travel = replace(make_chunk(0, "出張の宿泊費は1泊12,000円までです。", "travel.md", "宿泊費"), similarity=0.93)
    leave = replace(
        make_chunk(1, "有給休暇は入社6ヶ月後に10日付与されます。", "attendance.md", "有給休暇"), similarity=0.87
    )
    return [travel, leave]


def test_the_lead_citation_decides_which_hit_the_answer_stands_on():
    hits = _hits()
    cites_second = [AnswerBlock("有給休暇は…", [Citation(1, "有給休暇は入社6ヶ月後に10日付与されます。")])]
    assert evidence_similarity(cites_second, hits) == 0.87
    # The English lead-in has no citation: the first cited block leads.
    led_in = [AnswerBlock("From the documents:\n"), *cites_second]
    assert evidence_similarity(led_in, hits) == 0.87
    # Nothing cited (or a citation of a document never sent): the best hit's, as before.
    assert evidence_similarity([AnswerBlock("…", [Citation(None, "x")])], hits) == 0.93
    assert evidence_similarity([], []) is None


def test_an_answer_quoting_a_weaker_passage_is_not_high_because_another_passage_was_close():
    hits = _hits()
    question = "有給休暇は入社後いつ何日もらえますか？"
    generated = ExtractiveProvider().generate(question, hits)
    assert "10日付与" in generated.text and generated.blocks[0].citations[0].chunk_index == 1
    verdict = verify_answer(question, generated, hits, calibration=CALIBRATION)
    # Retrieval step: 0.87 is 中 on these thresholds; the best hit (0.93) would have made it 高.
    assert verdict.confidence_steps[0] == ["retrieval", "medium"]
    assert verdict.confidence != "high"
    # The same answer over the same passage retrieved first and as close: 高 stands.
    closer = [replace(hits[1], similarity=0.93), replace(hits[0], similarity=0.87)]
    generated = ExtractiveProvider().generate(question, closer)
    assert verify_answer(question, generated, closer, calibration=CALIBRATION).confidence_steps[0] == [
        "retrieval",
        "high",
    ]
