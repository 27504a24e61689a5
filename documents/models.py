"""Documents, their versions and the chunks that retrieval and citations use."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models
from django.utils.translation import gettext_lazy as _
from django_tasks_db.models import DBTaskResult

from documents.filenames import name_key, split_document_name


class Document(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("待機中")
        INDEXING = "indexing", _("索引作成中")
        READY = "ready", _("公開中")
        FAILED = "failed", _("失敗")

    title = models.CharField(_("タイトル"), max_length=255)
    # The name citations use: the path within the portal ("attendance.md" at the top,
    # "people-group/leave/_index.md" in a folder); unique so a citation names one document.
    filename = models.CharField(_("ファイル名"), max_length=255, unique=True)
    # What uniqueness compares (documents.filenames.name_key: NFKC, case-folded), so look-alike
    # names are one document. Derived from ``filename`` on every save.
    name_key = models.CharField(max_length=255, unique=True, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_documents", verbose_name=_("所有者")
    )
    # No groups: visible to every signed-in user.
    groups = models.ManyToManyField(Group, blank=True, related_name="documents", verbose_name=_("閲覧グループ"))
    status = models.CharField(_("状態"), max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True)
    status_message = models.TextField(_("状態の詳細"), blank=True)
    live_version = models.OneToOneField(
        "DocumentVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("公開版")
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["filename"]
        verbose_name = _("文書")
        verbose_name_plural = _("文書")

    def __str__(self) -> str:
        return self.filename

    def save(self, *args: object, **kwargs: object) -> None:
        # A derived column, not a workflow: whoever names a document, its key follows the name.
        self.name_key = name_key(self.filename)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "filename" in update_fields:
            kwargs["update_fields"] = {*update_fields, "name_key"}  # type: ignore[misc]
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    @property
    def folder(self) -> str:
        """The folders of the document's name (``""`` at the top)."""
        return split_document_name(self.filename)[0]


def version_upload_to(instance: DocumentVersion, filename: str) -> str:
    return f"documents/{instance.document_id}/{instance.sha256[:16]}/{filename}"


class DocumentVersion(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    file = models.FileField(upload_to=version_upload_to, max_length=500)
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64, db_index=True)
    size = models.PositiveIntegerField(default=0)
    encoding = models.CharField(max_length=32, blank=True)
    # The extracted text; chunk offsets point into it.
    text = models.TextField(blank=True)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    indexed_at = models.DateTimeField(null=True, blank=True)
    embedding_model = models.CharField(max_length=64, blank=True)
    error = models.TextField(blank=True)
    # Indexing progress, shown to the owner while the version is being indexed.
    chunks_embedded = models.PositiveIntegerField(default=0, editable=False)
    # Indexing runs started for this version; a version that keeps killing its worker stops being retried.
    index_attempts = models.PositiveSmallIntegerField(default=0, editable=False)
    # The file is stored but not parsed yet (a large upload): the indexing task parses it first.
    needs_parse = models.BooleanField(default=False, editable=False)

    class Meta:
        ordering = ["document", "-number"]
        constraints = [models.UniqueConstraint(fields=["document", "number"], name="unique_version_number")]
        verbose_name = _("版")
        verbose_name_plural = _("版")

    def __str__(self) -> str:
        return f"{self.document.filename} v{self.number}"


class Chunk(models.Model):
    version = models.ForeignKey(DocumentVersion, on_delete=models.CASCADE, related_name="chunks")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    ordinal = models.PositiveIntegerField()
    heading_path = models.CharField(max_length=500, blank=True)
    text = models.TextField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    # One float16 embedding per sentence (documents.sentence_vectors), written at indexing time.
    sentence_vectors = models.BinaryField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["version", "ordinal"]
        constraints = [models.UniqueConstraint(fields=["version", "ordinal"], name="unique_chunk_ordinal")]
        verbose_name = _("チャンク")
        verbose_name_plural = _("チャンク")

    def __str__(self) -> str:
        return f"{self.document.filename}#{self.ordinal}"


class IndexingTask(DBTaskResult):
    """The indexing queue as the admin shows it: django-tasks-db's task rows (a proxy, no table of its own)."""

    class Meta:
        proxy = True
        verbose_name = _("索引作成の待ち行列")
        verbose_name_plural = _("索引作成の待ち行列")
