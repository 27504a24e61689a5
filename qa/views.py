"""Chat pages: a conversation, the question box, answers (HTMX fragments) and feedback.

Every view works as a plain form POST (redirect back to the conversation) and,
when ``request.htmx``, returns only the fragment to swap in. Access goes through
``qa.selectors`` (another user's conversation or answer is a 404); the writes go
through ``qa.services`` exactly as the API's do.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Generator, Iterator
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Page, Paginator
from django.http import Http404, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import push_url, reswap, retarget

from documents.failures import DenseIndexUnavailableError
from documents.selectors import visible_documents
from qa import api_tokens, selectors, services, streaming
from qa.models import Answer, Conversation, Feedback
from qa.presenters import answer_view
from qa.results import AnswerResult
from ragportal.http import AuthenticatedHttpRequest

CONVERSATION_LIST_SIZE = 30
# The query parameter of the sidebar's page of past conversations.
CONVERSATION_PAGE_PARAM = "conversations"
# The session entry holding a just-created API key until the page has shown it once.
NEW_API_KEY_SESSION_KEY = "qa.new_api_key"


def _get_conversation_for_user(request: AuthenticatedHttpRequest, pk: int) -> Conversation:
    """The user's own conversation, or 404 (another user's conversation is indistinguishable from none)."""
    conversation = selectors.conversations_for_user(request.user).filter(pk=pk).first()
    if conversation is None:
        raise Http404
    return conversation


def _exchange(shown: AnswerResult | Answer, feedback: Feedback | None) -> dict[str, Any]:
    view = answer_view(shown)
    return {"view": view, "answer": view.answer, "feedback": feedback}


def _exchanges(request: AuthenticatedHttpRequest, answers: list[Answer]) -> list[dict[str, Any]]:
    ratings = {f.answer_id: f for f in Feedback.objects.filter(user=request.user, answer__in=answers)}
    return [_exchange(a, ratings.get(a.pk)) for a in answers]


def _conversation_list(request: AuthenticatedHttpRequest, *, first: bool = False) -> dict[str, Any]:
    """The sidebar's page of past conversations (the requested one, or the first), newest first.

    An out-of-range or malformed page number shows the nearest valid page.
    """
    paginator = Paginator(selectors.conversation_list_for_user(request.user), CONVERSATION_LIST_SIZE)
    page: Page = paginator.get_page(1 if first else request.GET.get(CONVERSATION_PAGE_PARAM))
    return {"conversations": page.object_list, "conversation_page": page, "page_param": CONVERSATION_PAGE_PARAM}


def _page_context(request: AuthenticatedHttpRequest, conversation: Conversation | None) -> dict[str, Any]:
    answers: list[Answer] = []
    if conversation is not None:
        answers = list(
            selectors.with_citations(selectors.answers_for_user(request.user))
            .filter(conversation=conversation)
            .order_by("created_at", "pk")
        )
    return {
        "conversation": conversation,
        "exchanges": _exchanges(request, answers),
        **_conversation_list(request),
        "reason_choices": Feedback.Reason.choices,
    }


def _conversation_url(conversation: Conversation, answer: Answer | None = None) -> str:
    url = reverse("qa:conversation", args=[conversation.pk])
    return f"{url}#answer-{answer.pk}" if answer else url


@login_required
@require_GET
def chat(request: AuthenticatedHttpRequest) -> HttpResponse:
    """A new, empty conversation: question box and the list of past conversations."""
    return render(request, "qa/chat.html", _page_context(request, None))


@login_required
@require_GET
def conversation_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """One of the user's conversations so far, with the question box to continue it."""
    return render(request, "qa/chat.html", _page_context(request, _get_conversation_for_user(request, pk)))


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


def _ask_input(request: AuthenticatedHttpRequest) -> tuple[Conversation | None, Any, str, list[str]]:
    """The question box's fields: (conversation, document, text, errors). Another user's conversation is a 404."""
    conversation_id = _int_or_none(request.POST.get("conversation"))
    conversation = _get_conversation_for_user(request, conversation_id) if conversation_id else None
    document_id = _int_or_none(request.POST.get("document"))
    errors: list[str] = []
    document = None
    if request.POST.get("document") and document_id is None:
        errors.append(_("文書の指定が正しくありません。"))
    elif document_id is not None:
        # A hidden document and a missing one get the same answer: ids reveal nothing.
        document = visible_documents(request.user).filter(pk=document_id).first()
        if document is None:
            errors.append(_("指定された文書が見つかりません。"))
    return conversation, document, request.POST.get("text", ""), errors


def _ask_response_context(request: AuthenticatedHttpRequest, result: AnswerResult) -> dict[str, Any]:
    """What ``_ask_response.html`` needs: the exchange as answered, and the conversation id and list to refresh."""
    return {
        **_exchange(result, None),
        "reason_choices": Feedback.Reason.choices,
        "conversation": result.answer.conversation,
        # The conversation just asked in moves to the top: show the first page.
        **_conversation_list(request, first=True),
        "oob": True,
    }


@login_required
@require_POST
def ask(request: AuthenticatedHttpRequest) -> HttpResponseBase:
    """Ask a question (optionally in a conversation, optionally restricted to one document).

    HTMX: returns the question + answer fragment to append to the conversation,
    refreshes the conversation id and list out of band, and pushes the
    conversation URL. Without JavaScript: redirects to the conversation.
    Invalid input re-renders the form errors (HTMX: into ``#ask-errors``).
    With ``Accept: text/event-stream`` (``static/js/answer_stream.js``) the
    answer streams instead: see ``_ask_stream``.
    """
    conversation, document, text, errors = _ask_input(request)
    if streaming.EVENT_STREAM_TYPE in request.headers.get("Accept", ""):
        return _ask_stream(request, conversation, document, text, errors)
    unavailable = False
    result = None
    if not errors:
        try:
            result = services.answer_question(
                user=request.user, text=text, conversation=conversation, document=document
            )
        except ValidationError as exc:
            errors = list(exc.messages)
        except DenseIndexUnavailableError:
            errors, unavailable = [str(services.SEARCH_UNAVAILABLE)], True

    if errors:
        if request.htmx:  # htmx swaps 2xx responses only: the errors come back as 200
            response = render(request, "qa/partials/_ask_errors.html", {"errors": errors})
            return reswap(retarget(response, "#ask-errors"), "innerHTML")
        context = _page_context(request, conversation)
        context.update(errors=errors, question_text=text)
        return render(request, "qa/chat.html", context, status=503 if unavailable else 400)

    assert result is not None
    if not request.htmx:
        return redirect(_conversation_url(result.answer.conversation, result.answer))
    response = render(request, "qa/partials/_ask_response.html", _ask_response_context(request, result))
    return push_url(response, _conversation_url(result.answer.conversation))


def _ask_stream(
    request: AuthenticatedHttpRequest, conversation: Conversation | None, document: Any, text: str, errors: list[str]
) -> HttpResponseBase:
    """The question box's answer as Server-Sent Events.

    ``delta`` events carry the draft text as the provider writes it; then one
    ``answer`` event carries ``html`` (what ``ask`` returns to htmx: the checked
    answer and the out-of-band refreshes) and the conversation ``url``; or one
    ``error`` event carries the form errors' ``html`` (status 400/503, nothing
    stored) or, once the stream has begun, a ``detail`` message. Leaving early
    (the stop button) cancels the provider call.
    """
    status = 400
    if not errors:
        events = streaming.answer_question_stream(
            user=request.user, text=text, conversation=conversation, document=document
        )
        try:
            first = next(event for event in events if event is not None)
        except ValidationError as exc:
            errors = list(exc.messages)
        except DenseIndexUnavailableError:
            errors, status = [str(services.SEARCH_UNAVAILABLE)], 503
    if errors:
        html = render_to_string("qa/partials/_ask_errors.html", {"errors": errors}, request)
        return HttpResponse(_chat_event("error", {"html": html}), content_type=streaming.EVENT_STREAM, status=status)
    response = StreamingHttpResponse(_chat_events(request, first, events), content_type=streaming.EVENT_STREAM)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def _chat_event(name: str, data: dict[str, Any]) -> bytes:
    return streaming.sse_event(name, json.dumps(data, ensure_ascii=False).encode("utf-8"))


def _chat_events(
    request: AuthenticatedHttpRequest,
    first: streaming.StreamEvent,
    events: Generator[streaming.StreamEvent, None, None],
) -> Iterator[bytes]:
    try:
        for event in itertools.chain([first], events):
            if isinstance(event, streaming.Delta):
                yield _chat_event("delta", {"text": event.text})
            elif isinstance(event, streaming.Done):
                html = render_to_string(
                    "qa/partials/_ask_response.html", _ask_response_context(request, event.result), request
                )
                url = _conversation_url(event.result.answer.conversation)
                yield _chat_event("answer", {"html": html, "url": url})
            else:
                yield streaming.HEARTBEAT
    except Exception as exc:  # noqa: BLE001 - the status line has gone: the failure can only be an event (logged there)
        yield _chat_event("error", {"detail": streaming.failure_detail(exc)})
    finally:
        events.close()  # the reader left (stop): the provider call is cancelled


@login_required
@require_POST
def feedback(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Record (or change) the user's 👍/👎 on one of their answers; 👎 needs a reason."""
    answer = selectors.get_answer_for_user(request.user, pk)
    error = ""
    saved = None
    try:
        saved = services.feedback_record(
            answer=answer,
            user=request.user,
            rating=_int_or_none(request.POST.get("rating")) or 0,
            reason=request.POST.get("reason", ""),
            comment=request.POST.get("comment", ""),
        )
    except ValidationError as exc:
        error = " ".join(exc.messages)
    if request.htmx:
        current = saved or Feedback.objects.filter(answer=answer, user=request.user).first()
        context = {
            "answer": answer,
            "feedback": current,
            "saved": saved is not None,
            "error": error,
            "reason_choices": Feedback.Reason.choices,
        }
        return render(request, "qa/partials/_feedback.html", context, status=200)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, _("フィードバックを保存しました。"))
    return redirect(_conversation_url(answer.conversation, answer))


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def api_token(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The signed-in user's personal API token: create (or replace) it, see its key once, revoke it.

    POST-redirect-GET: creating stores the new key in the session and redirects,
    and the next GET pops it, so the key is shown exactly once and reloading the
    page (or going back) never re-sends the form and silently replaces the token.
    Responses are not cached; later visits show when the token was made.
    """
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "create":
            created = api_tokens.api_token_create(user=request.user)
            request.session[NEW_API_KEY_SESSION_KEY] = created.key
        elif action == "revoke" and api_tokens.api_token_revoke(user=request.user):
            messages.success(request, _("APIトークンを無効にしました。"))
        return redirect("qa:api_token")
    token = api_tokens.api_token_for_user(request.user)
    new_key = request.session.pop(NEW_API_KEY_SESSION_KEY, None)
    context = {
        "token": token,
        # A key whose token was since replaced or revoked (another tab) is not shown.
        "new_key": new_key if token is not None and new_key == token.key else None,
        "ask_url": request.build_absolute_uri("/api/v1/ask"),
    }
    return render(request, "qa/api_token.html", context)
