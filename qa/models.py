"""Conversations, answers with their citations and verification, feedback, synonyms."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from verification.flags import FLAG_NAMES
from verification.verdict import Verdict

# The verdict is stored once (Verdict.from_answer reads it, Answer.store_verdict writes it):
# what it concluded in columns (confidence, flag_<name> per entry of the registry in
# verification.flags, needs_review: indexed, the review queue filters on them; warnings
# as (msgid, params)), and the checks behind the conclusions in Answer.verification.


class SynonymEntry(models.Model):
    """One query-expansion rule: a term and the keywords it adds to a search."""

    term = models.CharField(_("語"), max_length=100, unique=True)
    expansions = models.CharField(_("追加する語（カンマ区切り）"), max_length=500)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["term"]
        verbose_name = _("同義語")
        verbose_name_plural = _("同義語")

    def __str__(self) -> str:
        return f"{self.term} → {self.expansions}"

    def expansion_list(self) -> list[str]:
        return [w.strip() for w in self.expansions.replace("、", ",").split(",") if w.strip()]


class Conversation(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        ordering = ["-updated_at"]
        verbose_name = _("会話")
        verbose_name_plural = _("会話")

    def __str__(self) -> str:
        return self.title or f"#{self.pk}"


class Answer(models.Model):
    class ResponseType(models.TextChoices):
        ANSWER = "answer", _("回答")
        CLARIFICATION = "clarification", _("聞き返し")
        NOT_FOUND = "not_found", _("該当なし")
        ERROR = "error", _("エラー")

    class Confidence(models.TextChoices):
        HIGH = "high", _("高")
        MEDIUM = "medium", _("中")
        LOW = "low", _("低")

    class ReviewStatus(models.TextChoices):
        NEW = "new", _("未対応")
        IN_REVIEW = "in_review", _("確認中")
        RESOLVED = "resolved", _("解決済み")
        FALSE_ALARM = "false_alarm", _("誤検知")
        NEEDS_DOCUMENT_FIX = "needs_document_fix", _("文書の修正が必要")

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="answers")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="answers")
    question = models.TextField(_("質問"))
    # The query actually searched (follow-ups fold in the conversation so far).
    search_query = models.TextField(blank=True)
    expanded_query = models.TextField(blank=True)
    added_keywords = models.JSONField(default=list, blank=True)
    restricted_document = models.ForeignKey(
        "documents.Document", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    response_type = models.CharField(max_length=16, choices=ResponseType.choices, db_index=True)
    # What the user saw, and (when the grounding gate replaced it) what the provider said.
    answer_text = models.TextField(_("回答"), blank=True)
    original_answer_text = models.TextField(blank=True)
    blocks = models.JSONField(default=list, blank=True)
    clarification = models.JSONField(null=True, blank=True)
    provider = models.CharField(max_length=32, blank=True, db_index=True)
    model_name = models.CharField(max_length=100, blank=True)
    confidence = models.CharField(max_length=8, choices=Confidence.choices, blank=True, db_index=True)
    # The verdict's checks (Verdict.checks): quote and sentence checks, grounded ratio, confidence steps.
    verification = models.JSONField(default=dict, blank=True)
    # The verdict's warnings as {"template": msgid, "params": {...}}, translated when shown.
    warnings = models.JSONField(default=list, blank=True)
    # Snapshot of the retrieved chunks with their scores at answer time.
    retrieved = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    usage = models.JSONField(default=dict, blank=True)
    latency_ms = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    flag_no_citation = models.BooleanField(default=False, db_index=True)
    flag_weak_citation = models.BooleanField(default=False, db_index=True)
    flag_fabricated_source = models.BooleanField(default=False, db_index=True)
    flag_fabricated_quote = models.BooleanField(default=False, db_index=True)
    flag_low_grounding = models.BooleanField(default=False, db_index=True)
    flag_unsupported_claim = models.BooleanField(default=False, db_index=True)
    flag_answer_mismatch = models.BooleanField(default=False, db_index=True)
    flag_not_found = models.BooleanField(default=False, db_index=True)
    flag_low_retrieval = models.BooleanField(default=False, db_index=True)
    flag_provider_error = models.BooleanField(default=False, db_index=True)
    needs_review = models.BooleanField(default=False, db_index=True)
    # A stored example the demo ships (qa.examples), not something an employee asked: the queue marks it 例.
    is_example = models.BooleanField(_("例"), default=False)

    review_status = models.CharField(
        _("レビュー状態"), max_length=24, choices=ReviewStatus.choices, default=ReviewStatus.NEW, db_index=True
    )
    review_notes = models.TextField(_("レビューメモ"), blank=True)
    assigned_to = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="assigned_answers",
        verbose_name=_("担当者"),
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("回答")
        # The admin lists answers only as the review queue: name it for what a reviewer does there.
        verbose_name_plural = _("レビュー待ちの回答")

    def __str__(self) -> str:
        # Not the question: this text reaches breadcrumbs, admin messages and the
        # change log, which do not know who may read the answer (verification.review.access).
        return _("回答 #%(pk)s") % {"pk": self.pk}

    @property
    def flags(self) -> list[str]:
        return [name for name in FLAG_NAMES if getattr(self, f"flag_{name}")]

    @property
    def verdict(self) -> Verdict:
        """The stored verdict, read back through its one typed reader (``Verdict.from_answer``)."""
        return Verdict.from_answer(self)

    def store_verdict(self, verdict: Verdict) -> None:
        """Set (not save) the fields that hold ``verdict``: the one writer of a stored verdict."""
        self.confidence = verdict.confidence
        self.needs_review = verdict.needs_review
        self.warnings = verdict.warning_templates or [{"template": w, "params": {}} for w in verdict.warnings]
        self.verification = verdict.checks()
        for name in FLAG_NAMES:
            setattr(self, f"flag_{name}", name in verdict.flags)

    # The fields store_verdict sets, for save(update_fields=...).
    VERDICT_FIELDS = ("confidence", "needs_review", "warnings", "verification", *(f"flag_{n}" for n in FLAG_NAMES))


class Citation(models.Model):
    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="citations")
    n = models.PositiveIntegerField()
    block_index = models.PositiveIntegerField(default=0)
    # The chunk may later be re-indexed away; the snapshot fields below keep the evidence.
    chunk = models.ForeignKey("documents.Chunk", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    document = models.ForeignKey(
        "documents.Document", null=True, blank=True, on_delete=models.SET_NULL, related_name="citations"
    )
    # The version quoted: when it is no longer the live one, the answer is stale.
    version = models.ForeignKey(
        "documents.DocumentVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    filename = models.CharField(max_length=255, blank=True)
    section = models.CharField(max_length=500, blank=True)
    cited_text = models.TextField()
    start = models.IntegerField(null=True, blank=True)
    end = models.IntegerField(null=True, blank=True)
    quote_verified = models.BooleanField(default=False)
    context_before = models.TextField(blank=True)
    context_after = models.TextField(blank=True)

    class Meta:
        ordering = ["answer", "n"]
        verbose_name = _("引用")
        verbose_name_plural = _("引用")

    def __str__(self) -> str:
        return f"[{self.n}] {self.filename}"


class AnswerSource(models.Model):
    """A document the answer was built from: every document retrieved for it (the provider saw them all).

    Reviewers may read an answer only when they may read each of its sources
    (``verification.review.access``). The row outlives its document: ``document`` becomes
    null on deletion and ``restricted`` keeps whether the document was limited to
    groups at answer time, so deleting a restricted document never opens its text.
    """

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="sources")
    document = models.ForeignKey(
        "documents.Document", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    filename = models.CharField(max_length=255)
    restricted = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["answer", "filename"], name="one_source_per_file")]
        verbose_name = _("回答の根拠文書")
        verbose_name_plural = _("回答の根拠文書")

    def __str__(self) -> str:
        return self.filename


class Feedback(models.Model):
    class Rating(models.IntegerChoices):
        UP = 1, "👍"
        DOWN = -1, "👎"

    class Reason(models.TextChoices):
        INACCURATE = "inaccurate", _("不正確")
        WRONG_SOURCE = "wrong_source", _("出典が違う")
        INSUFFICIENT = "insufficient", _("不十分")
        OTHER = "other", _("その他")

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="feedback")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    rating = models.SmallIntegerField(choices=Rating.choices)
    reason = models.CharField(max_length=16, choices=Reason.choices, blank=True)
    comment = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["answer", "user"], name="one_feedback_per_user")]
        verbose_name = _("フィードバック")
        verbose_name_plural = _("フィードバック")

    def __str__(self) -> str:
        return f"{self.get_rating_display()} {self.answer_id}"


class CorpusCalibration(models.Model):
    """The thresholds measured on the live corpus by ``calibrate`` (qa.calibration); the newest row is current.

    ``corpus_key`` identifies the live versions it was measured on: after any
    indexing change it no longer matches (the row is stale, as the admin shows)
    and it stays in use until the recalibration the change queued (qa.tasks) or
    ``calibrate`` stores a new one.
    """

    created_at = models.DateTimeField(_("計測日時"), auto_now_add=True)
    corpus_key = models.CharField(_("対象の文書版"), max_length=64)
    documents = models.PositiveIntegerField(_("文書数"), default=0)
    values = models.JSONField(_("しきい値"), default=dict)
    measurements = models.JSONField(_("計測値"), default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("コーパスの校正")
        verbose_name_plural = _("コーパスの校正")

    def __str__(self) -> str:
        return _("校正 %(when)s") % {"when": self.created_at.strftime("%Y-%m-%d %H:%M") if self.created_at else "-"}
