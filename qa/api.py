"""The Q&A REST API (mounted at /api/v1/): ask, search, health, feedback, own conversations and answers.

One view per operation, explicit input/output serializers, the same services
and selectors as the pages. Anonymous requests get 401 (token auth is tried
first so the response carries ``WWW-Authenticate``); another user's
conversation or answer is a 404; bad input is a 400 with field messages.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Generator, Iterator, Mapping
from typing import Any, cast

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import connection
from django.db.models import Count, QuerySet
from django.http import Http404, HttpResponseBase, StreamingHttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.permissions import AllowAny, IsAdminUser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.settings import api_settings
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from documents.failures import DenseIndexUnavailableError
from documents.models import Document
from documents.selectors import visible_documents
from qa import retrieval, selectors, services, streaming
from qa.models import Answer, Conversation
from qa.serializers import (
    AnswerPayloadSerializer,
    AskInputSerializer,
    ConversationDetailSerializer,
    ConversationSerializer,
    FeedbackInputSerializer,
    FeedbackOutputSerializer,
    DeepHealthSerializer,
    HealthSerializer,
    SearchInputSerializer,
    SearchOutputSerializer,
)
from qa.throttles import AskRateThrottle
from ragportal.api import query_int
from ragportal.http import signed_in
from ragportal.parsers import JSONParser


EVENT_STREAM_EXAMPLE = OpenApiExample(
    "stream",
    media_type="text/event-stream",
    response_only=True,
    value=(
        'event: delta\ndata: {"text": "有給休暇は入社6ヶ月後に"}\n\n'
        'event: delta\ndata: {"text": "10日付与されます。"}\n\n'
        'event: answer\ndata: {"id": 42, "answer": "有給休暇は入社6ヶ月後に10日付与されます。", "citations": [...], ...}\n\n'
    ),
)
BAD_REQUEST = OpenApiResponse(OpenApiTypes.OBJECT, description="入力エラー（フィールドごとのメッセージ）")
UNAUTHENTICATED = OpenApiResponse(OpenApiTypes.OBJECT, description="未認証")
NOT_FOUND = OpenApiResponse(OpenApiTypes.OBJECT, description="存在しない、または他のユーザーのもの")
THROTTLED = OpenApiResponse(OpenApiTypes.OBJECT, description="リクエストが多すぎます")


def _field_errors(exc: DjangoValidationError) -> ValidationError:
    """A service's ValidationError as DRF's 400 with field messages."""
    if hasattr(exc, "error_dict"):
        return ValidationError(exc.message_dict)
    return ValidationError({"non_field_errors": exc.messages})


UNAVAILABLE = OpenApiResponse(OpenApiTypes.OBJECT, description="検索用の索引に接続できません（何も保存されません）")


class SearchUnavailable(APIException):
    """503: the Chroma server cannot be reached; the detail says so in the reader's language."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "search_unavailable"


class QaAPIView(APIView):
    parser_classes = [JSONParser]


class EventStreamRenderer(BaseRenderer):
    """``text/event-stream``: what ``Accept: text/event-stream`` negotiates. A refusal (400, 401, 429, 503)
    is one ``error`` event carrying the JSON body the plain call would get."""

    media_type = "text/event-stream"
    format = "event-stream"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Mapping[str, Any] | None = None
    ) -> bytes:
        return b"" if data is None else sse_event("error", data)


def sse_event(name: str, data: Any) -> bytes:
    """One Server-Sent Event whose data is JSON encoded as the plain API encodes it."""
    return streaming.sse_event(name, JSONRenderer().render(data))


EVENT_STREAM_DESCRIPTION = (
    "`Accept: text/event-stream` のとき（本文は同じ JSON）、回答をストリームで返す（`text/event-stream`）。\n\n"
    '- `event: delta` / `data: {"text": "..."}`: 生成中の回答文の断片（届いた順）。引用の検証前の下書き。\n'
    "- `event: answer` / `data`: 検証済みの回答。通常の呼び出しが返す JSON と同じ（保存された回答と同一）。最後に1回だけ。\n"
    '- `event: error` / `data: {"detail": "..."}`: 回答できなかった（入力エラーなどは HTTP ステータスも同じ）。'
    "回答の生成に失敗した場合は保存された回答を `answer` に含む。\n"
    "- `: keepalive`: 何も届かない間のコメント行。\n\n"
    "クラウドの回答生成が失敗・時間切れのときは、文書の該当箇所をそのまま示す回答（警告つき、要確認）が `answer` で届く。"
)


class AskAPI(QaAPIView):
    throttle_classes = [AskRateThrottle]
    # api_settings imports the setting's dotted paths: classes at runtime, typed as the raw strings.
    renderer_classes = [*cast("list[type[BaseRenderer]]", api_settings.DEFAULT_RENDERER_CLASSES), EventStreamRenderer]

    @extend_schema(
        operation_id="ask",
        summary="質問する",
        description=EVENT_STREAM_DESCRIPTION,
        # The stream is chosen by the Accept header; ?format= is not part of this API.
        parameters=[OpenApiParameter("format", exclude=True)],
        request=AskInputSerializer,
        responses={
            (200, "application/json"): AnswerPayloadSerializer,
            (200, "text/event-stream"): OpenApiResponse(
                OpenApiTypes.STR, description="delta* の後に answer（または error）", examples=[EVENT_STREAM_EXAMPLE]
            ),
            400: BAD_REQUEST,
            401: UNAUTHENTICATED,
            429: THROTTLED,
            503: UNAVAILABLE,
        },
    )
    def post(self, request: Request) -> HttpResponseBase:
        data = AskInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        conversation = None
        if data.validated_data.get("conversation"):
            conversation = (
                selectors.conversations_for_user(request.user).filter(pk=data.validated_data["conversation"]).first()
            )
            if conversation is None:
                raise ValidationError({"conversation": [_("この会話は見つかりません。")]})
        document = None
        if data.validated_data.get("document"):
            # Existence only; whether the user may see it is the service's rule.
            document = Document.objects.filter(pk=data.validated_data["document"]).first()
            if document is None:
                raise ValidationError({"document": [_("この文書は見つかりません。")]})
        if isinstance(request.accepted_renderer, EventStreamRenderer):
            return _answer_stream(request, data.validated_data["text"], conversation, document)
        try:
            result = services.answer_question(
                user=signed_in(request.user),
                text=data.validated_data["text"],
                conversation=conversation,
                document=document,
            )
        except DjangoValidationError as exc:
            raise _field_errors(exc) from None
        except DenseIndexUnavailableError:
            raise SearchUnavailable(services.SEARCH_UNAVAILABLE) from None
        return Response(AnswerPayloadSerializer(result).data)


def _answer_stream(
    request: Request, text: str, conversation: Conversation | None, document: Document | None
) -> StreamingHttpResponse:
    """The answer as events. Waits for the first one, so that refused input is a 400 (503) as in a plain call."""
    events = streaming.answer_question_stream(
        user=request.user, text=text, conversation=conversation, document=document
    )
    try:
        first = next(event for event in events if event is not None)
    except DjangoValidationError as exc:
        raise _field_errors(exc) from None
    except DenseIndexUnavailableError:
        raise SearchUnavailable(services.SEARCH_UNAVAILABLE) from None
    response = StreamingHttpResponse(_events(first, events), content_type=streaming.EVENT_STREAM)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


def _events(first: streaming.StreamEvent, events: Generator[streaming.StreamEvent, None, None]) -> Iterator[bytes]:
    """The SSE body: ``delta`` events, then ``answer`` (the payload of the result handed over) or ``error``."""
    try:
        for event in itertools.chain([first], events):
            if isinstance(event, streaming.Delta):
                yield sse_event("delta", {"text": event.text})
            elif isinstance(event, streaming.Done):
                payload = AnswerPayloadSerializer(event.result).data
                if event.result.response_type == Answer.ResponseType.ERROR:
                    yield sse_event("error", {"detail": event.result.answer.answer_text, "answer": payload})
                else:
                    yield sse_event("answer", payload)
            else:
                yield streaming.HEARTBEAT
    except Exception as exc:  # noqa: BLE001 - the status line has gone: the failure can only be an event (logged there)
        yield sse_event("error", {"detail": streaming.failure_detail(exc)})
    finally:
        events.close()  # a client that left cancels the provider call


class SearchAPI(QaAPIView):
    # Each search embeds the query (and may call the cloud LLM for expansion): same per-user limit as ask.
    throttle_classes = [AskRateThrottle]

    @extend_schema(
        operation_id="search",
        summary="文書を検索する（回答は生成しない）",
        request=SearchInputSerializer,
        responses={200: SearchOutputSerializer, 400: BAD_REQUEST, 401: UNAUTHENTICATED, 503: UNAVAILABLE},
    )
    def post(self, request: Request) -> Response:
        data = SearchInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        document_id = data.validated_data.get("document")
        if document_id and not visible_documents(request.user).filter(pk=document_id).exists():
            raise ValidationError({"document": [_("この文書は見つかりません。")]})
        try:
            result = retrieval.search(
                user=request.user,
                query=data.validated_data["query"],
                document_id=document_id,
                k=data.validated_data.get("k"),
            )
        except DenseIndexUnavailableError:
            raise SearchUnavailable(services.SEARCH_UNAVAILABLE) from None
        payload = {
            "query": result.query,
            "expanded_query": result.expanded_query,
            "added_keywords": list(result.added_keywords),
            "hits": [
                {
                    "chunk_id": h.chunk_id,
                    "document_id": h.document_id,
                    "filename": h.filename,
                    "title": h.title,
                    "section": h.section,
                    "score": h.score,
                    "similarity": h.similarity,
                    "text": h.text,
                }
                for h in result.hits
            ],
            "timings": {k: round(float(v), 3) for k, v in result.timings.items()},
        }
        return Response(payload)


def _check(probe: Callable[[], Any]) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        probe()
    except Exception as exc:  # noqa: BLE001 - a health check reports every failure
        # The class name only: health is public and must not leak paths or hosts.
        return {"ok": False, "latency_ms": _ms(started), "error": exc.__class__.__name__}
    return {"ok": True, "latency_ms": _ms(started)}


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


def _probe_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _probe_chroma() -> None:
    from documents.vectorstore import live_collection

    live_collection().count()


def _probe_embedding_now() -> None:
    from documents.embeddings import embed_queries

    vectors = embed_queries(["health"])
    if vectors.shape[0] != 1 or vectors.shape[1] == 0:
        raise RuntimeError("empty embedding")


_embedding_ok_at: float | None = None


def _probe_embedding() -> None:
    """The model answers; a success is reused for RAG_HEALTH_CACHE_S (a probe costs a model call)."""
    global _embedding_ok_at
    if _embedding_ok_at is not None and time.monotonic() - _embedding_ok_at < settings.RAG_HEALTH_CACHE_S:
        return
    _probe_embedding_now()
    _embedding_ok_at = time.monotonic()


class IndexDriftError(Exception):
    """The dense index does not hold the live chunks (e.g. a lost Chroma directory): answers degrade."""


def _probe_index() -> None:
    from documents.recovery import dense_count_check

    if not dense_count_check().ok:
        raise IndexDriftError


# A failing probe here leaves the portal answering, worse: "degraded" (200), not "error" (503).
_DEGRADING = {"index"}


def _health(probes: dict[str, Callable[[], None]]) -> tuple[str, dict[str, Any]]:
    checks = {name: _check(probe) for name, probe in probes.items()}
    failed = {name for name, check in checks.items() if not check["ok"]}
    return ("ok" if not failed else "degraded" if failed <= _DEGRADING else "error"), checks


class HealthAPI(APIView):
    """Public liveness/readiness: 200 "ok", 200 "degraded" (the dense index lost entries), 503 "error" (a part is down).

    Cheap enough for a load balancer to call often: the embedding check is cached
    for a short time and the index check compares two counts. Operators get the
    full picture from ``/api/v1/health/deep``.
    """

    authentication_classes: list = []
    permission_classes = [AllowAny]
    # Public and it may run the embedding model: a per-address limit keeps it from being a CPU lever.
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "health"
    probes: dict[str, Callable[[], None]] = {
        "database": _probe_database,
        "chroma": _probe_chroma,
        "embedding": _probe_embedding,
        "index": _probe_index,
    }

    @extend_schema(operation_id="health", summary="稼働状況", responses={200: HealthSerializer, 503: HealthSerializer})
    def get(self, request: Request) -> Response:
        state, checks = _health(self.probes)
        return Response(
            {"status": state, "checks": checks},
            status=status.HTTP_503_SERVICE_UNAVAILABLE if state == "error" else status.HTTP_200_OK,
        )


def _drift_name(document_id: int | None, filenames: dict[int, str], readable: set[int]) -> str:
    """A drifting document's file name, or a placeholder when it is gone or the viewer may not read it."""
    if not document_id or document_id not in filenames:
        return DELETED_DOCUMENT
    return filenames[document_id] if document_id in readable else RESTRICTED_DOCUMENT


DELETED_DOCUMENT = "(deleted document)"
RESTRICTED_DOCUMENT = "(restricted document)"


class DeepHealthAPI(APIView):
    """For operators (staff): every probe run now, and the live chunks compared entry by entry with both indexes.

    The same comparison as ``manage.py check_index``; slower (it reads both
    indexes whole), so it is not for load balancers. A document's file name is
    shown only to staff who may read the document (``visible_documents``: every
    superuser); other staff get its counts under ``"(restricted document)"``, so
    the page does not tell an owner which restricted files exist.
    """

    permission_classes = [IsAdminUser]

    @extend_schema(
        operation_id="health_deep",
        summary="稼働状況（詳細）",
        responses={
            200: DeepHealthSerializer,
            401: UNAUTHENTICATED,
            403: OpenApiResponse(OpenApiTypes.OBJECT, description="管理者（スタッフ）のみ"),
            503: DeepHealthSerializer,
        },
    )
    def get(self, request: Request) -> Response:
        from documents.recovery import index_check

        state, checks = _health({**HealthAPI.probes, "embedding": _probe_embedding_now})
        report: dict[str, Any] = {"live_chunks": 0, "dense_entries": 0, "keyword_entries": 0, "documents": []}
        if state != "error":
            check = index_check()
            readable = set(visible_documents(request.user).filter(pk__in=check.filenames).values_list("pk", flat=True))
            report = {
                "live_chunks": check.live_chunks,
                "dense_entries": check.dense_entries,
                "keyword_entries": check.keyword_entries,
                "documents": [
                    {"filename": _drift_name(d.document_id, check.filenames, readable), "counts": d.counts()}
                    for d in check.drifts
                ],
            }
            if check.drifts and state == "ok":
                state = "degraded"
        return Response(
            {"status": state, "checks": checks, "index": report},
            status=status.HTTP_503_SERVICE_UNAVAILABLE if state == "error" else status.HTTP_200_OK,
        )


class FeedbackAPI(QaAPIView):
    @extend_schema(
        operation_id="answer_feedback",
        summary="回答を評価する（👍=1 / 👎=-1、👎には理由が必要）",
        request=FeedbackInputSerializer,
        responses={200: FeedbackOutputSerializer, 400: BAD_REQUEST, 401: UNAUTHENTICATED, 404: NOT_FOUND},
    )
    def post(self, request: Request, pk: int) -> Response:
        answer = selectors.get_answer_for_user(request.user, pk)
        data = FeedbackInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            feedback = services.feedback_record(answer=answer, user=signed_in(request.user), **data.validated_data)
        except DjangoValidationError as exc:
            raise _field_errors(exc) from None
        return Response(FeedbackOutputSerializer(feedback).data)


class ConversationListAPI(generics.ListAPIView):
    serializer_class = ConversationSerializer

    def get_queryset(self) -> QuerySet[Conversation]:
        return selectors.conversations_for_user(self.request.user).annotate(answer_count=Count("answers"))

    @extend_schema(
        operation_id="conversations_list",
        summary="自分の会話一覧",
        responses={200: ConversationSerializer(many=True), 400: BAD_REQUEST, 401: UNAUTHENTICATED},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class ConversationDetailAPI(QaAPIView):
    @extend_schema(
        operation_id="conversations_retrieve",
        summary="自分の会話（回答つき）",
        responses={200: ConversationDetailSerializer, 401: UNAUTHENTICATED, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        conversation = (
            selectors.conversations_for_user(request.user).annotate(answer_count=Count("answers")).filter(pk=pk).first()
        )
        if conversation is None:
            raise Http404
        answers = (
            selectors.with_citations(selectors.answers_for_user(request.user))
            .filter(conversation=conversation)
            .order_by("created_at", "pk")
        )
        return Response(ConversationDetailSerializer(conversation, context={"answers": answers}).data)


class AnswerListAPI(generics.ListAPIView):
    serializer_class = AnswerPayloadSerializer

    def get_queryset(self) -> QuerySet[Answer]:
        answers = selectors.with_citations(selectors.answers_for_user(self.request.user)).order_by("-created_at", "-pk")
        conversation = query_int(self.request, "conversation")
        if conversation is not None:
            answers = answers.filter(conversation_id=conversation)
        return answers

    @extend_schema(
        operation_id="answers_list",
        summary="自分の回答一覧（新しい順）",
        parameters=[OpenApiParameter("conversation", int, description="この会話の回答だけ")],
        responses={200: AnswerPayloadSerializer(many=True), 400: BAD_REQUEST, 401: UNAUTHENTICATED},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class AnswerDetailAPI(QaAPIView):
    @extend_schema(
        operation_id="answers_retrieve",
        summary="自分の回答",
        responses={200: AnswerPayloadSerializer, 401: UNAUTHENTICATED, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(AnswerPayloadSerializer(selectors.get_answer_for_user(request.user, pk)).data)
