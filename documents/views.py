"""Owner pages: upload, list, detail (versions and chunks), replace, re-index, delete.

Thin HTMX views over ``documents.services``, the same services the API and
the management commands call. Access:

- anonymous users are sent to the login page (``@login_required``);
- the list and upload pages need the owner role (``owners`` group or staff),
  anyone else signed in gets 403;
- a document is reached only through ``_get_document_for_owner``: the owner's
  own, or any for staff; everything else is a 404, so its existence is not revealed.

Every form works as a plain POST (redirect after success, the page again with
HTTP 400 on bad input) and, with HTMX, swaps only the form fragment (also 400
on bad input; the forms opt in to swapping that response).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, HttpResponseClientRefresh

from documents.failures import DELETE_UNAVAILABLE, DenseIndexUnavailableError
from documents.forms import DocumentUploadForm, VersionUploadForm, read_upload
from documents.models import Chunk, Document, DocumentVersion
from documents.notices import notices_for
from documents.roles import is_owner
from documents.selectors import get_document_for_manager, indexing_progress, manageable_documents, queue_positions
from documents.services import document_delete, document_ingest, document_reindex, version_ingest
from ragportal.http import AuthenticatedHttpRequest

# How many "needs a document fix" answers a page lists at most.


def owner_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """403 for a signed-in user without the owner role; put it under ``@login_required``."""

    @wraps(view)
    def wrapper(request: AuthenticatedHttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not is_owner(request.user):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper


def _get_document_for_owner(request: AuthenticatedHttpRequest, pk: int) -> Document:
    """The document if the user may change it (owner or staff), else 404."""
    return get_document_for_manager(request.user, pk)


def _redirect(request: AuthenticatedHttpRequest, url: str) -> HttpResponse:
    # An HTMX request that succeeded leaves the page: the browser navigates, not swaps.
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _announce(request: AuthenticatedHttpRequest, document: Document, *, new_version: bool) -> None:
    """Tell the uploader what became of their file (indexed, still indexing, failed, or nothing new)."""
    if not new_version:
        messages.info(request, _("内容が最新の版と同じため、新しい版は作成しませんでした。"))
    elif document.status == Document.Status.FAILED:
        messages.error(request, document.status_message or _("索引の作成に失敗しました。"))
    elif document.status == Document.Status.READY:
        messages.success(request, _("「%(name)s」を登録し、検索できるようにしました。") % {"name": document.filename})
        warning = document.live_version.near_empty_warning if document.live_version else ""
        if warning:
            messages.warning(request, warning)
    else:
        messages.info(request, _("「%(name)s」を受け付けました。索引を作成しています。") % {"name": document.filename})


# --- list and upload ------------------------------------------------------------


@login_required
@owner_required
@require_GET
def document_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The user's documents (staff: all) with their status and any "needs a fix" answers."""
    documents = list(
        manageable_documents(request.user)
        .select_related("owner", "live_version")
        .defer("live_version__text")  # only the live version's number is shown
        .prefetch_related("groups")
        .order_by("filename")
    )
    notices = notices_for(request.user, documents)
    positions = queue_positions(documents)
    rows = [{"document": d, "fixes": notices.get(d.pk, []), "queue_position": positions.get(d.pk)} for d in documents]
    return render(
        request,
        "documents/list.html",
        {"rows": rows, "fix_count": sum(len(notices.get(d.pk, [])) for d in documents)},
    )


@login_required
@owner_required
@require_http_methods(["GET", "POST"])
def document_upload(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Upload a new document; bad input comes back in the form (HTTP 400) and nothing is stored."""
    if request.method == "POST":
        form = DocumentUploadForm(request.POST, request.FILES)
        if form.is_valid():
            uploaded = form.cleaned_data["file"]
            try:
                document = document_ingest(
                    owner=request.user,
                    filename=uploaded.name,
                    data=read_upload(uploaded),
                    title=form.cleaned_data["title"],
                    groups=form.cleaned_data["groups"],
                    folder=form.cleaned_data["folder"],
                )
            except ValidationError as exc:
                form.add_error("file", exc)
            else:
                _announce(request, document, new_version=True)
                return _redirect(request, reverse("documents:detail", args=[document.pk]))
        context = {"form": form, "max_mb": settings.RAG_MAX_UPLOAD_MB}
        if request.htmx:
            return render(request, "documents/partials/_upload_form.html", context, status=400)
        return render(request, "documents/upload.html", context, status=400)
    context = {"form": DocumentUploadForm(), "max_mb": settings.RAG_MAX_UPLOAD_MB}
    return render(request, "documents/upload.html", context)


# --- one document ---------------------------------------------------------------


def _detail_context(
    request: AuthenticatedHttpRequest, document: Document, replace_form: VersionUploadForm
) -> dict[str, Any]:
    versions = list(document.versions.select_related("uploaded_by").defer("text").order_by("-number"))
    # The chunks readers get: the live version's, or (before anything went live) the latest attempt's.
    shown: DocumentVersion | None = next((v for v in versions if v.pk == document.live_version_id), None)
    if shown is None and versions:
        shown = versions[0]
    chunks = (
        Chunk.objects.filter(version=shown).defer("sentence_vectors").order_by("ordinal")
        if shown
        else Chunk.objects.none()
    )
    return {
        "document": document,
        "versions": versions,
        "shown_version": shown,
        "chunks": chunks,
        "fixes": notices_for(request.user, [document]).get(document.pk, []),
        "replace_form": replace_form,
        "max_mb": settings.RAG_MAX_UPLOAD_MB,
        "progress": indexing_progress(document),
        "queue_position": queue_positions([document]).get(document.pk),
    }


@login_required
@require_GET
def document_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """A document with its versions and the chunks of its live version."""
    document = _get_document_for_owner(request, pk)
    return render(request, "documents/detail.html", _detail_context(request, document, VersionUploadForm()))


@login_required
@require_GET
def document_status(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The status badge alone (with chunks embedded / total while indexing), polled every 2 s until indexing ends.

    With ``?refresh=1`` (the detail page) a finished status reloads the page, so
    the versions and chunks shown match what is now live.
    """
    document = _get_document_for_owner(request, pk)
    refresh = request.GET.get("refresh") == "1"
    if request.htmx and refresh and document.status in (Document.Status.READY, Document.Status.FAILED):
        return HttpResponseClientRefresh()
    context = {
        "document": document,
        "refresh": refresh,
        "progress": indexing_progress(document),
        "queue_position": queue_positions([document]).get(document.pk),
    }
    return render(request, "documents/partials/_status.html", context)


@login_required
@require_POST
def document_replace(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Upload a new version; until it is indexed (or if that fails) the previous version stays live."""
    document = _get_document_for_owner(request, pk)
    form = VersionUploadForm(request.POST, request.FILES)
    if form.is_valid():
        uploaded = form.cleaned_data["file"]
        try:
            result = version_ingest(
                owner=request.user, filename=uploaded.name, data=read_upload(uploaded), document=document
            )
        except ValidationError as exc:
            form.add_error("file", exc)
        else:
            document = result.document
            _announce(request, document, new_version=result.changed)
            return _redirect(request, reverse("documents:detail", args=[document.pk]))
    if request.htmx:
        context = {"document": document, "replace_form": form, "max_mb": settings.RAG_MAX_UPLOAD_MB}
        return render(request, "documents/partials/_replace_form.html", context, status=400)
    return render(request, "documents/detail.html", _detail_context(request, document, form), status=400)


@login_required
@require_POST
def document_reindex_view(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Index the latest version again (the live one keeps answering meanwhile)."""
    document = _get_document_for_owner(request, pk)
    try:
        document_reindex(document=document)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        document.refresh_from_db()
        if document.status == Document.Status.FAILED:
            messages.error(request, document.status_message)
        elif document.status == Document.Status.READY:
            messages.success(request, _("索引を作り直しました。"))
        else:
            messages.info(request, _("索引を作り直しています。"))
    return _redirect(request, reverse("documents:detail", args=[document.pk]))


@login_required
@require_http_methods(["GET", "POST"])
def document_delete_view(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """GET asks for confirmation; POST removes the document from both indexes and the database.

    With the Chroma server down nothing is removed: the confirmation page again, with HTTP 503 and the reason.
    """
    document = _get_document_for_owner(request, pk)
    status = 200
    if request.method == "POST":
        name = document.filename
        try:
            document_delete(document=document)
        except DenseIndexUnavailableError:
            messages.error(request, DELETE_UNAVAILABLE)
            status = 503
        else:
            messages.success(request, _("「%(name)s」を削除しました。") % {"name": name})
            return _redirect(request, reverse("documents:list"))
    context = {"document": document, "version_count": document.versions.count(), "chunk_count": document.chunks.count()}
    return render(request, "documents/delete.html", context, status=status)
