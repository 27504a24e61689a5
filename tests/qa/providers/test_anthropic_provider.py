"""Contract tests: the real anthropic SDK against a fake Messages API on 127.0.0.1."""

from __future__ import annotations

from typing import Any

import pytest

from qa.providers.anthropic_provider import AnthropicProvider
from qa.providers.base import ABSTAIN_JA, failure_message
from qa.types import ProviderConfigurationError, ProviderError

from .conftest import LEAVE_TEXT, FakeServer, Reply
from tests.qa.conftest import anthropic_message, text_block
from tests.qa.conftest import char_location as _char_location

FAST_RETRY = {"retry-after-ms": "5"}


def message(*blocks: dict[str, Any]) -> dict[str, Any]:
    return anthropic_message(*blocks, usage=(321, 45))


def char_location(cited: str, document_index: int, start: int, end: int) -> dict[str, Any]:
    return _char_location(cited, document_index, start, end, title="attendance.md — 有給休暇")


def provider(server: FakeServer, *, timeout: float = 5.0, retries: int = 2) -> AnthropicProvider:
    return AnthropicProvider(
        api_key="test-key", model="claude-test-1", base_url=server.base_url, timeout=timeout, max_retries=retries
    )


SENTENCE = "有給休暇は入社6ヶ月後に10日付与されます"
START = LEAVE_TEXT.index(SENTENCE)


def test_happy_path_maps_blocks_citations_and_usage(fake_server, policy_chunks):
    fake_server.script(
        Reply(
            body=message(
                text_block(
                    "有給休暇は入社6ヶ月後に10日付与されます。",
                    char_location(SENTENCE, 0, START, START + len(SENTENCE)),
                ),
                text_block("（出典: 勤怠管理ルール）"),
            )
        )
    )
    answer = provider(fake_server).generate("有給休暇は何日もらえますか？", policy_chunks)

    assert answer.text == "有給休暇は入社6ヶ月後に10日付与されます。（出典: 勤怠管理ルール）"
    assert answer.provider == "anthropic" and answer.model == "claude-test-1"
    assert not answer.abstained
    [citation] = answer.blocks[0].citations
    assert (citation.chunk_index, citation.start, citation.end) == (0, START, START + len(SENTENCE))
    assert policy_chunks[0].text[citation.start : citation.end] == citation.cited_text == SENTENCE
    assert answer.blocks[1].citations == []
    assert answer.usage["input_tokens"] == 321 and answer.usage["output_tokens"] == 45
    assert answer.latency_ms > 0


def test_request_carries_documents_with_titles_citations_and_grounded_system_prompt(fake_server, policy_chunks):
    fake_server.script(Reply(body=message(text_block(ABSTAIN_JA))))
    provider(fake_server).generate("有給休暇は何日？", policy_chunks, history=[("前の質問", "前の回答")])

    [request] = fake_server.requests
    assert request.path.endswith("/v1/messages")
    # The key goes out as x-api-key or, in newer SDKs, as a bearer token.
    assert "test-key" in (
        request.headers.get("x-api-key", ""),
        request.headers.get("authorization", "").removeprefix("Bearer "),
    )
    body = request.body
    assert body["model"] == "claude-test-1"
    assert ABSTAIN_JA in body["system"] and "一般知識" in body["system"] and "食い違" in body["system"]
    assert body["messages"][:2] == [
        {"role": "user", "content": "前の質問"},
        {"role": "assistant", "content": "前の回答"},
    ]
    content = body["messages"][-1]["content"]
    documents = [c for c in content if c["type"] == "document"]
    assert [d["title"] for d in documents] == [
        "attendance.md — 有給休暇",
        "attendance.md — 遅刻・早退",
        "expense.md — 交通費",
    ]
    assert all(d["citations"] == {"enabled": True} for d in documents)
    assert documents[0]["source"] == {"type": "text", "media_type": "text/plain", "data": LEAVE_TEXT}
    assert content[-1] == {"type": "text", "text": "有給休暇は何日？"}


def test_strict_retry_sends_the_stricter_prompt(fake_server, policy_chunks):
    fake_server.script(Reply(body=message(text_block(ABSTAIN_JA))))
    p = provider(fake_server)
    p.generate("質問", policy_chunks)
    p.generate("質問", policy_chunks, strict=True)
    normal, strict = (r.body for r in fake_server.requests)
    assert strict["system"].startswith(normal["system"]) and len(strict["system"]) > len(normal["system"])
    assert "言い換え" in strict["system"]
    assert strict["max_tokens"] < normal["max_tokens"]


def test_offsets_a_few_characters_off_are_relocated(fake_server, policy_chunks):
    fake_server.script(
        Reply(body=message(text_block("10日です。", char_location(SENTENCE, 0, START + 3, START + 3 + len(SENTENCE)))))
    )
    [citation] = provider(fake_server).generate("何日？", policy_chunks).blocks[0].citations
    assert (citation.start, citation.end) == (START, START + len(SENTENCE))
    assert citation.located


def test_quote_differing_in_width_and_spacing_is_relocated_to_the_document_text(fake_server, policy_chunks):
    sloppy = "有給休暇は 入社６ヶ月後に１０日付与されます"
    fake_server.script(Reply(body=message(text_block("10日です。", char_location(sloppy, 0, 0, 5)))))
    [citation] = provider(fake_server).generate("何日？", policy_chunks).blocks[0].citations
    assert (citation.start, citation.end) == (START, START + len(SENTENCE))
    assert citation.cited_text == SENTENCE


def test_citation_to_a_document_that_was_not_sent_has_no_chunk(fake_server, policy_chunks):
    fake_server.script(Reply(body=message(text_block("10日です。", char_location(SENTENCE, 7, 0, 10)))))
    [citation] = provider(fake_server).generate("何日？", policy_chunks).blocks[0].citations
    assert citation.chunk_index is None and citation.start is None and not citation.located
    assert citation.cited_text == SENTENCE


def test_quote_not_in_its_chunk_is_kept_unlocated(fake_server, policy_chunks):
    invented = "有給休暇は入社初日に20日付与されます"
    fake_server.script(Reply(body=message(text_block("20日です。", char_location(invented, 0, START, START + 19)))))
    [citation] = provider(fake_server).generate("何日？", policy_chunks).blocks[0].citations
    assert citation.chunk_index == 0
    assert (citation.start, citation.end) == (None, None)
    assert citation.cited_text == invented


def test_abstention_is_not_an_error(fake_server, policy_chunks):
    fake_server.script(Reply(body=message(text_block(ABSTAIN_JA + "。"))))
    answer = provider(fake_server).generate("社員食堂のメニューは？", policy_chunks)
    assert answer.abstained
    assert answer.text == ABSTAIN_JA + "。"


def test_429_is_retried_then_reported_as_quota(fake_server, policy_chunks):
    fake_server.script(
        Reply(
            status=429,
            body={"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
            headers=FAST_RETRY,
        )
    )
    with pytest.raises(ProviderError) as caught:
        provider(fake_server, retries=2).generate("何日？", policy_chunks)
    assert caught.value.quota is True
    assert caught.value.user_message == "AIサービスの利用上限に達しました。しばらくしてから再度お試しください。"
    assert len(fake_server.requests) == 3  # the first attempt + 2 SDK retries


def test_429_then_success_returns_the_answer(fake_server, policy_chunks):
    fake_server.script(
        Reply(
            status=429,
            body={"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}},
            headers=FAST_RETRY,
        ),
        Reply(body=message(text_block("10日です。"))),
    )
    assert provider(fake_server).generate("何日？", policy_chunks).text == "10日です。"
    assert len(fake_server.requests) == 2


def test_500_is_retried_then_a_clear_error(fake_server, policy_chunks):
    fake_server.script(
        Reply(status=500, body={"type": "error", "error": {"type": "api_error", "message": "boom"}}, headers=FAST_RETRY)
    )
    with pytest.raises(ProviderError) as caught:
        provider(fake_server, retries=1).generate("何日？", policy_chunks)
    assert caught.value.quota is False
    assert caught.value.user_message == failure_message()
    assert len(fake_server.requests) == 2


def test_timeout_is_a_clear_error(fake_server, policy_chunks):
    fake_server.script(Reply(body=message(text_block("遅すぎる回答")), delay=1.5))
    with pytest.raises(ProviderError) as caught:
        provider(fake_server, timeout=0.3, retries=0).generate("何日？", policy_chunks)
    assert caught.value.user_message == failure_message()
    assert "Timeout" in str(caught.value)


def test_malformed_json_is_a_clear_error(fake_server, policy_chunks):
    fake_server.script(Reply(body='{"id": "msg", "content": [ {"type": "text", "te'))
    with pytest.raises(ProviderError) as caught:
        provider(fake_server, retries=0).generate("何日？", policy_chunks)
    assert caught.value.user_message == failure_message()


def test_empty_answer_is_a_clear_error(fake_server, policy_chunks):
    fake_server.script(Reply(body=message()))
    with pytest.raises(ProviderError, match="empty"):
        provider(fake_server).generate("何日？", policy_chunks)


def test_missing_key_is_a_configuration_error():
    with pytest.raises(ProviderConfigurationError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider(api_key="", model="claude-test-1")
