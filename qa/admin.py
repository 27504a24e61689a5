"""Admin for the synonym dictionary (reviewers and owners) and, read-only, conversations and calibrations.

Answers are reviewed through the review queue registered in ``verification/review/admin.py``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from qa.models import Conversation, CorpusCalibration, SynonymEntry
from ragportal.admin_lookups import OfferedFiltersOnly


@admin.register(SynonymEntry)
class SynonymEntryAdmin(OfferedFiltersOnly, admin.ModelAdmin):
    list_display = ("term", "expansions", "updated_at")
    search_fields = ("term", "expansions")
    ordering = ("term",)


@admin.register(Conversation)
class ConversationAdmin(OfferedFiltersOnly, admin.ModelAdmin):
    """Conversations are private to their user: only superusers see them here, and nobody edits them."""

    list_display = ("__str__", "user", "answer_count", "created_at", "updated_at")
    list_select_related = ("user",)
    search_fields = ("title", "user__username")
    date_hierarchy = "updated_at"
    readonly_fields = ("user", "title", "created_at", "updated_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Conversation]:
        return super().get_queryset(request).annotate(n_answers=Count("answers"))

    @admin.display(description=_("回答数"), ordering="n_answers")
    def answer_count(self, conversation: Conversation) -> int:
        return conversation.n_answers  # type: ignore[attr-defined]  # annotated by get_queryset

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(CorpusCalibration)
class CorpusCalibrationAdmin(OfferedFiltersOnly, admin.ModelAdmin):
    """The thresholds calibration measured, for staff to read; only calibration writes them (qa.tasks, ``calibrate``).

    Each row says when it was measured, on how many documents and pseudo-questions,
    and whether it is the one in use, and if so whether the documents changed since.
    """

    list_display = (
        "created_at",
        "documents",
        "questions",
        "off_topic_floor",
        "english_floor",
        "confident",
        "medium",
        "unknown_word_sentence",
        "state",
    )
    readonly_fields = ("created_at", "state", "documents", "questions", "corpus_key", "values", "measurements")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: CorpusCalibration | None = None) -> bool:
        return False

    @admin.display(description=_("疑似質問数"))
    def questions(self, calibration: CorpusCalibration) -> int:
        return sum(len(rows) for rows in calibration.measurements.values())

    @admin.display(description=_("範囲外の下限（計測のみ・適用せず）"))
    def off_topic_floor(self, calibration: CorpusCalibration) -> Any:
        return calibration.values.get("off_topic_floor")

    @admin.display(description=_("英語の質問の下限（計測のみ・適用せず）"))
    def english_floor(self, calibration: CorpusCalibration) -> Any:
        return calibration.values.get("english_floor")

    @admin.display(description=_("信頼度「高」の類似度"))
    def confident(self, calibration: CorpusCalibration) -> Any:
        return calibration.values.get("confident")

    @admin.display(description=_("信頼度「中」の類似度"))
    def medium(self, calibration: CorpusCalibration) -> Any:
        return calibration.values.get("medium")

    @admin.display(description=_("未知語の質問が超えるべき文の類似度"))
    def unknown_word_sentence(self, calibration: CorpusCalibration) -> Any:
        return calibration.values.get("unknown_word_sentence")

    @admin.display(description=_("状態"))
    def state(self, calibration: CorpusCalibration) -> str:
        from qa.services import calibration_stale

        if CorpusCalibration.objects.values_list("pk", flat=True).first() != calibration.pk:
            return str(_("過去の計測"))
        if calibration_stale(calibration=calibration):
            return str(_("使用中（文書が変わったため再計測待ち）"))
        return str(_("使用中（現在の文書で計測）"))
