"""``stream()`` of each provider: text pieces as they arrive, then the same ProviderAnswer ``generate()`` gives.

The real SDKs talk to ``qa.evaluation.fake_clouds`` servers on 127.0.0.1 that
speak each API's streaming wire format; nothing in the SDKs is patched.
"""

from __future__ import annotations

import time

import pytest

from qa.providers.anthropic_provider import AnthropicProvider
from qa.providers.base import StreamingProvider
from qa.providers.extractive import ExtractiveProvider
from qa.evaluation.fake_clouds import ANTHROPIC, GEMINI, FakeAnswer, FakeCloud, anthropic_events
from qa.providers.gemini_provider import GeminiProvider, _draft_text
from qa.types import ProviderAnswer, ProviderError

LEAVE_SENTENCE = "有給休暇は入社6ヶ月後に10日付与されます"


def provider_for(fake: FakeCloud):
    cls = AnthropicProvider if fake.kind == ANTHROPIC else GeminiProvider
    return cls(api_key="k", model="m", base_url=fake.base_url, max_retries=0, timeout=5)


def timed(items) -> list[tuple[float, object]]:
    started = time.perf_counter()
    return [(time.perf_counter() - started, item) for item in items]


@pytest.mark.parametrize("kind", [ANTHROPIC, GEMINI])
def test_cloud_stream_yields_pieces_before_the_provider_finishes_then_the_checked_answer(kind, policy_chunks):
    with FakeCloud(kind, pause=0.3, pieces=5) as fake:
        provider = provider_for(fake)
        assert isinstance(provider, StreamingProvider)
        items = timed(provider.stream("有給休暇は何日？", policy_chunks))
        plain = provider.generate("有給休暇は何日？", policy_chunks)

    *pieces, (finished_at, answer) = items
    assert len(pieces) >= 4 and all(isinstance(p, str) for _at, p in pieces)
    assert pieces[0][0] < finished_at - 0.6  # the first words came long before the end (4 pauses of 0.3 s)
    assert "".join(p for _at, p in pieces) == LEAVE_SENTENCE
    assert isinstance(answer, ProviderAnswer) and answer.text == plain.text == LEAVE_SENTENCE
    assert answer.blocks[0].citations == plain.blocks[0].citations
    citation = answer.blocks[0].citations[0]
    assert citation.located and policy_chunks[0].text[citation.start : citation.end] == LEAVE_SENTENCE


def test_anthropic_stream_is_requested_and_sent_in_the_messages_api_event_order(policy_chunks):
    with FakeCloud(ANTHROPIC, pause=0.0, pieces=3) as fake:
        list(provider_for(fake).stream("有給休暇は何日？", policy_chunks))
        events = [name for name, _data in anthropic_events(fake, fake.requests[0])]

    assert fake.requests[0]["stream"] is True
    assert events == [
        "message_start", "content_block_start", "content_block_delta", "content_block_delta",
        "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop",
    ]  # fmt: skip
    deltas = [
        data["delta"]["type"]
        for name, data in anthropic_events(fake, fake.requests[0])
        if name == "content_block_delta"
    ]
    assert deltas == ["citations_delta", "text_delta", "text_delta", "text_delta"]


def test_anthropic_citation_for_a_quote_not_in_the_chunk_stays_unlocated(policy_chunks):
    said = FakeAnswer(text="有給は20日です。", quote="有給は入社初日に20日付与されます")
    with FakeCloud(ANTHROPIC, pause=0.0, pieces=2, answer=said) as fake:
        *_pieces, answer = provider_for(fake).stream("有給休暇は何日？", policy_chunks)

    assert answer.text == "有給は20日です。"
    assert not answer.blocks[0].citations[0].located  # verification flags it as fabricated


@pytest.mark.parametrize(("kind", "said"), [(ANTHROPIC, "overloaded"), (GEMINI, "not the expected JSON")])
def test_stream_failing_half_way_raises_a_provider_error_after_its_pieces(kind, said, policy_chunks):
    received: list[object] = []
    with FakeCloud(kind, pause=0.05, pieces=6, fail_after=2) as fake:
        with pytest.raises(ProviderError, match=said) as failure:
            for item in provider_for(fake).stream("有給休暇は何日？", policy_chunks):
                received.append(item)

    assert received and all(isinstance(item, str) for item in received)
    assert failure.value.user_message


def test_gemini_stream_requests_stream_generate_content_as_sse(policy_chunks):
    with FakeCloud(GEMINI, pause=0.0, pieces=3) as fake:
        list(provider_for(fake).stream("有給休暇は何日？", policy_chunks))

    assert fake.paths[0].endswith(":streamGenerateContent?alt=sse")


def test_extractive_stream_is_its_whole_answer_at_once(policy_chunks):
    provider = ExtractiveProvider()
    items = list(provider.stream("有給休暇は何日もらえますか？", policy_chunks))

    assert isinstance(provider, StreamingProvider)
    text, answer = items
    again = provider.generate("有給休暇は何日もらえますか？", policy_chunks)
    assert (answer.blocks, answer.abstained) == (again.blocks, again.abstained)
    assert text == answer.text and "10日" in text


@pytest.mark.parametrize(
    ("raw", "draft"),
    [
        ("", ""),
        ('{"sente', ""),
        ('{"sentences": [{"text": "有給は', "有給は"),
        ('{"sentences": [{"text": "有給は10日。", "chunks": [1], "quotes": ["有給', "有給は10日。"),
        ('{"sentences": [{"text": "Leave is 10 days.", "quotes": []}, {"text": "Ask', "Leave is 10 days. Ask"),
    ],
)
def test_gemini_draft_is_the_sentences_text_of_the_json_so_far(raw, draft):
    assert _draft_text(raw) == draft
