"""POST /api/v1/ask with ``Accept: text/event-stream``: draft pieces as they arrive, then the checked answer.

The cloud providers are the real SDKs talking to ``qa.evaluation.fake_clouds``
servers on 127.0.0.1 that stream in each API's wire format with pauses, so a
test can see text reach the client before the provider has finished. The
streamed answer is produced in a worker thread: these tests commit to the
database (``transaction=True``) so that thread sees the documents and users.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator

import pytest
import yaml
from django.core.cache import cache

from qa.models import Answer
from qa.evaluation.fake_clouds import ANTHROPIC, GEMINI, FakeAnswer, FakeCloud
from qa.streaming import FALLBACK_LABEL, answer_question_stream, cancelled_message
from tests.conftest import as_user
from tests.qa.answer_rows import ingest_demo

pytestmark = pytest.mark.django_db(transaction=True)

LEAVE_QUESTION = "有給休暇は何日もらえますか？"
LEAVE_SENTENCE = "有給休暇は入社6ヶ月後に10日付与されます"
STREAM = {"HTTP_ACCEPT": "text/event-stream"}


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def attendance(owner):
    return ingest_demo(owner, "attendance.md")[0]


def cloud(settings, kind: str, **options: object) -> FakeCloud:
    """A started fake of ``kind`` with the portal's provider settings pointing at it (no SDK retries)."""
    fake = FakeCloud(kind, **options).__enter__()
    settings.RAG_PROVIDER = kind
    settings.RAG_PROVIDER_MAX_RETRIES = 0
    settings.RAG_PROVIDER_TIMEOUT = 5.0
    if kind == ANTHROPIC:
        settings.ANTHROPIC_API_KEY, settings.ANTHROPIC_MODEL, settings.ANTHROPIC_BASE_URL = (
            "k",
            "claude-fake",
            fake.base_url,
        )
    else:
        settings.GEMINI_API_KEY, settings.GEMINI_MODEL, settings.GEMINI_BASE_URL = "k", "gemini-fake", fake.base_url
    return fake


@pytest.fixture
def fakes() -> Iterator[list[FakeCloud]]:
    started: list[FakeCloud] = []
    yield started
    for fake in started:
        fake.__exit__()


def stream(api, text: str = LEAVE_QUESTION, **body: object) -> tuple[object, list[tuple[str, dict, float]]]:
    """POST the question for a stream; (response, [(event, data, seconds since the request began)])."""
    started = time.perf_counter()
    response = api.post("/api/v1/ask", {"text": text, **body}, format="json", **STREAM)
    events: list[tuple[str, dict, float]] = []
    if not getattr(response, "streaming", False):
        return response, _parse(response.content, started)
    buffer = b""
    for part in response.streaming_content:
        buffer += part
        while b"\n\n" in buffer:
            raw, buffer = buffer.split(b"\n\n", 1)
            events.extend(_parse(raw + b"\n\n", started))
    return response, events


def _parse(raw: bytes, started: float) -> list[tuple[str, dict, float]]:
    events = []
    for block in raw.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "event" in lines:
            events.append((lines["event"], json.loads(lines["data"]), time.perf_counter() - started))
    return events


def wait_for(probe: Callable[[], object], seconds: float = 5.0) -> object:
    """``probe()`` once it is truthy (or its last value after ``seconds``): the fake notices a closed stream late."""
    deadline = time.monotonic() + seconds
    while not (value := probe()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return value


def test_streamed_claude_answer_arrives_in_pieces_then_as_the_stored_checked_answer(
    api, employee, attendance, settings, fakes
):
    fakes.append(cloud(settings, ANTHROPIC, pause=0.3, pieces=8))
    response, events = stream(as_user(api, employee))

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    names = [name for name, _data, _at in events]
    assert names[-1] == "answer" and names.count("answer") == 1
    assert set(names[:-1]) == {"delta"} and len(names) >= 5
    draft = "".join(data["text"] for name, data, _at in events if name == "delta")
    answer = events[-1][1]
    assert draft == answer["answer"] == LEAVE_SENTENCE
    # The first words reach the client long before the provider has finished writing (8 x 0.3 s).
    first_delta_at, answer_at = events[0][2], events[-1][2]
    assert answer_at > 2.0 and first_delta_at < answer_at - 1.5
    # The event is the stored answer, checked as a plain one is.
    stored = api.get(f"/api/v1/answers/{answer['id']}").json()
    assert stored == answer
    assert answer["citations"] and all(c["quote_verified"] for c in answer["citations"])
    assert answer["confidence"] and not answer["flags"]
    row = Answer.objects.get(pk=answer["id"])
    assert row.provider == "anthropic" and row.response_type == Answer.ResponseType.ANSWER
    assert fakes[0].requests[0]["stream"] is True and fakes[0].streams == [True]


def test_fabricated_file_name_in_a_streamed_claude_answer_is_flagged_as_in_a_plain_call(
    api, employee, attendance, settings, fakes
):
    said = FakeAnswer(text=f"{LEAVE_SENTENCE}（出典: leave_rules_2019.md）", quote=LEAVE_SENTENCE)
    fakes.append(cloud(settings, ANTHROPIC, pause=0.05, pieces=4, answer=said))
    client = as_user(api, employee)

    plain = client.post("/api/v1/ask", {"text": LEAVE_QUESTION}, format="json").json()
    _response, events = stream(client)

    streamed = events[-1][1]
    assert events[-1][0] == "answer"
    assert "fabricated_source" in plain["flags"]
    assert streamed["flags"] == plain["flags"]
    assert streamed["verification"]["warnings"] == plain["verification"]["warnings"]
    assert streamed["answer"] == plain["answer"]
    assert Answer.objects.get(pk=streamed["id"]).flag_fabricated_source


def test_streamed_gemini_answer_shows_the_sentence_text_not_the_json(api, employee, attendance, settings, fakes):
    fakes.append(cloud(settings, GEMINI, pause=0.25, pieces=6))
    _response, events = stream(as_user(api, employee))

    deltas = [data["text"] for name, data, _at in events if name == "delta"]
    assert len(deltas) >= 3
    assert "".join(deltas) == LEAVE_SENTENCE  # no braces, keys or quotes from the JSON
    assert events[-1][0] == "answer"
    answer = events[-1][1]
    assert answer["answer"] == LEAVE_SENTENCE
    assert all(c["quote_verified"] for c in answer["citations"])
    assert events[0][2] < events[-1][2] - 0.75
    assert fakes[0].paths == ["/v1/models/gemini-fake:streamGenerateContent?alt=sse"]


def test_offline_default_streams_its_whole_answer_at_once(api, employee, attendance):
    _response, events = stream(as_user(api, employee))

    assert [name for name, _data, _at in events] == ["delta", "answer"]
    assert events[0][1]["text"] == events[1][1]["answer"]
    assert Answer.objects.get(pk=events[1][1]["id"]).provider == "extractive"


def test_without_the_accept_header_the_answer_is_plain_json(api, employee, attendance):
    response = as_user(api, employee).post("/api/v1/ask", {"text": LEAVE_QUESTION}, format="json")

    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert "10日" in response.json()["answer"]


def test_refused_question_is_a_400_with_an_error_event_and_stores_nothing(api, employee):
    response, events = stream(as_user(api, employee), text="   ")

    assert response.status_code == 400
    assert events[0][0] == "error" and events[0][1]["text"]
    assert not Answer.objects.exists()


def test_provider_failing_mid_stream_falls_back_to_the_documents_with_a_label(
    api, employee, attendance, settings, fakes
):
    fakes.append(cloud(settings, ANTHROPIC, pause=0.1, pieces=8, fail_after=3))
    _response, events = stream(as_user(api, employee))

    names = [name for name, _data, _at in events]
    assert names[:3] == ["delta"] * 3 and names[-1] == "answer"
    answer = events[-1][1]
    assert FALLBACK_LABEL in answer["verification"]["warnings"]
    assert "10日" in answer["answer"] and all(c["quote_verified"] for c in answer["citations"])
    row = Answer.objects.get(pk=answer["id"])
    assert row.provider == "extractive" and row.flag_provider_error and row.needs_review
    assert row.usage["fallback"]["provider"] == "anthropic" and "overloaded" in row.usage["fallback"]["reason"]


def test_slow_provider_falls_back_after_the_configured_wait(api, employee, attendance, settings, fakes):
    fakes.append(cloud(settings, GEMINI, pause=0.6, pieces=10))
    settings.RAG_CLOUD_WAIT_S = 1.0
    _response, events = stream(as_user(api, employee))

    assert events[0][0] == "delta" and events[-1][0] == "answer"
    assert events[-1][2] - events[0][2] < 2.5  # the fake would have taken 5.4 s more
    assert FALLBACK_LABEL in events[-1][1]["verification"]["warnings"]
    assert wait_for(lambda: fakes[0].streams) == [False]  # the provider's stream was closed


def test_with_fallback_off_a_failed_stream_ends_in_an_error_event_with_the_stored_answer(
    api, employee, attendance, settings, fakes
):
    fakes.append(cloud(settings, ANTHROPIC, pause=0.05, pieces=6, fail_after=2))
    settings.RAG_CLOUD_FALLBACK = False
    _response, events = stream(as_user(api, employee))

    name, data, _at = events[-1]
    assert name == "error" and "answer" not in [n for n, _d, _a in events]
    assert data["answer"]["response_type"] == "error" and data["detail"] == data["answer"]["answer"]
    assert not data["answer"]["citations"] and data["answer"]["confidence"] in (None, "", "low")
    assert Answer.objects.get(pk=data["answer"]["id"]).flag_provider_error


def test_abandoned_stream_stops_the_provider_and_stores_a_cancelled_answer(employee, attendance, settings, fakes):
    fakes.append(cloud(settings, ANTHROPIC, pause=0.3, pieces=10))
    events = answer_question_stream(user=employee, text=LEAVE_QUESTION)
    first = next(event for event in events if event is not None)
    assert first.text
    events.close()

    # The worker thread stores the answer; reading while it writes would meet the test database's table lock.
    assert wait_for(lambda: not any(t.name == "answer-stream" for t in threading.enumerate()), 10)
    row = Answer.objects.get()
    assert row.response_type == Answer.ResponseType.ERROR
    assert row.answer_text == cancelled_message() and "cancelled" in row.error
    assert not row.citations.exists() and row.confidence != Answer.Confidence.HIGH
    assert wait_for(lambda: fakes[0].streams) == [False]  # the provider did not write its answer to the end


def test_openapi_schema_documents_the_event_stream(api, employee):
    schema = yaml.safe_load(as_user(api, employee).get("/api/schema/").content)
    ok = schema["paths"]["/api/v1/ask"]["post"]["responses"]["200"]["content"]
    assert "application/json" in ok and "text/event-stream" in ok
    description = schema["paths"]["/api/v1/ask"]["post"]["description"]
    for event in ("event: delta", "event: answer", "event: error"):
        assert event in description


def test_benchmark_api_times_first_text_and_verified_answer_per_provider(employee, attendance, tmp_path):
    from io import StringIO

    from django.core.management import call_command

    out, printed = tmp_path / "bench.json", StringIO()
    call_command("benchmark_api", n=1, stream=1, skip_load=True, user="employee", json_out=str(out), stdout=printed)

    streamed = json.loads(out.read_text("utf-8"))["streamed"]
    assert list(streamed) == ["extractive", "anthropic-fake", "gemini-fake"]
    for provider in ("anthropic-fake", "gemini-fake"):
        numbers = streamed[provider]
        # The fake takes 2.4 s to write its answer; its first words reach the client long before that.
        assert numbers["answer_ms"]["p50"] > 2400
        assert numbers["first_text_ms"]["p50"] < numbers["answer_ms"]["p50"] - 1500
        assert [name for name, _at in numbers["events"]] == ["delta"] * 9 + ["answer"]
        assert f"streamed {provider}" in printed.getvalue()
    assert not Answer.objects.exists()  # the benchmark's answers are removed
