"""The review loop's admin pages, part of the review queue's admin (``ReviewQueueAdmin`` mixes them in).

- ``teach/``: the gaps (not found, asked back, 👎) with the closest passages,
  and beside each a form to add a wording pair: one action;
- ``teach/pair/`` (POST): adds the pair, then shows ``teach/result/``;
- ``teach/result/``: the pair, and the stored questions holding its word asked
  again (:func:`verification.review.teaching.questions_rerun`), with a button to remove it;
- ``teach/pair/remove/`` (POST): removes the pair.

Seeing the pages takes the permission to view answers; adding and removing a
pair the permissions on the synonym dictionary (reviewers have both).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext, gettext_lazy as _
from django.utils.decorators import method_decorator
from django.views.decorators.http import require_GET, require_POST

from qa.glossary import wording_pair_add, wording_pair_remove
from qa.models import SynonymEntry
from verification.review.access import READABLE, REDACTED
from verification.review.teaching import closest_passages, questions_rerun, teaching_candidates

# Gaps listed per page of ``teach/``.
TEACH_PAGE_SIZE = 30


class WordingPairForm(forms.Form):
    """「term」は「wording」: the word people ask with, and the word the documents use."""

    term = forms.CharField(label=_("質問で使われた語"), max_length=100)
    wording = forms.CharField(label=_("文書で使われている語"), max_length=100)


class TeachingViews:
    """Views of the review loop for the answers' ModelAdmin (uses its ``admin_site`` and ``opts``)."""

    def teaching_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view  # type: ignore[attr-defined]
        return [
            path("teach/", wrap(self.teach_view), name="qa_answer_teach"),
            path("teach/pair/", wrap(self.teach_pair_view), name="qa_answer_teach_pair"),
            path("teach/result/", wrap(self.teach_result_view), name="qa_answer_teach_result"),
            path("teach/pair/remove/", wrap(self.teach_remove_view), name="qa_answer_teach_remove"),
        ]

    def _teach_context(self, request: HttpRequest, title: str) -> dict[str, Any]:
        if not self.has_view_or_change_permission(request):  # type: ignore[attr-defined]
            raise PermissionDenied
        return {
            **self.admin_site.each_context(request),  # type: ignore[attr-defined]
            "opts": self.opts,  # type: ignore[attr-defined]
            "title": title,
            "redacted_note": str(REDACTED),  # the lazy message in the request's language
            "may_teach": _may_edit_glossary(request),
        }

    @method_decorator(require_GET)
    def teach_view(self, request: HttpRequest) -> TemplateResponse:
        context = self._teach_context(request, gettext("答えられなかった質問（言い換えを教える）"))
        page = Paginator(teaching_candidates(request.user), TEACH_PAGE_SIZE).get_page(request.GET.get("page"))
        rows = [
            {"answer": a, "passages": closest_passages(a) if getattr(a, READABLE) else []} for a in page.object_list
        ]
        context.update({"page": page, "rows": rows, "form": WordingPairForm()})
        return TemplateResponse(request, "admin/qa/answer/teach.html", context)

    @method_decorator(require_POST)
    def teach_pair_view(self, request: HttpRequest) -> HttpResponse:
        _require_glossary_edit(request)
        form = WordingPairForm(request.POST)
        if form.is_valid():
            try:
                wording_pair_add(term=form.cleaned_data["term"], wording=form.cleaned_data["wording"])
            except ValidationError as exc:
                form.add_error(None, exc)
        if not form.is_valid():
            for error in (e for errors in form.errors.values() for e in errors):
                messages.error(request, str(error))  # ErrorList yields the messages as text
            return HttpResponseRedirect(reverse("admin:qa_answer_teach"))
        query = urlencode(
            {
                "term": " ".join(form.cleaned_data["term"].split()),
                "wording": " ".join(form.cleaned_data["wording"].split()),
            }
        )
        return HttpResponseRedirect(f"{reverse('admin:qa_answer_teach_result')}?{query}")

    @method_decorator(require_GET)
    def teach_result_view(self, request: HttpRequest) -> TemplateResponse:
        context = self._teach_context(request, gettext("言い換えの効果"))
        term, wording = request.GET.get("term", "").strip(), request.GET.get("wording", "").strip()
        entry = SynonymEntry.objects.filter(term=term).first()
        context.update(
            {
                "term": term,
                "wording": wording,
                "in_glossary": entry is not None and wording in entry.expansion_list(),
                "reruns": questions_rerun(term=term, viewer=request.user) if term else [],
            }
        )
        return TemplateResponse(request, "admin/qa/answer/teach_result.html", context)

    @method_decorator(require_POST)
    def teach_remove_view(self, request: HttpRequest) -> HttpResponse:
        _require_glossary_edit(request)
        term, wording = request.POST.get("term", ""), request.POST.get("wording", "")
        if wording_pair_remove(term=term, wording=wording):
            messages.success(
                request,
                gettext("言い換え「%(term)s」→「%(wording)s」を取り消しました。") % {"term": term, "wording": wording},
            )
        else:
            messages.warning(request, gettext("その言い換えは登録されていません。"))
        return HttpResponseRedirect(reverse("admin:qa_answer_teach"))


def _may_edit_glossary(request: HttpRequest) -> bool:
    return all(request.user.has_perm(f"qa.{perm}_synonymentry") for perm in ("add", "change", "delete"))


def _require_glossary_edit(request: HttpRequest) -> None:
    if not _may_edit_glossary(request):
        raise PermissionDenied
