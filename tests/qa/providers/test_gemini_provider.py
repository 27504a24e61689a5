"""Contract tests: the real google-genai SDK against a fake generateContent API on 127.0.0.1."""

from __future__ import annotations

import json
from typing import Any

import pytest

from qa.providers.base import ABSTAIN_JA, failure_message
from qa.providers.gemini_provider import GeminiProvider, byte_offset_to_char, byte_span_to_char_span
from qa.types import ProviderConfigurationError, ProviderError

from .conftest import LEAVE_TEXT, FakeServer, Reply

SENTENCE = "有給休暇は入社6ヶ月後に10日付与されます"
START = LEAVE_TEXT.index(SENTENCE)
FAILURE = failure_message()


def generate_response(text: str, *, grounding: dict[str, Any] | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": text}]},
        "finishReason": "STOP",
        "index": 0,
    }
    if grounding:
        candidate["groundingMetadata"] = grounding
    return {
        "candidates": [candidate],
        "usageMetadata": {"promptTokenCount": 210, "candidatesTokenCount": 34, "totalTokenCount": 244},
        "modelVersion": "gemini-2.5-flash-test",
    }


def answer_json(*sentences: tuple[str, list[int], list[str]]) -> str:
    return json.dumps(
        {"sentences": [{"text": t, "chunks": c, "quotes": q} for t, c, q in sentences]}, ensure_ascii=False
    )


def error_body(code: int, status: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": status.lower(), "status": status}}


def provider(server: FakeServer, *, timeout: float = 5.0, retries: int = 2) -> GeminiProvider:
    return GeminiProvider(
        api_key="test-key",
        model="gemini-2.5-flash",
        base_url=server.base_url,
        timeout=timeout,
        max_retries=retries,
        retry_initial_delay=0.01,
    )


def test_happy_path_locates_quotes_and_reports_usage(fake_server, policy_chunks):
    fake_server.script(
        Reply(body=generate_response(answer_json(("有給休暇は入社6ヶ月後に10日付与されます。", [1], [SENTENCE]))))
    )
    answer = provider(fake_server).generate("有給休暇は何日もらえますか？", policy_chunks)

    assert answer.text == "有給休暇は入社6ヶ月後に10日付与されます。"
    assert answer.provider == "gemini" and answer.model == "gemini-2.5-flash-test"
    assert not answer.abstained
    [citation] = answer.blocks[0].citations
    assert (citation.chunk_index, citation.start, citation.end) == (0, START, START + len(SENTENCE))
    assert policy_chunks[0].text[citation.start : citation.end] == SENTENCE
    assert answer.usage == {"prompt_token_count": 210, "candidates_token_count": 34, "total_token_count": 244}


def test_request_asks_for_json_with_the_schema_and_grounded_prompt(fake_server, policy_chunks):
    fake_server.script(Reply(body=generate_response(answer_json((ABSTAIN_JA, [], [])))))
    provider(fake_server).generate("社員食堂のメニューは？", policy_chunks, history=[("前の質問", "前の回答")])

    [request] = fake_server.requests
    assert request.path.endswith("/models/gemini-2.5-flash:generateContent")
    assert request.headers["x-goog-api-key"] == "test-key"
    body = request.body
    config = body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    schema = json.dumps(config.get("responseSchema") or config.get("responseJsonSchema"))
    assert "sentences" in schema and "quotes" in schema and "chunks" in schema
    system = "".join(p["text"] for p in body["systemInstruction"]["parts"])
    assert ABSTAIN_JA in system and "一般知識" in system and "食い違" in system and "quotes" in system
    roles = [c["role"] for c in body["contents"]]
    assert roles == ["user", "model", "user"]
    prompt = body["contents"][-1]["parts"][0]["text"]
    assert "[文書1] attendance.md — 有給休暇\n" + LEAVE_TEXT in prompt
    assert "[文書3] expense.md — 交通費" in prompt
    assert prompt.endswith("質問: 社員食堂のメニューは？")


def test_abstention_is_not_an_error(fake_server, policy_chunks):
    fake_server.script(Reply(body=generate_response(answer_json((ABSTAIN_JA, [], [])))))
    answer = provider(fake_server).generate("社員食堂のメニューは？", policy_chunks)
    assert answer.abstained and answer.text == ABSTAIN_JA
    assert answer.blocks[0].citations == []


def test_strict_retry_sends_the_stricter_prompt(fake_server, policy_chunks):
    fake_server.script(Reply(body=generate_response(answer_json((ABSTAIN_JA, [], [])))))
    p = provider(fake_server)
    p.generate("質問", policy_chunks)
    p.generate("質問", policy_chunks, strict=True)
    normal, strict = ("".join(x["text"] for x in r.body["systemInstruction"]["parts"]) for r in fake_server.requests)
    assert "言い換え" in strict and len(strict) > len(normal)


def test_quote_with_different_width_and_spacing_is_located(fake_server, policy_chunks):
    sloppy = "有給休暇は入社６ヶ月後に １０日 付与されます"
    fake_server.script(Reply(body=generate_response(answer_json(("10日です。", [1], [sloppy])))))
    [citation] = provider(fake_server).generate("何日？", policy_chunks).blocks[0].citations
    assert (citation.chunk_index, citation.start, citation.end) == (0, START, START + len(SENTENCE))
    assert citation.cited_text == SENTENCE


def test_quote_in_another_listed_chunk_is_found_there(fake_server, policy_chunks):
    quote = "体調不良の場合は当日朝9:00までに連絡すれば問題ありません"
    fake_server.script(Reply(body=generate_response(answer_json(("9時までに連絡します。", [1, 2], [quote])))))
    [citation] = provider(fake_server).generate("体調不良のときは？", policy_chunks).blocks[0].citations
    assert citation.chunk_index == 1
    assert policy_chunks[1].text[citation.start : citation.end] == quote


def test_chunk_number_not_sent_gives_no_chunk(fake_server, policy_chunks):
    fake_server.script(Reply(body=generate_response(answer_json(("規程によります。", [9], ["第9条による"])))))
    [citation] = provider(fake_server).generate("何日？", policy_chunks).blocks[0].citations
    assert citation.chunk_index is None and citation.start is None
    assert citation.cited_text == "第9条による"


def test_quote_not_in_its_chunk_is_kept_as_fabricated(fake_server, policy_chunks):
    invented = "有給休暇は入社初日に20日付与されます"
    fake_server.script(
        Reply(
            body=generate_response(
                answer_json(
                    ("20日です。", [1], [invented]),
                    ("申請は勤怠くんからです。", [1], ["申請は社内システム「勤怠くん」から行います"]),
                )
            )
        )
    )
    answer = provider(fake_server).generate("何日？", policy_chunks)
    assert answer.text == "20日です。申請は勤怠くんからです。"
    [fabricated] = answer.blocks[0].citations
    assert (fabricated.chunk_index, fabricated.cited_text, fabricated.start, fabricated.end) == (
        0,
        invented,
        None,
        None,
    )
    assert answer.blocks[1].citations[0].located


def test_grounding_segments_in_utf8_bytes_become_citations(fake_server, policy_chunks):
    raw = answer_json(("有給は10日です。", [1], [SENTENCE]), ("遅刻は上長へ連絡します。", [], []))
    segment_text = "遅刻は上長へ連絡します。"
    char_start = raw.index(segment_text)
    byte_start = len(raw[:char_start].encode("utf-8"))
    byte_end = byte_start + len(segment_text.encode("utf-8"))
    grounding = {
        "groundingChunks": [
            {
                "retrievedContext": {
                    "text": "遅刻・早退する場合は、事前に上長へ連絡してください",
                    "title": "attendance.md",
                }
            }
        ],
        "groundingSupports": [
            {
                "segment": {"partIndex": 0, "startIndex": byte_start, "endIndex": byte_end, "text": segment_text},
                "groundingChunkIndices": [0],
            }
        ],
    }
    fake_server.script(Reply(body=generate_response(raw, grounding=grounding)))
    answer = provider(fake_server).generate("遅刻のときは？", policy_chunks)
    [citation] = answer.blocks[1].citations
    assert citation.chunk_index == 1
    assert policy_chunks[1].text[citation.start : citation.end] == "遅刻・早退する場合は、事前に上長へ連絡してください"


def test_byte_offsets_convert_to_character_offsets_in_multibyte_text():
    text = "aé有給🙂x"  # 1, 2, 3, 3, 4, 1 bytes
    assert [byte_offset_to_char(text, b) for b in (0, 1, 3, 6, 9, 13, 14, 99)] == [0, 1, 2, 3, 4, 5, 6, 6]
    assert byte_offset_to_char(text, 4) == 2  # inside 有 → its start
    start, end = byte_span_to_char_span(text, 3, 9)
    assert text[start:end] == "有給"
    assert byte_span_to_char_span(text, None, None) == (0, len(text))


def test_429_is_retried_then_reported_as_quota(fake_server, policy_chunks):
    fake_server.script(Reply(status=429, body=error_body(429, "RESOURCE_EXHAUSTED")))
    with pytest.raises(ProviderError) as caught:
        provider(fake_server, retries=2).generate("何日？", policy_chunks)
    assert caught.value.quota is True
    assert caught.value.user_message == "AIサービスの利用上限に達しました。しばらくしてから再度お試しください。"
    assert len(fake_server.requests) == 3


def test_500_then_success_returns_the_answer(fake_server, policy_chunks):
    fake_server.script(
        Reply(status=500, body=error_body(500, "INTERNAL")),
        Reply(body=generate_response(answer_json(("10日です。", [1], [SENTENCE])))),
    )
    assert provider(fake_server).generate("何日？", policy_chunks).text == "10日です。"
    assert len(fake_server.requests) == 2


def test_500_is_retried_then_a_clear_error(fake_server, policy_chunks):
    fake_server.script(Reply(status=500, body=error_body(500, "INTERNAL")))
    with pytest.raises(ProviderError) as caught:
        provider(fake_server, retries=1).generate("何日？", policy_chunks)
    assert caught.value.quota is False and caught.value.user_message == FAILURE
    assert len(fake_server.requests) == 2


def test_timeout_is_a_clear_error(fake_server, policy_chunks):
    fake_server.script(Reply(body=generate_response(answer_json(("遅い", [], []))), delay=1.5))
    with pytest.raises(ProviderError) as caught:
        provider(fake_server, timeout=0.3, retries=0).generate("何日？", policy_chunks)
    assert caught.value.user_message == FAILURE
    assert "Timeout" in str(caught.value)


def test_connection_refused_is_a_clear_error(policy_chunks):
    server = FakeServer()
    base_url = server.base_url
    server.httpd.server_close()  # never started: the port is now closed
    p = GeminiProvider(api_key="k", model="gemini-2.5-flash", base_url=base_url, timeout=1, max_retries=0)
    with pytest.raises(ProviderError) as caught:
        p.generate("何日？", policy_chunks)
    assert caught.value.user_message == FAILURE


def test_malformed_answer_json_is_a_clear_error(fake_server, policy_chunks):
    fake_server.script(
        Reply(
            body=generate_response(
                '{"sentences": [{"text": "10日',
            )
        )
    )
    with pytest.raises(ProviderError, match="JSON") as caught:
        provider(fake_server).generate("何日？", policy_chunks)
    assert caught.value.user_message == FAILURE


def test_malformed_http_body_is_a_clear_error(fake_server, policy_chunks):
    fake_server.script(Reply(body="<html>proxy error</html>"))
    with pytest.raises(ProviderError) as caught:
        provider(fake_server, retries=0).generate("何日？", policy_chunks)
    assert caught.value.user_message == FAILURE


@pytest.mark.parametrize("text", ['{"sentences": []}', ""])
def test_empty_answer_is_a_clear_error(fake_server, policy_chunks, text):
    fake_server.script(Reply(body=generate_response(text)))
    with pytest.raises(ProviderError, match="empty"):
        provider(fake_server).generate("何日？", policy_chunks)


def test_missing_key_is_a_configuration_error():
    with pytest.raises(ProviderConfigurationError, match="GEMINI_API_KEY"):
        GeminiProvider(api_key="", model="gemini-2.5-flash")
