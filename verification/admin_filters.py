"""Sidebar filters of the review queue.

Counts per option come from Django's admin facets (``show_facets = ALWAYS`` on the
ModelAdmin): one aggregate query per filter, whatever the number of rows.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from qa.models import Answer
from verification.flags import FLAG_NAMES, FLAGS
from verification.queue import confidence_condition, feedback_condition, flag_condition

# Labels of the flags as reviewers read them (from the registry).
FLAG_LABELS: dict[str, str] = {flag.name: _(flag.reviewer_label) for flag in FLAGS}


class FlagFilter(admin.SimpleListFilter):
    """One option per verification flag: answers carrying that flag.

    Under the options, the filter says which providers can produce the flags
    that not every provider can (the registry's ``providers_note``), so that an
    empty option reads as "cannot happen here", not as "nothing went wrong".
    """

    title = _("フラグ")
    parameter_name = "flag"
    template = "admin/qa/answer/flag_filter.html"

    def provider_notes(self) -> list[tuple[str, str]]:
        """(flag label, which providers can produce it) for the flags with a note."""
        return [(FLAG_LABELS[flag.name], _(flag.providers_note)) for flag in FLAGS if flag.providers_note]

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [(name, FLAG_LABELS[name]) for name in FLAG_NAMES]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Answer]) -> QuerySet[Answer]:
        if self.value() in FLAG_NAMES:
            return queryset.filter(flag_condition(self.value()))
        return queryset


class ConfidenceFilter(admin.SimpleListFilter):
    title = _("信頼度")
    parameter_name = "confidence"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return list(Answer.Confidence.choices)

    def queryset(self, request: HttpRequest, queryset: QuerySet[Answer]) -> QuerySet[Answer]:
        if self.value() in Answer.Confidence.values:
            return queryset.filter(confidence_condition(self.value()))
        return queryset


class ReviewStatusFilter(admin.SimpleListFilter):
    title = _("レビュー状態")
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return list(Answer.ReviewStatus.choices)

    def queryset(self, request: HttpRequest, queryset: QuerySet[Answer]) -> QuerySet[Answer]:
        if self.value() in Answer.ReviewStatus.values:
            return queryset.filter(review_status=self.value())
        return queryset


class ProviderFilter(admin.SimpleListFilter):
    """The providers that actually occur in the queue (one small DISTINCT query)."""

    title = _("プロバイダー")
    parameter_name = "provider"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        # The admin re-creates every filter once per facet count; remember the
        # answer on the request so the DISTINCT query runs once per page.
        cached = getattr(request, "_review_queue_providers", None)
        if cached is None:
            names = model_admin.get_queryset(request).order_by("provider").values_list("provider", flat=True)
            cached = [(name, name) for name in names.distinct() if name]
            request._review_queue_providers = cached
        return cached

    def queryset(self, request: HttpRequest, queryset: QuerySet[Answer]) -> QuerySet[Answer]:
        if self.value():
            return queryset.filter(provider=self.value())
        return queryset


class FeedbackFilter(admin.SimpleListFilter):
    """👍 / 👎 / no feedback. An answer rated both ways by different users is under both."""

    title = _("フィードバック")
    parameter_name = "feedback"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("up", _("👍 高評価")), ("down", _("👎 低評価")), ("none", _("なし"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Answer]) -> QuerySet[Answer]:
        if self.value() in ("up", "down", "none"):
            return queryset.filter(feedback_condition(self.value()))
        return queryset


class AssignmentFilter(admin.SimpleListFilter):
    title = _("担当")
    parameter_name = "assigned"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("me", _("自分")), ("nobody", _("未割り当て"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Answer]) -> QuerySet[Answer]:
        if self.value() == "me":
            return queryset.filter(assigned_to=request.user)
        if self.value() == "nobody":
            return queryset.filter(assigned_to__isnull=True)
        return queryset


class AskedAtFilter(admin.DateFieldListFilter):
    """The stock date filter (today, past 7 days, ...) under a reviewer-facing title."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.title = _("日時")
