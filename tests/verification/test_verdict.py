"""The combined verdict (verification/verdict.py), on the project's own answer types."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qa.types import AnswerBlock, Citation, RetrievedChunk
from verification.flags import (
    WARNING_FABRICATED,
    WARNING_FABRICATED_QUOTE,
    WARNING_NONE,
    WARNING_UNKNOWN_DOCUMENT,
    WARNING_UNSUPPORTED,
    WARNING_WEAK,
)
from verification.grounding import NOT_FOUND_MESSAGE, NOT_FOUND_MESSAGE_EN, UNGROUNDED_MESSAGE
from verification.verdict import FLAG_NAMES, Verdict, retrieval_confidence, verify

ATTENDANCE = (
    "# 勤怠管理ルール\n\n## 有給休暇\n"
    "- 有給休暇は入社6ヶ月後に10日付与されます\n"
    "- 有給申請は最低3日前までに申請してください\n"
    "- 申請は社内システム「勤怠くん」から行います\n"
)
EXPENSE = "# 経費精算ガイド\n- 出張時の宿泊費（上限1泊15,000円）\n- 5,000円以上の経費は上長の事前承認が必要です\n"
QUOTE = "有給休暇は入社6ヶ月後に10日付与されます"
AT = ATTENDANCE.index(QUOTE)
THRESHOLDS = (0.86, 0.80)


def chunk(filename: str, text: str, similarity: float = 0.9) -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=1, document_id=1, version_id=1, filename=filename, section="", text=text, similarity=similarity
    )


CHUNKS = [chunk("attendance.md", ATTENDANCE), chunk("expense.md", EXPENSE, 0.7)]


def cited(text: str, quote: str = QUOTE, index: int | None = 0, start: int | None = AT) -> AnswerBlock:
    end = None if start is None else start + len(quote)
    return AnswerBlock(text, [Citation(index, quote, start, end)])


def run(
    blocks: list[AnswerBlock],
    *,
    similarity: float = 0.9,
    gate: float = 0.5,
    abstained: bool = False,
    chunks: list[RetrievedChunk] | None = None,
) -> Verdict:
    return verify(
        blocks=blocks,
        chunks=CHUNKS if chunks is None else chunks,
        top_similarity=similarity,
        thresholds=THRESHOLDS,
        min_grounded_ratio=gate,
        abstained=abstained,
    )


# The article's four answers as plain text (no structured citations), with the gate off so
# that only citation presence decides: the article's confidences.
@pytest.mark.parametrize(
    ("answer", "confidence", "flags", "warning"),
    [
        ("有給休暇は入社6ヶ月後に10日付与されます。(attendance.md)", "high", [], None),
        ("attendanceの資料によると、有給休暇は10日付与されます。", "high", ["weak_citation"], WARNING_WEAK),
        ("有給休暇は入社6ヶ月後に10日付与されます。", "medium", ["no_citation"], WARNING_NONE),
        (
            "company_policy.md によると、有給休暇は10日付与されます。",
            "low",
            ["fabricated_source", "no_citation"],
            WARNING_FABRICATED.format(names="company_policy.md"),
        ),
    ],
    ids=["strong", "weak", "none", "fabricated"],
)
def test_article_examples(answer: str, confidence: str, flags: list[str], warning: str | None) -> None:
    verdict = run([AnswerBlock(answer)], gate=0.0, chunks=[CHUNKS[0]])
    assert verdict.confidence == confidence
    assert verdict.flags == flags
    assert verdict.warnings == ([warning] if warning else [])
    assert verdict.needs_review is (confidence == "low")
    assert verdict.citation_presence is not None
    assert verdict.replaced_text is None


def test_uncited_plain_answer_fails_the_gate_and_is_replaced() -> None:
    verdict = run([AnswerBlock("有給休暇は入社6ヶ月後に10日付与されます。(attendance.md)")])
    assert verdict.flags == ["low_grounding"]
    assert verdict.replaced_text == UNGROUNDED_MESSAGE
    assert verdict.confidence == "low"
    assert verdict.needs_review
    assert verdict.grounded_ratio == 0.0


def test_structured_citation_is_strong_high_and_clean() -> None:
    verdict = run([cited("有給休暇は入社6ヶ月後に10日付与されます。")])
    assert verdict.confidence == "high"
    assert verdict.flags == []
    assert verdict.warnings == []
    assert not verdict.needs_review
    assert verdict.citation_presence["citation_quality"] == "strong"
    assert verdict.citation_presence["mentioned_sources"] == ["attendance.md"]
    assert verdict.quote_checks[0].verified and verdict.quote_checks[0].reason == "exact"
    assert [(s.text, s.supported) for s in verdict.sentences] == [("有給休暇は入社6ヶ月後に10日付与されます。", True)]


def test_file_name_written_by_the_provider_but_not_retrieved_is_fabricated() -> None:
    verdict = run([cited("company_policy.mdによると、有給休暇は入社6ヶ月後に10日付与されます。")])
    assert "fabricated_source" in verdict.flags
    assert verdict.citation_presence["unexpected_sources"] == ["company_policy.md"]
    assert verdict.confidence == "low"
    assert verdict.needs_review


def test_citation_of_a_document_never_sent_is_a_fabricated_source() -> None:
    verdict = run([cited("有給休暇は入社6ヶ月後に10日付与されます。", index=None, start=None)])
    assert "fabricated_source" in verdict.flags
    assert verdict.quote_checks[0].reason == "unknown_document"
    assert verdict.confidence == "low"
    assert WARNING_UNKNOWN_DOCUMENT in verdict.warnings


def test_out_of_range_chunk_index_is_a_fabricated_source() -> None:
    verdict = run([cited("有給休暇は入社6ヶ月後に10日付与されます。", index=7, start=None)])
    assert "fabricated_source" in verdict.flags


def test_wrong_offsets_are_corrected_by_locating_the_quote() -> None:
    verdict = run([cited("有給休暇は入社6ヶ月後に10日付与されます。", start=0)])
    check = verdict.quote_checks[0]
    assert check.verified and check.reason == "relocated"
    assert ATTENDANCE[check.start : check.end] == QUOTE
    assert check.cited_text == QUOTE
    assert "fabricated_quote" not in verdict.flags


def test_quote_found_after_normalisation() -> None:
    verdict = run(
        [cited("有給休暇は10日付与されます。", quote="有給休暇は入社６ヶ月後に１０日付与されます", start=None)]
    )
    check = verdict.quote_checks[0]
    assert check.verified
    assert ATTENDANCE[check.start : check.end] == QUOTE


@pytest.mark.parametrize(
    ("quote", "index", "found_in"),
    [
        ("有給休暇は入社3ヶ月後に10日付与されます", 0, None),  # altered quote
        ("5,000円以上の経費は上長の事前承認が必要です", 0, 1),  # right words, wrong chunk
        ("", 0, None),
    ],
)
def test_fabricated_quote(quote: str, index: int, found_in: int | None) -> None:
    verdict = run([cited("有給休暇は入社6ヶ月後に10日付与されます。", quote=quote, index=index, start=None)])
    check = verdict.quote_checks[0]
    assert not check.verified
    assert check.found_in_chunk == found_in
    assert "fabricated_quote" in verdict.flags
    assert verdict.confidence == "low"
    assert verdict.needs_review
    assert WARNING_FABRICATED_QUOTE.format(count=1) in verdict.warnings
    # A fabricated citation grounds nothing: the only block is uncited, so the gate fails.
    assert verdict.replaced_text == UNGROUNDED_MESSAGE


def test_unsupported_number_costs_one_step_and_needs_review() -> None:
    verdict = run([cited("有給休暇は入社6ヶ月後に20日付与されます。")])
    assert verdict.flags == ["unsupported_claim"]
    assert verdict.confidence == "medium"
    assert verdict.needs_review
    assert verdict.sentences[0].reason == "number_not_in_evidence"
    assert verdict.sentences[0].missing == ["20日"]
    assert verdict.warnings == [WARNING_UNSUPPORTED.format(count=1)]


def test_evidence_is_the_cited_chunk_not_every_chunk() -> None:
    # The amount is in expense.md, but the block cites attendance.md only.
    verdict = run([cited("有給休暇は入社6ヶ月後に10日付与され、宿泊費の上限は15,000円です。")])
    assert "unsupported_claim" in verdict.flags


def test_uncited_sentence_is_checked_against_all_chunks() -> None:
    blocks = [cited("有給休暇は入社6ヶ月後に10日付与されます。"), AnswerBlock("宿泊費の上限は1泊15,000円です。")]
    verdict = run(blocks, gate=0.0)
    assert [s.supported for s in verdict.sentences] == [True, True]


def test_sentence_split_over_blocks_uses_the_citations_of_every_block() -> None:
    blocks = [AnswerBlock("有給休暇は"), cited("入社6ヶ月後に10日付与されます"), AnswerBlock("。")]
    verdict = run(blocks)
    assert [(s.text, s.supported) for s in verdict.sentences] == [("有給休暇は入社6ヶ月後に10日付与されます。", True)]
    assert verdict.grounded_ratio == pytest.approx(16 / 22, abs=1e-4)


@pytest.mark.parametrize(
    ("blocks", "abstained"),
    [
        ([AnswerBlock(NOT_FOUND_MESSAGE + "。")], False),
        ([AnswerBlock(NOT_FOUND_MESSAGE_EN)], False),
        ([AnswerBlock("何か別の文")], True),
    ],
)
def test_abstention(blocks: list[AnswerBlock], abstained: bool) -> None:
    verdict = run(blocks, abstained=abstained)
    assert verdict.confidence == "low"
    assert verdict.flags == ["not_found"]
    assert verdict.warnings == []
    assert not verdict.needs_review
    assert verdict.replaced_text is None
    assert verdict.citation_presence is None


def test_abstention_after_weak_retrieval_keeps_low_retrieval_flag() -> None:
    verdict = run([AnswerBlock(NOT_FOUND_MESSAGE)], similarity=0.5)
    assert verdict.flags == ["low_retrieval", "not_found"]
    assert not verdict.needs_review


@pytest.mark.parametrize(
    ("similarity", "confidence", "flags"),
    [
        (0.95, "high", []),
        (0.86, "high", []),
        (0.83, "medium", []),
        (0.80, "medium", []),
        (0.79, "low", ["low_retrieval"]),
        (None, "low", ["low_retrieval"]),
    ],
)
def test_retrieval_strength_sets_the_starting_confidence(
    similarity: float | None, confidence: str, flags: list[str]
) -> None:
    verdict = run([cited("有給休暇は入社6ヶ月後に10日付与されます。")], similarity=similarity)
    assert verdict.confidence == confidence
    assert verdict.flags == flags
    assert verdict.needs_review is (confidence == "low")
    assert retrieval_confidence(similarity, THRESHOLDS) == confidence


def test_no_citation_steps_down_from_retrieval() -> None:
    verdict = run([AnswerBlock("有給休暇は入社6ヶ月後に10日付与されます。")], similarity=0.83, gate=0.0)
    assert verdict.confidence == "low"
    assert verdict.flags == ["no_citation"]


def test_flags_are_sorted_known_names_and_to_dict_is_json() -> None:
    verdict = run([cited("company_policy.mdによると20日です。", quote="ない文", start=None)], similarity=0.5)
    assert verdict.flags == sorted(verdict.flags)
    assert set(verdict.flags) <= set(FLAG_NAMES)
    data = json.loads(json.dumps(verdict.to_dict(), ensure_ascii=False))
    assert set(data) >= {
        "confidence",
        "flags",
        "warnings",
        "needs_review",
        "grounded_ratio",
        "citation_presence",
        "quote_checks",
        "sentences",
        "replaced_text",
    }
    assert data["quote_checks"][0]["verified"] is False
    assert {"text", "start", "end", "supported", "reason"} <= set(data["sentences"][0])


def test_no_blocks_no_chunks() -> None:
    verdict = verify(blocks=[], chunks=[], top_similarity=None, thresholds=THRESHOLDS)
    assert verdict.confidence == "low"
    assert verdict.citation_presence is None
    assert verdict.sentences == []


JAPANESE = st.text(
    alphabet=st.sampled_from(list("あいうえおかきくけこアイウエオ有給休暇申請資料によると。、「」（） 　")), max_size=30
)


@settings(max_examples=100, deadline=None)
@given(before=JAPANESE, after=JAPANESE)
def test_property_japanese_around_a_file_name_never_changes_the_citation_verdict(before: str, after: str) -> None:
    strong = run([cited(before + "attendance.md" + after)], gate=0.0)
    assert strong.citation_presence["citation_quality"] == "strong"
    assert not {"fabricated_source", "no_citation", "weak_citation"} & set(strong.flags)
    fabricated = run([cited(before + "company_policy.md" + after)], gate=0.0)
    assert fabricated.citation_presence["unexpected_sources"] == ["company_policy.md"]
    assert "fabricated_source" in fabricated.flags
    assert fabricated.confidence == "low"
    assert fabricated.needs_review


def test_a_stored_verdict_reads_back_as_the_same_verdict() -> None:
    verdict = run([cited("有給休暇は入社6ヶ月後に10日付与されます。退職時には残りの30日分を45,000円で買い取ります。")])
    stored = json.loads(json.dumps(verdict.to_dict()))
    again = Verdict.from_dict(stored)
    assert again.to_dict() == {**stored, "fit": None}
    assert [s.supported for s in again.sentences] == [True, False]  # the mark a reader sees
    assert again.confidence_steps[-1] == ["checks", again.confidence]


def test_a_verdict_stored_before_some_fields_existed_still_reads() -> None:
    old = {"confidence": "medium", "flags": ["weak_citation"], "sentences": [{"text": "…", "start": 0, "end": 1}]}
    verdict = Verdict.from_dict(old)
    assert (verdict.confidence, verdict.flags, verdict.warning_templates) == ("medium", ["weak_citation"], [])
    assert verdict.sentences[0].supported  # a sentence stored without a mark is not marked
    assert Verdict.from_dict(None).confidence == "low"
