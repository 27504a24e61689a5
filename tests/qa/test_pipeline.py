"""The whole question pipeline: retrieval → provider → verification → stored answer."""

from __future__ import annotations

import pytest

from documents.models import Chunk
from qa.models import Answer, Conversation
from qa.providers.base import failure_message, quota_message
from qa.services import answer_question
from tests.qa.conftest import Reply, anthropic_message, char_location, error_reply, text_block
from verification.grounding import NOT_FOUND_MESSAGE, UNGROUNDED_MESSAGE

pytestmark = pytest.mark.django_db

LEAVE_QUESTION = "有給休暇は何日もらえますか？"
LEAVE_SENTENCE = "有給休暇は入社6ヶ月後に10日付与されます"
# What the user reads, in the default language (Japanese).
FAILURE = failure_message()
QUOTA = quota_message()


@pytest.fixture
def attendance(ingest):
    return ingest("attendance.md")


# --- the offline default ------------------------------------------------------


def test_extractive_answer_cites_the_exact_passage(attendance, employee):
    answer = answer_question(user=employee, text=LEAVE_QUESTION).answer

    assert answer.response_type == Answer.ResponseType.ANSWER
    assert answer.provider == "extractive"
    assert "10日" in answer.answer_text
    assert answer.confidence in (Answer.Confidence.HIGH, Answer.Confidence.MEDIUM)
    citations = list(answer.citations.all())
    assert citations
    for citation in citations:
        assert citation.filename == "attendance.md" and citation.document_id == attendance.pk
        assert citation.quote_verified
        chunk = Chunk.objects.get(pk=citation.chunk_id)
        assert chunk.text[citation.start : citation.end] == citation.cited_text
    assert any("10日" in c.cited_text for c in citations)
    # The answer's blocks point at the stored footnotes.
    assert {n for block in answer.blocks for n in block["citations"]} == {c.n for c in citations}
    assert not answer.flag_provider_error and not answer.flag_fabricated_quote


def test_extractive_answer_is_deterministic(attendance, employee):
    first = answer_question(user=employee, text=LEAVE_QUESTION).answer
    second = answer_question(user=employee, text=LEAVE_QUESTION).answer
    assert first.answer_text == second.answer_text
    assert [(c.chunk_id, c.start, c.end) for c in first.citations.all()] == [
        (c.chunk_id, c.start, c.end) for c in second.citations.all()
    ]


def test_unrelated_question_abstains_with_the_exact_sentence(attendance, employee):
    answer = answer_question(user=employee, text="社員食堂のメニューは？").answer

    assert answer.response_type == Answer.ResponseType.NOT_FOUND
    assert answer.answer_text == NOT_FOUND_MESSAGE == "提供された文書からは該当する内容が見つかりませんでした"
    assert not answer.citations.exists()
    assert not answer.flag_provider_error


def test_question_with_no_documents_abstains(employee):
    answer = answer_question(user=employee, text=LEAVE_QUESTION).answer
    assert answer.response_type == Answer.ResponseType.NOT_FOUND
    assert answer.answer_text == NOT_FOUND_MESSAGE
    assert answer.retrieved == []


# --- provider failures ----------------------------------------------------------


@pytest.mark.parametrize(("status", "message"), [(500, FAILURE), (429, QUOTA)], ids=["500", "429"])
def test_provider_failure_is_stored_with_a_clear_message(attendance, employee, anthropic_server, status, message):
    anthropic_server.script(error_reply(status))

    answer = answer_question(user=employee, text=LEAVE_QUESTION).answer

    assert len(anthropic_server.requests) == 1  # retries are 0 in this test
    stored = Answer.objects.get(pk=answer.pk)
    assert stored.response_type == Answer.ResponseType.ERROR
    assert stored.answer_text == message
    assert stored.question == LEAVE_QUESTION
    assert stored.flag_provider_error and stored.needs_review
    assert str(status) in stored.error
    assert stored.retrieved  # the evidence is kept for the reviewer
    assert not stored.citations.exists()
    assert Conversation.objects.filter(pk=stored.conversation_id, user=employee).exists()


def test_provider_timeout_is_stored_as_an_error(attendance, employee, anthropic_server, settings):
    settings.RAG_PROVIDER_TIMEOUT = 0.3
    anthropic_server.script(Reply(body=anthropic_message(text_block("遅い回答")), delay=1.5))

    answer = answer_question(user=employee, text=LEAVE_QUESTION).answer

    assert answer.response_type == Answer.ResponseType.ERROR
    assert answer.answer_text == FAILURE
    assert answer.flag_provider_error


# --- multi-turn -------------------------------------------------------------------


def test_follow_up_question_searches_with_the_previous_question(ingest, employee):
    ingest("attendance.md")
    ingest("expense.md")
    first = answer_question(user=employee, text="有給休暇の取り方を教えてください").answer
    follow_up = answer_question(user=employee, text="それは何日前までに申請？", conversation=first.conversation).answer

    assert "有給休暇の取り方を教えてください" in follow_up.search_query
    assert "それは何日前までに申請？" in follow_up.search_query
    assert follow_up.retrieved[0]["filename"] == "attendance.md"
    assert follow_up.retrieved[0]["section"].endswith("有給休暇")
    assert follow_up.response_type == Answer.ResponseType.ANSWER
    assert "3日前" in follow_up.answer_text
    assert any("3日前" in c.cited_text and c.filename == "attendance.md" for c in follow_up.citations.all())

    # The same words in a new conversation are searched as they are.
    alone = answer_question(user=employee, text="それは何日前までに申請？").answer
    assert alone.search_query == "それは何日前までに申請？"


def test_choosing_a_document_after_a_clarification_searches_the_question_once(ingest, employee, settings):
    """Issue 25 #5: the choice re-sends the question; it is not folded in twice."""
    settings.RAG_CLARIFY_GAP = 1.0  # every multi-document result is ambiguous: forces the question back
    ingest("attendance.md")
    expense = ingest("expense.md")
    asked_back = answer_question(user=employee, text="申請の期限はいつまでですか？").answer
    assert asked_back.response_type == Answer.ResponseType.CLARIFICATION

    chosen = answer_question(
        user=employee, text="申請の期限はいつまでですか？", conversation=asked_back.conversation, document=expense
    ).answer
    assert chosen.search_query == "申請の期限はいつまでですか？"
    assert chosen.response_type == Answer.ResponseType.ANSWER


def test_a_chosen_document_keeps_the_follow_up_context_it_was_asked_in(ingest, employee, settings):
    ingest("attendance.md")
    expense = ingest("expense.md")
    first = answer_question(user=employee, text="経費の精算について教えてください").answer
    follow_up = answer_question(user=employee, text="期限は？", conversation=first.conversation).answer
    assert follow_up.search_query == "経費の精算について教えてください 期限は？"
    again = answer_question(user=employee, text="期限は？", conversation=first.conversation, document=expense).answer
    assert again.search_query == follow_up.search_query  # not 「… 期限は？ 期限は？」


def test_a_follow_up_naming_no_topic_is_answered_in_the_topic_of_the_conversation(ingest, employee, demo_glossary):
    """Issue 25 #6: 「上限はいくら？」 after a hotel question is the hotel's limit, not the commute allowance's."""
    for name in ("benefits.md", "business_travel.md", "expense.md"):
        ingest(name)
    first = answer_question(user=employee, text="出張のホテル代について教えて").answer
    follow_up = answer_question(user=employee, text="上限はいくら？", conversation=first.conversation).answer

    assert follow_up.response_type == Answer.ResponseType.ANSWER
    assert "月額50,000円" not in follow_up.answer_text  # the commute allowance (benefits.md)
    assert "15,000円" in follow_up.answer_text  # a night's hotel, in Japan
    assert {c.filename for c in follow_up.citations.all()} <= {"business_travel.md", "expense.md"}
    # Asked on its own, the same words may be about any limit: the commute allowance is a fair answer there.
    alone = answer_question(user=employee, text="上限はいくら？").answer
    assert alone.search_query == "上限はいくら？"


def test_a_provider_that_reads_the_history_gets_the_question_as_typed(ingest, employee, anthropic_server, settings):
    """Claude is sent the earlier turns, so the follow-up goes to it in the user's own words."""
    ingest("business_travel.md")
    settings.RAG_PROVIDER = "extractive"
    first = answer_question(user=employee, text="出張の宿泊費について教えて").answer
    settings.RAG_PROVIDER = "anthropic"
    anthropic_server.script(Reply(body=anthropic_message(text_block("国内は1泊15,000円までです。"))))
    answer_question(user=employee, text="上限はいくら？", conversation=first.conversation)

    messages = anthropic_server.requests[-1].body["messages"]
    assert messages[-1]["role"] == "user"
    assert "上限はいくら？" in str(messages[-1]["content"])
    assert "出張の宿泊費について教えて 上限はいくら？" not in str(messages[-1]["content"])
    assert any("出張の宿泊費について教えて" in str(m["content"]) for m in messages[:-1])


# --- conservative retry -----------------------------------------------------------


def test_ungrounded_answer_is_retried_once_with_the_strict_prompt(attendance, employee, anthropic_server):
    anthropic_server.script(
        Reply(body=anthropic_message(text_block("有給休暇は入社した日から20日もらえます。特に申請は不要です。"))),
        Reply(
            body=anthropic_message(text_block(LEAVE_SENTENCE, char_location(LEAVE_SENTENCE, 0, 0, 0)), text_block("。"))
        ),
    )

    answer = answer_question(user=employee, text=LEAVE_QUESTION).answer

    first, second = anthropic_server.requests
    assert "今回は特に慎重に" not in first.body["system"]
    assert "今回は特に慎重に" in second.body["system"]
    assert answer.usage["strict_retry"] is True
    assert answer.response_type == Answer.ResponseType.ANSWER
    assert answer.answer_text.startswith(LEAVE_SENTENCE)
    assert "20日" not in answer.answer_text
    assert not answer.flag_low_grounding
    [citation] = answer.citations.all()
    assert citation.cited_text == LEAVE_SENTENCE and citation.quote_verified


def test_answer_still_ungrounded_after_the_retry_is_replaced_and_kept_for_review(
    attendance, employee, anthropic_server
):
    invented = "有給休暇は入社した日から20日もらえます。"
    anthropic_server.script(Reply(body=anthropic_message(text_block(invented))))

    answer = answer_question(user=employee, text=LEAVE_QUESTION).answer

    assert len(anthropic_server.requests) == 2  # the answer and one strict retry, no more
    assert answer.usage["strict_retry"] is True
    assert answer.answer_text == UNGROUNDED_MESSAGE
    assert answer.original_answer_text == invented
    assert answer.flag_low_grounding and answer.needs_review
    assert answer.confidence == Answer.Confidence.LOW


def test_grounded_cloud_answer_is_not_retried(attendance, employee, anthropic_server):
    anthropic_server.script(
        Reply(body=anthropic_message(text_block(LEAVE_SENTENCE + "。", char_location(LEAVE_SENTENCE, 0, 0, 0))))
    )
    answer = answer_question(user=employee, text=LEAVE_QUESTION).answer
    assert len(anthropic_server.requests) == 1
    assert "strict_retry" not in answer.usage
    assert answer.response_type == Answer.ResponseType.ANSWER
