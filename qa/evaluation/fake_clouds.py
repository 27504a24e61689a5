"""Loopback stand-ins for the Anthropic and Gemini APIs that stream in their real wire formats.

``benchmark_api`` and the tests point the real SDKs at a ``FakeCloud`` through
the providers' base URL; nothing in the SDKs is patched. Only 127.0.0.1 is
ever bound.

- Anthropic: ``POST /v1/messages``; with ``"stream": true`` the reply is
  Server-Sent Events (``message_start``, ``content_block_start``,
  ``content_block_delta`` with ``citations_delta`` and ``text_delta``,
  ``content_block_stop``, ``message_delta``, ``message_stop``), else one message.
- Gemini: ``POST /<version>/models/<model>:streamGenerateContent?alt=sse`` answers
  ``data: <GenerateContentResponse JSON>`` chunks whose texts join into the
  JSON answer; ``:generateContent`` answers that JSON at once.

Unless told what to say (``FakeAnswer``), a fake quotes the first sentence of
the first document it was sent, with a citation that checks out. The text
arrives in ``pieces`` parts ``pause`` seconds apart (the first at once); ``fail_after`` breaks the
stream after that many parts (an ``error`` event for Anthropic, a cut
connection for Gemini).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self, Any, ClassVar

ANTHROPIC = "anthropic"
GEMINI = "gemini"
_GEMINI_DOCUMENT = re.compile(r"\[文書1\][^\n]*\n(.*?)(?:\n\n\[文書2\]|\n\n質問: )", re.S)
_SENTENCE = re.compile(r"[^\n。]+。?")


@dataclass(frozen=True)
class FakeAnswer:
    """What a fake says: ``text``, citing ``quote`` from document ``document`` (0-based; None: no citation)."""

    text: str
    quote: str = ""
    document: int | None = 0


@dataclass
class FakeCloud:
    """A threaded HTTP server on 127.0.0.1 speaking ``kind``'s API (``ANTHROPIC`` or ``GEMINI``).

    ``requests`` and ``paths`` hold each request's body and path; ``streams`` records, per
    streamed reply, whether it was sent to the end (False: the client left
    early or ``fail_after`` broke it).
    """

    kind: str
    pause: float = 0.3
    pieces: int = 8
    fail_after: int | None = None
    answer: FakeAnswer | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    streams: list[bool] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    # --- what to say ---------------------------------------------------------------

    def answer_for(self, body: dict[str, Any]) -> FakeAnswer:
        """The scripted answer, or the first sentence of the first document in ``body``."""
        if self.answer is not None:
            return self.answer
        document = _first_document(self.kind, body)
        sentence = next((m.group(0).strip() for m in _SENTENCE.finditer(document) if _worth_quoting(m.group(0))), "")
        quote = sentence.lstrip("-#* ").strip()
        return FakeAnswer(text=quote, quote=quote, document=0 if quote else None)

    def chunks_of(self, text: str) -> list[str]:
        """``text`` cut into ``pieces`` parts of about equal length (fewer for a shorter text; none empty)."""
        count = max(1, min(self.pieces, len(text)))
        bounds = [round(i * len(text) / count) for i in range(count + 1)]
        return [text[start:end] for start, end in zip(bounds, bounds[1:])]


def _worth_quoting(line: str) -> bool:
    stripped = line.strip().lstrip("-#* ").strip()
    return len(stripped) >= 4 and not line.lstrip().startswith("#")


def _first_document(kind: str, body: dict[str, Any]) -> str:
    """The text of the first document the provider put in the request ("" when there is none)."""
    try:
        if kind == ANTHROPIC:
            content = body["messages"][-1]["content"]
            return next(item["source"]["data"] for item in content if item.get("type") == "document")
        prompt = body["contents"][-1]["parts"][0]["text"]
    except (KeyError, IndexError, TypeError, StopIteration):
        return ""
    match = _GEMINI_DOCUMENT.search(prompt)
    return match.group(1) if match else ""


def _cited(body: dict[str, Any], kind: str, answer: FakeAnswer) -> tuple[str, int, int] | None:
    """(document title, start, end) of ``answer.quote`` in its document, or None (not located: cited as is)."""
    if answer.document is None or kind != ANTHROPIC:
        return None
    try:
        documents = [i for i in body["messages"][-1]["content"] if i.get("type") == "document"]
        document = documents[answer.document]
    except (KeyError, IndexError, TypeError):
        return None
    start = document["source"]["data"].find(answer.quote)
    return (document.get("title", ""), start, start + len(answer.quote)) if start >= 0 else None


# --- Anthropic's Messages API ------------------------------------------------------------


def _anthropic_citation(body: dict[str, Any], answer: FakeAnswer) -> dict[str, Any] | None:
    if answer.document is None or not answer.quote:
        return None
    located = _cited(body, ANTHROPIC, answer)
    title, start, end = located or ("", 0, len(answer.quote))
    return {
        "type": "char_location",
        "cited_text": answer.quote,
        "document_index": answer.document,
        "document_title": title,
        "start_char_index": start,
        "end_char_index": end,
    }


def _anthropic_message(body: dict[str, Any], answer: FakeAnswer, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-fake"),
        "content": content,
        "stop_reason": None if not content else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 1 if not content else len(answer.text)},
    }


def anthropic_events(fake: FakeCloud, body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The (event name, data) pairs of a streamed Messages API answer, in the API's order."""
    answer = fake.answer_for(body)
    citation = _anthropic_citation(body, answer)
    yield "message_start", {"type": "message_start", "message": _anthropic_message(body, answer, [])}
    block = {"type": "text", "text": "", "citations": []}
    yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}
    if citation is not None:
        delta = {"type": "citations_delta", "citation": citation}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
    for piece in fake.chunks_of(answer.text):
        delta = {"type": "text_delta", "text": piece}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": len(answer.text)},
        },
    )
    yield "message_stop", {"type": "message_stop"}


# --- Gemini's generateContent ------------------------------------------------------------


def gemini_json(answer: FakeAnswer) -> str:
    """The structured answer the Gemini provider asks for, as Gemini would write it."""
    sentence: dict[str, Any] = {"text": answer.text, "chunks": [], "quotes": []}
    if answer.document is not None and answer.quote:
        sentence.update(chunks=[answer.document + 1], quotes=[answer.quote])
    return json.dumps({"sentences": [sentence]}, ensure_ascii=False)


def gemini_pieces(fake: FakeCloud, answer: FakeAnswer) -> list[str]:
    """The JSON answer in parts as Gemini streams it: the sentence's text spread over ``fake.pieces`` parts."""
    whole = gemini_json(answer)
    at = whole.find(json.dumps(answer.text, ensure_ascii=False)[1:-1]) if answer.text else -1
    if at < 0:
        return fake.chunks_of(whole)
    parts = fake.chunks_of(answer.text)
    parts[0] = whole[:at] + parts[0]
    parts[-1] += whole[at + len(answer.text) :]
    return parts


def gemini_chunk(text: str, *, last: bool) -> dict[str, Any]:
    """One GenerateContentResponse carrying ``text``; the last one has the finish reason and usage."""
    candidate: dict[str, Any] = {"content": {"parts": [{"text": text}], "role": "model"}, "index": 0}
    chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-fake"}
    if last:
        candidate["finishReason"] = "STOP"
        chunk["usageMetadata"] = {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120}
    return chunk


# --- the HTTP side ----------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    """The fake cloud's replies; ``_handler`` makes one subclass per fake, ``fake`` set."""

    fake: ClassVar[FakeCloud]

    # HTTP/1.0: a streamed reply simply ends when the connection closes.
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test and benchmark output clean
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.fake.requests.append(body)
        self.fake.paths.append(self.path)
        if self.fake.kind == ANTHROPIC and body.get("stream"):
            self._stream(
                ("event: %s\ndata: %s\n\n" % (e, json.dumps(d, ensure_ascii=False)))
                for e, d in anthropic_events(self.fake, body)
            )
        elif self.fake.kind == ANTHROPIC:
            answer = self.fake.answer_for(body)
            citation = _anthropic_citation(body, answer)
            block = {"type": "text", "text": answer.text, "citations": [citation] if citation else None}
            self._json(_anthropic_message(body, answer, [block]))
        elif "streamGenerateContent" in self.path:
            pieces = gemini_pieces(self.fake, self.fake.answer_for(body))
            self._stream(
                "data: %s\n\n" % json.dumps(gemini_chunk(p, last=i == len(pieces) - 1), ensure_ascii=False)
                for i, p in enumerate(pieces)
            )
        else:
            self._json(gemini_chunk(gemini_json(self.fake.answer_for(body)), last=True))

    def _json(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, events: Iterator[str]) -> None:
        """Send ``events``, pausing between text pieces; record whether all of them went out."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        sent = 0
        try:
            for event in events:
                if "text_delta" in event or "streamGenerateContent" in self.path:
                    if self.fake.fail_after is not None and sent >= self.fake.fail_after:
                        self._break()
                        self.fake.streams.append(False)
                        return
                    if sent:
                        time.sleep(self.fake.pause)
                    sent += 1
                self.wfile.write(event.encode("utf-8"))
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.fake.streams.append(False)  # the client closed the stream (stop, or a timeout)
            return
        self.fake.streams.append(True)

    def _break(self) -> None:
        if self.fake.kind == ANTHROPIC:
            error = {"type": "error", "error": {"type": "overloaded_error", "message": "fake overload"}}
            self.wfile.write(f"event: error\ndata: {json.dumps(error)}\n\n".encode())
        # Gemini: the connection just ends before the JSON is complete.
        self.wfile.flush()


def _handler(fake: FakeCloud) -> type[BaseHTTPRequestHandler]:
    """A request handler class answering as ``fake``."""
    return type("Handler", (_Handler,), {"fake": fake})
