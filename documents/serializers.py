"""Input and output serializers of the documents API.

Inputs check shape only (a file is present, the named groups exist); whether
the file can become a document is ``documents.services.document_ingest``'s
rule, whose message the API returns under ``file``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from documents.filenames import clean_filename, clean_folder
from documents.models import Document, DocumentVersion
from ragportal.api import database_id
from documents.selectors import chunk_count

# --- inputs -----------------------------------------------------------------


@extend_schema_field(OpenApiTypes.STR)
class GroupReferenceField(serializers.Field):
    """A group given by name or by numeric id; unknown ones are a field error."""

    default_error_messages = {
        "unknown": _("「%(value)s」というグループはありません。"),
        "invalid": _("グループは名前かIDで指定してください。"),
    }

    def to_internal_value(self, data: Any) -> Group:
        if isinstance(data, bool) or not isinstance(data, (str, int)):
            self.fail("invalid")
        value = str(data).strip()
        group = Group.objects.filter(name=value).first()
        if group is None and (pk := database_id(value)) is not None:
            group = Group.objects.filter(pk=pk).first()
        if group is None:
            raise serializers.ValidationError(self.error_messages["unknown"] % {"value": value}, code="unknown")
        return group

    def to_representation(self, value: Group) -> str:
        return value.name


class _UploadFileField(serializers.FileField):
    """Empty files pass (the ingest service words that refusal); the name is cleaned as the form does."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_empty_file=True, use_url=False, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        uploaded = super().to_internal_value(data)
        uploaded.name = clean_filename(uploaded.name or "")  # a Django ValidationError: DRF reports it under "file"
        return uploaded


class DocumentUploadInputSerializer(serializers.Serializer):
    file = _UploadFileField(help_text="文書のファイル（.md .txt .html .pdf .docx）")
    folder = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=255,
        help_text="置くフォルダ（例: 人事/休暇）。文書名は「フォルダ/ファイル名」になる。省略すると最上位",
    )
    title = serializers.CharField(required=False, allow_blank=True, default="", max_length=255)
    groups = serializers.ListField(
        child=GroupReferenceField(),
        required=False,
        help_text="閲覧できるグループ（名前またはID、複数可）。省略すると全社員が閲覧できる",
    )

    def validate_folder(self, value: str) -> str:
        return clean_folder(value)  # a Django ValidationError: DRF reports it under "folder"


class VersionUploadInputSerializer(serializers.Serializer):
    file = _UploadFileField(help_text="新しい版のファイル")


# --- outputs ----------------------------------------------------------------


class VersionSerializer(serializers.ModelSerializer):
    uploaded_by = serializers.SerializerMethodField()
    live = serializers.SerializerMethodField()
    chunk_count = serializers.SerializerMethodField()

    class Meta:
        model = DocumentVersion
        fields = [
            "id", "number", "original_name", "sha256", "size", "encoding", "uploaded_by",
            "created_at", "indexed_at", "embedding_model", "error", "live", "chunk_count",
        ]  # fmt: skip
        read_only_fields = fields

    def get_uploaded_by(self, version: DocumentVersion) -> str | None:
        return version.uploaded_by.get_username() if version.uploaded_by else None

    def get_live(self, version: DocumentVersion) -> bool:
        return version.pk == version.document.live_version_id

    def get_chunk_count(self, version: DocumentVersion) -> int:
        annotated = getattr(version, "chunk_count", None)  # set by get_versions: no query per version
        return annotated if annotated is not None else version.chunks.count()


class DocumentSerializer(serializers.ModelSerializer):
    owner = serializers.SerializerMethodField()
    groups: serializers.SlugRelatedField = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)
    live_version = serializers.SerializerMethodField()

    class Meta:
        model = Document
        fields = [
            "id", "title", "filename", "owner", "groups", "status", "status_message",
            "live_version", "created_at", "updated_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_owner(self, document: Document) -> str:
        return document.owner.get_username()

    @extend_schema_field(OpenApiTypes.INT)
    def get_live_version(self, document: Document) -> int | None:
        """The live version's number (null until a version has been indexed)."""
        return document.live_version.number if document.live_version is not None else None


class DocumentDetailSerializer(DocumentSerializer):
    versions = serializers.SerializerMethodField()

    class Meta(DocumentSerializer.Meta):
        fields = [*DocumentSerializer.Meta.fields, "versions"]
        read_only_fields = fields

    @extend_schema_field(VersionSerializer(many=True))
    def get_versions(self, document: Document) -> list[dict[str, Any]]:
        versions = (
            document.versions.select_related("uploaded_by", "document")
            .defer("text")  # up to millions of characters per version, and not part of the output
            .annotate(chunk_count=chunk_count(of="version"))
            .order_by("-number")
        )
        return VersionSerializer(versions, many=True).data  # type: ignore[return-value]
