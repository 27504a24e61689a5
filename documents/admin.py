"""Admin listings of documents, their versions and chunks (inspection; uploads go through the portal)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from documents import selectors
from documents.models import Chunk, Document, DocumentVersion, IndexingTask
from documents.selectors import indexing_queue, task_version_id
from ragportal.admin_lookups import OfferedFiltersOnly


class ReadOnlyInline(admin.TabularInline):
    """An inline that only shows rows: indexing owns chunks and versions."""

    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class VersionInline(ReadOnlyInline):
    model = DocumentVersion
    fields = ("number", "original_name", "size", "encoding", "created_at", "indexed_at", "embedding_model", "error")
    readonly_fields = fields


class ChunkInline(ReadOnlyInline):
    model = Chunk
    fk_name = "version"
    fields = ("ordinal", "heading_path", "text_preview", "start", "end")
    readonly_fields = fields

    @admin.display(description=_("本文"))
    def text_preview(self, chunk: Chunk) -> str:
        return Truncator(chunk.text).chars(200)


@admin.register(Document)
class DocumentAdmin(OfferedFiltersOnly, admin.ModelAdmin):
    list_display = ("filename", "title", "owner", "status", "live_version", "chunk_count", "updated_at")
    list_filter = ("status", "groups", "owner")
    search_fields = ("filename", "title")
    list_select_related = ("owner", "live_version")
    readonly_fields = ("live_version", "status", "status_message", "created_at", "updated_at")
    filter_horizontal = ("groups",)
    inlines = (VersionInline,)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        # A subquery, not Count("chunks"): the join would copy each row, with its live version's text, per chunk.
        return (
            super()
            .get_queryset(request)
            .defer("live_version__text")
            .annotate(n_chunks=selectors.chunk_count(of="document"))
        )

    @admin.display(description=_("チャンク数"), ordering="n_chunks")
    def chunk_count(self, document: Document) -> int:
        return document.n_chunks  # type: ignore[attr-defined]  # annotated by get_queryset


@admin.register(DocumentVersion)
class DocumentVersionAdmin(OfferedFiltersOnly, admin.ModelAdmin):
    list_display = (
        "document",
        "number",
        "original_name",
        "size",
        "encoding",
        "created_at",
        "indexed_at",
        "embedding_model",
    )
    list_filter = ("embedding_model", "encoding")
    search_fields = ("document__filename", "original_name", "sha256")
    list_select_related = ("document",)
    date_hierarchy = "created_at"
    inlines = (ChunkInline,)
    exclude = ("text",)
    readonly_fields = (
        "document",
        "number",
        "file",
        "original_name",
        "sha256",
        "size",
        "encoding",
        "uploaded_by",
        "created_at",
        "indexed_at",
        "embedding_model",
        "error",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[DocumentVersion]:
        return super().get_queryset(request).defer("text")  # a page of versions would load every text in full

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Versions are created by uploading through the documents pages, which also index them.
        return False


@admin.register(Chunk)
class ChunkAdmin(OfferedFiltersOnly, admin.ModelAdmin):
    list_display = ("document", "version", "ordinal", "heading_path", "text_preview")
    list_filter = ("document",)
    search_fields = ("document__filename", "heading_path", "text")
    list_select_related = ("document", "version", "version__document")
    readonly_fields = ("document", "version", "ordinal", "heading_path", "text", "start", "end")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Chunk]:
        # Each listed chunk joins its version: without this, a page of 100 chunks loads the version's text 100 times.
        return super().get_queryset(request).defer("version__text", "sentence_vectors")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("本文"))
    def text_preview(self, chunk: Chunk) -> str:
        return Truncator(chunk.text).chars(80)


@admin.register(IndexingTask)
class IndexingQueueAdmin(OfferedFiltersOnly, admin.ModelAdmin):
    """The indexing queue: versions waiting for a worker or being indexed, in the order the workers take them.

    Read-only; django-tasks-db's own "Task results" list keeps every task, finished ones included.
    """

    list_display = ("place", "document_link", "version_number", "status", "progress", "enqueued_at", "started_at")
    list_filter = ("status",)
    list_display_links = None
    list_per_page = 100

    def get_queryset(self, request: HttpRequest) -> QuerySet[IndexingTask]:
        return indexing_queue(statuses=("READY", "RUNNING"))

    def _version(self, task: IndexingTask) -> DocumentVersion | None:
        """The task's version with its document and chunk count (one query a row: a page holds at most 100)."""
        version_id = task_version_id(task)
        if version_id is None:
            return None
        return (
            DocumentVersion.objects.filter(pk=version_id)
            .select_related("document")
            .annotate(chunk_count=Count("chunks"))
            .first()
        )

    @admin.display(description=_("順番"))
    def place(self, task: IndexingTask) -> str:
        if task.status != "READY":
            return str(_("実行中"))
        ahead = IndexingTask.objects.filter(status="READY").filter(
            Q(priority__gt=task.priority)
            | Q(priority=task.priority, run_after__lt=task.run_after)
            | Q(priority=task.priority, run_after=task.run_after, enqueued_at__lt=task.enqueued_at)
        )
        return str(ahead.count() + 1)

    @admin.display(description=_("文書"))
    def document_link(self, task: IndexingTask) -> str:
        version = self._version(task)
        if version is None:
            return str(_("（削除された版）"))
        url = reverse("admin:documents_document_change", args=[version.document_id])
        return format_html(
            '<a href="{}">{}</a> <small>{}</small>', url, version.document.title, version.document.filename
        )

    @admin.display(description=_("版"))
    def version_number(self, task: IndexingTask) -> str:
        version = self._version(task)
        return f"v{version.number}" if version is not None else "—"

    @admin.display(description=_("埋め込み済み"))
    def progress(self, task: IndexingTask) -> str:
        version = self._version(task)
        if version is None:
            return "—"
        total = version.chunk_count  # type: ignore[attr-defined]  # annotated by _version's queryset
        return f"{min(version.chunks_embedded, total)} / {total}"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_active and request.user.is_staff and request.user.has_perm("documents.view_document")
