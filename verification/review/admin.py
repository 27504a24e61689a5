"""The review queue: the Django admin for answers that need a reviewer.

The changelist lists only the answers selected by :func:`verification.review.queue.review_queue`.
The change page is read-only evidence (question, answers, citations, retrieved
snapshot, verdict, feedback); the only editable fields are the review fields.
Nobody adds answers here, and the ``reviewers`` group has no delete permission.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Case, F, ForeignKey, Q, QuerySet, TextField, Value, When
from django.forms import ModelChoiceField
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator, smart_split, unescape_string_literal
from django.utils.translation import gettext, gettext_lazy as _

from documents.roles import REVIEWERS_GROUP
from qa.models import Answer, Citation, Feedback
from ragportal.admin_lookups import OfferedFiltersOnly
from ragportal.http import signed_in
from verification.review.admin_filters import (
    FLAG_LABELS,
    AskedAtFilter,
    AssignmentFilter,
    ConfidenceFilter,
    FeedbackFilter,
    FlagFilter,
    ProviderFilter,
    ReviewStatusFilter,
)
from documents.admin import ReadOnlyInline
from verification.review.access import READABLE, REDACTED, may_read, readable_condition, readers_of, with_readability
from verification.review.evidence import answer_evidence
from verification.review.export import answers_csv_response
from verification.review.overview import overview_context
from verification.review.queue import queue_assign, queue_set_status, review_queue
from verification.review.teaching_admin import TeachingViews


# What a reviewer reads on a stored example (load_demo's, from the Claude path against the fake server).
EXAMPLE_NOTE = _(
    "デモ用の例です。社員の実際の質問ではなく、Claude の経路をテスト用の偽サーバーで動かして作った回答です。"
    "オフラインのプロバイダーでは起こらないフラグも、ここで確かめられます。"
)


class EvidenceInline(ReadOnlyInline):
    """Evidence shown with an answer: read-only for everyone, reviewers included."""

    show_change_link = False
    classes = ("rv-inline",)


class CitationInline(EvidenceInline):
    """The answer's citations as stored at answer time (a snapshot: the chunk may be gone)."""

    model = Citation
    fields = ("number", "source", "quote_check", "quote_in_context", "chunk_state")
    readonly_fields = fields
    verbose_name_plural = _("引用（回答時のスナップショット）")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Citation]:
        return super().get_queryset(request).select_related("document")

    @admin.display(description=_("番号"))
    def number(self, citation: Citation) -> str:
        return f"[{citation.n}]"

    @admin.display(description=_("出典"))
    def source(self, citation: Citation) -> str:
        if citation.section:
            return format_html("{}<br><small>{}</small>", citation.filename, citation.section)
        return citation.filename

    @admin.display(description=_("引用の照合"))
    def quote_check(self, citation: Citation) -> str:
        if citation.quote_verified:
            return format_html('<span class="rv-badge rv-ok">{}</span>', gettext("原文と一致"))
        return format_html('<span class="rv-badge rv-bad">{}</span>', gettext("原文に見つからない"))

    @admin.display(description=_("引用箇所（前後の文脈つき）"))
    def quote_in_context(self, citation: Citation) -> str:
        # format_html escapes every argument: document and model text stay inert.
        return format_html(
            '<div class="rv-quote"><span class="rv-ctx">{}</span><mark>{}</mark><span class="rv-ctx">{}</span></div>',
            citation.context_before,
            citation.cited_text,
            citation.context_after,
        )

    @admin.display(description=_("チャンク"))
    def chunk_state(self, citation: Citation) -> str:
        if citation.chunk_id is None:
            return gettext("再索引などで削除済み（上の引用は回答時の記録）")
        return f"#{citation.chunk_id}"


def rating_label(rating: int) -> str:
    """👍/👎 with words, so the rating reads right even where no emoji font is installed."""
    return f"👍 {gettext('高評価')}" if rating == Feedback.Rating.UP else f"👎 {gettext('低評価')}"


class FeedbackInline(EvidenceInline):
    model = Feedback
    fields = ("rating_text", "reason_text", "comment_text", "rated_by", "rated_at")
    readonly_fields = fields

    @admin.display(description=_("評価"))
    def rating_text(self, feedback: Feedback) -> str:
        return rating_label(feedback.rating)

    @admin.display(description=_("理由"))
    def reason_text(self, feedback: Feedback) -> str:
        return feedback.get_reason_display() or "-"

    @admin.display(description=_("コメント"))
    def comment_text(self, feedback: Feedback) -> str:
        # Only reached for readable answers (see ReviewQueueAdmin.get_inline_instances).
        return feedback.comment or "-"

    @admin.display(description=_("評価者"))
    def rated_by(self, feedback: Feedback) -> str:
        return feedback.user.get_username()

    @admin.display(description=_("日時"))
    def rated_at(self, feedback: Feedback) -> str:
        return date_format(timezone.localtime(feedback.created_at), "Y-m-d H:i")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Feedback]:
        return super().get_queryset(request).select_related("user")


@admin.register(Answer)
class ReviewQueueAdmin(TeachingViews, OfferedFiltersOnly, admin.ModelAdmin):
    list_display = (
        "question_short",
        "confidence_badge",
        "flag_badges",
        "feedback_summary",
        "provider_model",
        "asked_by",
        "asked_at",
        "status_badge",
        "assignee",
    )
    list_display_links = ("question_short",)
    list_filter = (
        FlagFilter,
        ConfidenceFilter,
        ReviewStatusFilter,
        FeedbackFilter,
        ProviderFilter,
        AssignmentFilter,
        ("created_at", AskedAtFilter),
    )
    show_facets = admin.ShowFacets.ALWAYS
    search_fields = ("question", "answer_text", "original_answer_text")
    date_hierarchy = "created_at"
    list_select_related = ("user", "assigned_to")
    list_per_page = 50
    list_max_show_all = 1000
    ordering = ("-created_at", "-pk")
    fields = ("review_status", "review_notes", "assigned_to")
    inlines = (CitationInline, FeedbackInline)
    actions = (
        "mark_in_review",
        "mark_resolved",
        "mark_false_alarm",
        "mark_needs_document_fix",
        "assign_to_me",
        "export_selected_csv",
    )

    class Media:
        css = {"all": ("verification/review.css",)}

    # --- what is listed, who may do what ------------------------------------

    def get_queryset(self, request: HttpRequest) -> QuerySet[Answer]:
        return with_readability(review_queue(super().get_queryset(request)), request.user)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Answer], search_term: str
    ) -> tuple[QuerySet[Answer], bool]:
        """Search question and answer text, only among answers the reviewer may read.

        Matching a hidden answer's text would tell the reviewer what it says, so
        hidden answers never match a search (they stay reachable through the filters).
        """
        terms = [
            unescape_string_literal(t) if t[0] in "\"'" and len(t) > 1 and t[0] == t[-1] else t
            for t in smart_split(search_term)
        ]
        if not terms:
            return queryset, False
        condition = readable_condition(request.user)
        for term in terms:
            condition &= Q(*[(f"{field}__icontains", term) for field in self.search_fields], _connector=Q.OR)
        return queryset.filter(condition), False

    def get_inline_instances(self, request: HttpRequest, obj: Answer | None = None) -> list:
        # Citations and feedback comments quote the documents: hidden with the rest.
        if obj is not None and not may_read(obj, request.user):
            return []
        return super().get_inline_instances(request, obj)

    def get_fields(self, request: HttpRequest, obj: Answer | None = None) -> Any:
        if obj is not None and not may_read(obj, request.user):
            return ("review_status", "redacted_notes", "assigned_to")
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Answer | None = None) -> list[str] | tuple[str, ...]:
        if obj is not None and not may_read(obj, request.user):
            return (*super().get_readonly_fields(request, obj), "redacted_notes")
        return super().get_readonly_fields(request, obj)

    @admin.display(description=_("レビューメモ"))
    def redacted_notes(self, answer: Answer) -> str:
        return str(REDACTED) if answer.review_notes else "-"

    def get_form(self, request: HttpRequest, obj: Answer | None = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        field = form.base_fields.get("assigned_to")
        if obj is not None and isinstance(field, ModelChoiceField) and field.queryset is not None:
            # Only someone who may read the answer can review it (the current assignee stays valid).
            readers = readers_of(obj, field.queryset)
            field.queryset = field.queryset.filter(Q(pk__in=readers) | Q(pk=obj.assigned_to_id))
        return form

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Answers are records of what the portal said; they are never written by hand.
        return False

    def formfield_for_foreignkey(
        self, db_field: ForeignKey, request: HttpRequest, **kwargs: Any
    ) -> ModelChoiceField | None:
        if db_field.name == "assigned_to":
            kwargs["queryset"] = (
                get_user_model()
                .objects.filter(Q(groups__name=REVIEWERS_GROUP) | Q(is_superuser=True), is_active=True)
                .distinct()
                .order_by("username")
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    # --- list columns ---------------------------------------------------------

    # Sorting by the question must not place a hidden answer by its text: hidden
    # questions sort as if empty (the admin's pk tie-break orders them among themselves).
    @admin.display(
        description=_("質問"),
        ordering=Case(When(**{READABLE: True}, then=F("question")), default=Value(""), output_field=TextField()),
    )
    def question_short(self, answer: Answer) -> str:
        if not getattr(answer, "viewer_may_read", False):
            return format_html('<span class="rv-redacted">{}</span>', REDACTED)
        if answer.is_example:
            return format_html(
                '<span class="rv-badge rv-example" title="{}">{}</span> {}',
                EXAMPLE_NOTE,
                gettext("例"),
                Truncator(answer.question).chars(56),
            )
        return Truncator(answer.question).chars(60)

    @admin.display(description=_("信頼度"), ordering="confidence")
    def confidence_badge(self, answer: Answer) -> str:
        if not answer.confidence:
            return "-"
        return format_html(
            '<span class="rv-badge rv-conf-{}">{}</span>', answer.confidence, answer.get_confidence_display()
        )

    @admin.display(description=_("フラグ"))
    def flag_badges(self, answer: Answer) -> str:
        flags = answer.flags
        if not flags:
            return "-"
        return format_html_join(
            " ", '<span class="rv-badge rv-flag rv-flag-{}">{}</span>', ((name, FLAG_LABELS[name]) for name in flags)
        )

    @admin.display(description=_("評価"))
    def feedback_summary(self, answer: Answer) -> str:
        up, down = getattr(answer, "thumbs_up", 0), getattr(answer, "thumbs_down", 0)
        parts = [f"{rating_label(Feedback.Rating.UP)} {up}"] if up else []
        parts += [f"{rating_label(Feedback.Rating.DOWN)} {down}"] if down else []
        return " / ".join(parts) or "-"

    @admin.display(description=_("質問者"), ordering="user__username")
    def asked_by(self, answer: Answer) -> str:
        return answer.user.get_username()

    @admin.display(description=_("日時"), ordering="created_at")
    def asked_at(self, answer: Answer) -> str:
        # Date above time: the column stays narrow enough for the queue to fit 1280 px.
        asked = timezone.localtime(answer.created_at)
        return format_html("{}<br>{}", date_format(asked, "Y-m-d"), date_format(asked, "H:i"))

    @admin.display(description=_("担当者"), ordering="assigned_to__username")
    def assignee(self, answer: Answer) -> str:
        return answer.assigned_to.get_username() if answer.assigned_to else "-"

    @admin.display(description=_("プロバイダー / モデル"), ordering="provider")
    def provider_model(self, answer: Answer) -> str:
        return " / ".join(part for part in (answer.provider, answer.model_name) if part) or "-"

    @admin.display(description=_("レビュー状態"), ordering="review_status")
    def status_badge(self, answer: Answer) -> str:
        return format_html(
            '<span class="rv-badge rv-status-{}">{}</span>', answer.review_status, answer.get_review_status_display()
        )

    # --- the evidence page ----------------------------------------------------

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Answer | None = None,
    ) -> HttpResponse:
        if obj is not None:
            context["redacted"] = not may_read(obj, request.user)
            context["redacted_note"] = str(REDACTED)
            context["evidence"] = (
                {"flags": [(name, FLAG_LABELS[name]) for name in obj.flags]}
                if context["redacted"]
                else answer_evidence(obj)
            )
            context["title"] = gettext("回答の確認（証拠とレビュー）")
            context["example_note"] = EXAMPLE_NOTE if obj.is_example else ""
        return super().render_change_form(request, context, add=add, change=change, form_url=form_url, obj=obj)

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        return super().changelist_view(request, {"title": gettext("レビュー待ちの回答"), **(extra_context or {})})

    # --- bulk actions -----------------------------------------------------------

    def _set_status(self, request: HttpRequest, queryset: QuerySet[Answer], status: Answer.ReviewStatus) -> None:
        # Counted before the update: a status filter may no longer match the rows afterwards.
        selected = queryset.count()
        changed = queue_set_status(answers=queryset, status=status)
        self.message_user(
            request,
            gettext("%(count)d 件の回答を「%(status)s」にしました（選択 %(selected)d 件）。")
            % {"count": changed, "status": status.label, "selected": selected},
            messages.SUCCESS,
        )

    @admin.action(description=_("選択した回答を「確認中」にする"), permissions=["change"])
    def mark_in_review(self, request: HttpRequest, queryset: QuerySet[Answer]) -> None:
        self._set_status(request, queryset, Answer.ReviewStatus.IN_REVIEW)

    @admin.action(description=_("選択した回答を「解決済み」にする"), permissions=["change"])
    def mark_resolved(self, request: HttpRequest, queryset: QuerySet[Answer]) -> None:
        self._set_status(request, queryset, Answer.ReviewStatus.RESOLVED)

    @admin.action(description=_("選択した回答を「誤検知」にする"), permissions=["change"])
    def mark_false_alarm(self, request: HttpRequest, queryset: QuerySet[Answer]) -> None:
        self._set_status(request, queryset, Answer.ReviewStatus.FALSE_ALARM)

    @admin.action(description=_("選択した回答を「文書の修正が必要」にする"), permissions=["change"])
    def mark_needs_document_fix(self, request: HttpRequest, queryset: QuerySet[Answer]) -> None:
        self._set_status(request, queryset, Answer.ReviewStatus.NEEDS_DOCUMENT_FIX)

    @admin.action(description=_("選択した回答を自分に割り当てる"), permissions=["change"])
    def assign_to_me(self, request: HttpRequest, queryset: QuerySet[Answer]) -> None:
        selected = queryset.count()
        readable = queryset.filter(readable_condition(request.user))
        changed = queue_assign(answers=readable, reviewer=signed_in(request.user))
        self.message_user(
            request,
            gettext("%(count)d 件の回答を自分に割り当てました（選択 %(selected)d 件）。")
            % {"count": changed, "selected": selected},
            messages.SUCCESS,
        )
        hidden = selected - readable.count()
        if hidden:
            self.message_user(
                request,
                gettext(
                    "%(count)d 件は閲覧権限のない文書を含むため割り当てませんでした。閲覧できる担当者に割り当ててください。"
                )
                % {"count": hidden},
                messages.WARNING,
            )

    @admin.action(description=_("選択した回答をCSVで出力"), permissions=["view"])
    def export_selected_csv(self, request: HttpRequest, queryset: QuerySet[Answer]) -> StreamingHttpResponse:
        return answers_csv_response(queryset, viewer=request.user)

    # --- extra pages: overview and export of the filtered list -----------------

    def get_urls(self) -> list[URLPattern]:
        info = (self.opts.app_label, self.opts.model_name)
        return [
            path("overview/", self.admin_site.admin_view(self.overview_view), name="%s_%s_overview" % info),
            path("export.csv", self.admin_site.admin_view(self.export_view), name="%s_%s_export" % info),
            *self.teaching_urls(),
            *super().get_urls(),
        ]

    def _require_view(self, request: HttpRequest) -> None:
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied

    def overview_view(self, request: HttpRequest) -> TemplateResponse:
        self._require_view(request)
        context = {
            **self.admin_site.each_context(request),
            **overview_context(viewer=request.user),
            "opts": self.opts,
            "title": gettext("レビュー概況"),
            "can_view_documents": request.user.has_perm("documents.view_document"),
        }
        return TemplateResponse(request, "admin/qa/answer/overview.html", context)

    def export_view(self, request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
        """The changelist's rows for the same query string (filters, search, ordering), as CSV."""
        self._require_view(request)
        try:
            changelist: ChangeList = self.get_changelist_instance(request)
        except IncorrectLookupParameters:
            return HttpResponseRedirect(reverse("admin:qa_answer_changelist") + "?e=1")
        return answers_csv_response(changelist.queryset, viewer=request.user)
