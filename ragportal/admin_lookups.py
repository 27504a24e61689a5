"""Admin changelists filter by what they offer, nothing else.

Django's admin turns any query parameter that names a field of the listed model
into a filter (``?answer_text__contains=…``, ``?retrieved__0__text__regex=…``).
Where a row's text is hidden from the viewer, such a filter is an oracle: the
row count answers "does the hidden text contain X?". So a changelist here
accepts only the parameters its own list filters and date hierarchy consume,
plus the ones Django handles itself (search ``q``, ordering ``o``, page ``p``,
``all``, ``_facets``, popups). Anything else is refused before a query runs,
the same way whatever its value, and the viewer is sent back to the unfiltered
list with a message (Django's own ``?e=1`` redirect for bad lookups).

Every ModelAdmin of the portal uses :class:`OfferedFiltersOnly`, and so does
any view that builds its rows from the changelist (the review queue's CSV export).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList
from django.contrib.admin.exceptions import DisallowedModelAdminLookup
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

UNOFFERED_FILTER = _("この一覧にない絞り込み条件がURLに含まれていたため、条件を外して一覧を表示しました。")


class OfferedFiltersChangeList(ChangeList):
    """A changelist that refuses every filter parameter its list filters do not consume."""

    def get_filters(self, request: HttpRequest) -> tuple[Any, ...]:
        try:
            filter_specs, has_filters, remaining, *rest = super().get_filters(request)
        except DisallowedModelAdminLookup as error:
            raise self._refused(request) from error
        except OverflowError as error:
            # The date hierarchy catches a bad date's ValueError but not a year past C's long.
            raise IncorrectLookupParameters(error) from error
        if set(remaining) - self._date_hierarchy_bounds():
            raise self._refused(request)
        return (filter_specs, has_filters, remaining, *rest)

    def _date_hierarchy_bounds(self) -> set[str]:
        """The lookups Django's date hierarchy derives from its own year/month/day parameters."""
        if not self.date_hierarchy or f"{self.date_hierarchy}__year" not in self.filter_params:
            return set()
        return {f"{self.date_hierarchy}__gte", f"{self.date_hierarchy}__lt"}

    @staticmethod
    def _refused(request: HttpRequest) -> IncorrectLookupParameters:
        messages.error(request, UNOFFERED_FILTER, fail_silently=True)
        return IncorrectLookupParameters("a filter this list does not offer")


class OfferedFiltersOnly:
    """ModelAdmin mixin: the changelist (and whatever is built from it) takes only its offered filters."""

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return OfferedFiltersChangeList
