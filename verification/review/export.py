"""CSV export of review-queue rows.

The caller decides which rows (the admin passes the changelist's filtered,
searched and ordered queryset, or the rows selected for an action); this module
only turns them into CSV, so the export always matches what the reviewer saw.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from qa.models import Answer
from verification.review.access import REDACTED, may_read, with_readability


class _Echo:
    """A file-like object whose write() hands the line back, for streaming csv.writer output."""

    def write(self, value: str) -> str:
        return value


# Cells starting with these are run as formulas by spreadsheet programs; questions
# and answers are untrusted text, so such cells get a leading apostrophe.
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: str) -> str:
    """``value`` made inert for spreadsheets (CSV/formula injection)."""
    return "'" + value if value.startswith(_FORMULA_PREFIXES) else value


def csv_header() -> list[str]:
    return [
        "id",
        _("日時"),
        _("質問者"),
        _("質問"),
        _("回答"),
        _("信頼度"),
        _("フラグ"),
        "👍",
        "👎",
        _("プロバイダー"),
        _("モデル"),
        _("レビュー状態"),
        _("担当者"),
        _("レビューメモ"),
    ]


def csv_row(answer: Answer, *, readable: bool) -> list[str | int]:
    """One answer as a CSV row; ``thumbs_up``/``thumbs_down`` annotations are used when present.

    When the viewer may not read the answer (``readable`` false), its question,
    text and notes are replaced by the redaction note; the rest still counts.
    """
    hidden = str(REDACTED)
    return [
        answer.pk,
        timezone.localtime(answer.created_at).isoformat(timespec="seconds"),
        answer.user.get_username(),
        safe_cell(answer.question) if readable else hidden,
        safe_cell(answer.answer_text) if readable else hidden,
        answer.confidence,
        " ".join(answer.flags),
        getattr(answer, "thumbs_up", ""),
        getattr(answer, "thumbs_down", ""),
        answer.provider,
        answer.model_name,
        answer.review_status,
        answer.assigned_to.get_username() if answer.assigned_to else "",
        (safe_cell(answer.review_notes) if readable else hidden) if answer.review_notes else "",
    ]


def iter_csv_lines(answers: Iterable[Answer], viewer: User | AnonymousUser) -> Iterator[str]:
    # A BOM first, so that spreadsheet programs open the Japanese text as UTF-8.
    yield "\ufeff"
    writer = csv.writer(_Echo())
    yield writer.writerow(csv_header())
    for answer in answers:
        yield writer.writerow(csv_row(answer, readable=may_read(answer, viewer)))


def answers_csv_response(
    answers: QuerySet[Answer], *, viewer: User | AnonymousUser, filename: str = "review-queue.csv"
) -> StreamingHttpResponse:
    """Stream ``answers`` (in their order) as a CSV download, redacted for what ``viewer`` may not read."""
    rows = with_readability(answers, viewer).select_related("user", "assigned_to").iterator(chunk_size=500)
    response = StreamingHttpResponse(iter_csv_lines(rows, viewer), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
