"""Admin listings of documents, their versions and chunks (inspection; uploads go through the portal)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from documents.models import Chunk, Document, DocumentVersion
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
        return super().get_queryset(request).annotate(n_chunks=Count("chunks", distinct=True))

    @admin.display(description=_("チャンク数"), ordering="n_chunks")
    def chunk_count(self, document: Document) -> int:
        return document.n_chunks


@admin.register(DocumentVersion)
class DocumentVersionAdmin(OfferedFiltersOnly, admin.ModelAdmin):
    list_display = ("document", "number", "original_name", "size", "encoding", "created_at", "indexed_at", "embedding_model")
    list_filter = ("embedding_model", "encoding")
    search_fields = ("document__filename", "original_name", "sha256")
    list_select_related = ("document",)
    date_hierarchy = "created_at"
    inlines = (ChunkInline,)
    exclude = ("text",)
    readonly_fields = (
        "document", "number", "file", "original_name", "sha256", "size", "encoding",
        "uploaded_by", "created_at", "indexed_at", "embedding_model", "error",
    )

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

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("本文"))
    def text_preview(self, chunk: Chunk) -> str:
        return Truncator(chunk.text).chars(80)
