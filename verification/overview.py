"""Numbers for the review overview page: flagged answers per day, not-found rate, documents involved.

Everything is computed from the database in a handful of aggregate queries and
turned into plain data (including the geometry of the SVG chart), so that the
template only draws and escapes.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Q
from django.db.models.functions import TruncDate
from django.urls import reverse
from django.utils.http import urlencode
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from documents.models import Document
from documents.selectors import visible_documents
from qa.models import Answer, AnswerSource, Citation
from verification.access import REDACTED
from verification.admin_filters import FLAG_LABELS, ConfidenceFilter, FeedbackFilter, FlagFilter
from verification.flags import FLAG_NAMES
from verification.queue import (
    confidence_condition,
    feedback_condition,
    flag_condition,
    needs_review_condition,
    review_queue,
)

DAYS = 30

# Chart geometry, in SVG user units.
LABEL_WIDTH = 170
BAR_WIDTH = 14
BAR_GAP = 3
ROW_HEIGHT = 34
BAR_MAX_HEIGHT = 24
TOTAL_WIDTH = 50
AXIS_HEIGHT = 22


@dataclass
class Bar:
    day: dt.date
    count: int
    x: int
    y: int
    height: int
    url: str = ""


@dataclass
class Series:
    key: str
    label: str
    total: int
    y: int
    bars: list[Bar] = field(default_factory=list)
    url: str = ""
    # What the total's link says to a screen reader (the .svg template is not scanned for messages).
    link_label: str = ""


@dataclass
class Chart:
    width: int
    height: int
    series: list[Series]
    ticks: list[tuple[int, str]]
    baseline_offset: int
    total_x: int
    bar_width: int = BAR_WIDTH


@dataclass(frozen=True)
class Row:
    """One count of the overview: which queued answers it counts, and the queue filter that lists them.

    ``condition`` comes from :mod:`verification.queue`, the same function the list
    filter named in ``params`` applies, so a count and its link cannot disagree.
    """

    key: str
    label: str
    condition: Q
    params: dict[str, str]


def _series_conditions() -> list[Row]:
    """The chart rows; the first row is the whole queue. Every row counts queued answers only."""
    low = Answer.Confidence.LOW
    rows = [
        Row("queue", str(_("要確認（合計）")), needs_review_condition(), {}),
        Row("low_confidence", str(_("信頼度：低")), confidence_condition(low), {ConfidenceFilter.parameter_name: low}),
        Row("thumbs_down", str(_("低評価（👎）")), feedback_condition("down"), {FeedbackFilter.parameter_name: "down"}),
    ]
    rows += [
        Row(name, str(FLAG_LABELS[name]), flag_condition(name), {FlagFilter.parameter_name: name})
        for name in FLAG_NAMES
    ]
    return rows


def _day_start(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def queue_url(params: dict[str, str], first: dt.date, last: dt.date) -> str:
    """The review queue filtered by ``params`` to answers asked from ``first`` to ``last`` (local days).

    The period uses the parameters of the queue's own date filter (``created_at__gte``/``__lt``).
    """
    period = {
        "created_at__gte": str(_day_start(first)),
        "created_at__lt": str(_day_start(last + dt.timedelta(days=1))),
    }
    return reverse("admin:qa_answer_changelist") + "?" + urlencode({**params, **period})


def _window(now: dt.datetime, days: int) -> tuple[list[dt.date], dt.datetime]:
    today = timezone.localdate(now)
    first = today - dt.timedelta(days=days - 1)
    start = timezone.make_aware(dt.datetime.combine(first, dt.time.min))
    return [first + dt.timedelta(days=i) for i in range(days)], start


def daily_counts(
    now: dt.datetime | None = None, days: int = DAYS
) -> tuple[list[dt.date], dict[str, dict[dt.date, int]]]:
    """Per chart row, the number of queued answers per local calendar day over the last ``days`` days (one query)."""
    day_list, start = _window(now or timezone.now(), days)
    conditions = _series_conditions()
    rows = (
        Answer.objects.filter(needs_review_condition(), created_at__gte=start)
        .annotate(day=TruncDate("created_at", tzinfo=timezone.get_current_timezone()))
        .order_by()
        .values("day")
        .annotate(**{row.key: Count("pk", filter=row.condition) for row in conditions})
    )
    counts: dict[str, dict[dt.date, int]] = {row.key: {} for row in conditions}
    for row in rows:
        for key in counts:
            counts[key][row["day"]] = row[key]
    return day_list, counts


def flag_chart(now: dt.datetime | None = None, days: int = DAYS) -> Chart:
    """The small-multiples bar chart: one row per series, one bar per day, a shared scale."""
    day_list, counts = daily_counts(now, days)
    peak = max((n for per_day in counts.values() for n in per_day.values()), default=0) or 1
    series = []
    for index, row in enumerate(_series_conditions()):
        y = index * ROW_HEIGHT
        bars = []
        for i, day in enumerate(day_list):
            count = counts[row.key].get(day, 0)
            height = round(BAR_MAX_HEIGHT * count / peak) if count else 0
            # A non-zero day stays visible next to a large peak.
            height = max(height, 2) if count else 0
            x = LABEL_WIDTH + i * (BAR_WIDTH + BAR_GAP)
            url = queue_url(row.params, day, day)
            bars.append(Bar(day=day, count=count, x=x, y=y + BAR_MAX_HEIGHT - height, height=height, url=url))
        total = sum(b.count for b in bars)
        url = queue_url(row.params, day_list[0], day_list[-1])
        link_label = _("%(label)s: %(count)d件を一覧で見る") % {"label": row.label, "count": total}
        series.append(
            Series(key=row.key, label=row.label, total=total, y=y, bars=bars, url=url, link_label=str(link_label))
        )
    plot_width = len(day_list) * (BAR_WIDTH + BAR_GAP)
    ticks = [
        (LABEL_WIDTH + i * (BAR_WIDTH + BAR_GAP), day.strftime("%m/%d"))
        for i, day in enumerate(day_list)
        # Weekly ticks plus the last day, without a weekly tick crowding the last one.
        if (i % 7 == 0 and i < len(day_list) - 4) or i == len(day_list) - 1
    ]
    height = len(series) * ROW_HEIGHT + AXIS_HEIGHT
    return Chart(
        width=LABEL_WIDTH + plot_width + TOTAL_WIDTH,
        height=height,
        series=series,
        ticks=ticks,
        baseline_offset=BAR_MAX_HEIGHT,
        total_x=LABEL_WIDTH + plot_width + 8,
    )


def not_found_rate(now: dt.datetime | None = None, days: int = DAYS) -> dict[str, float | int]:
    """Share of answers in the window that found nothing to answer from (a sign that documents are missing)."""
    _days, start = _window(now or timezone.now(), days)
    not_found = Q(response_type=Answer.ResponseType.NOT_FOUND) | Q(flag_not_found=True)
    totals = Answer.objects.filter(created_at__gte=start).aggregate(
        total=Count("pk"), not_found=Count("pk", filter=not_found)
    )
    total, missing = totals["total"], totals["not_found"]
    return {"total": total, "not_found": missing, "rate": (missing / total) if total else 0.0}


@dataclass
class DocumentInvolvement:
    filename: str
    answers: int
    cited: int
    retrieved: int
    document: Document | None
    # The viewer may not read the document: its name is replaced by the redaction note.
    hidden: bool = False


def _hidden_names(names: list[str], viewer: AbstractBaseUser | AnonymousUser) -> set[str]:
    """Of ``names``, the file names ``viewer`` may not see (the rule of ``verification.access``).

    A deleted document's name stays visible only if it was open to everyone when answered.
    """
    if viewer.is_superuser:
        return set()
    existing = set(Document.objects.filter(filename__in=names).values_list("filename", flat=True))
    visible = set(visible_documents(viewer).filter(filename__in=names).values_list("filename", flat=True))
    gone = [name for name in names if name not in existing]
    restricted_gone = set(
        AnswerSource.objects.filter(filename__in=gone, restricted=True).values_list("filename", flat=True)
    )
    return (existing - visible) | restricted_gone


def documents_in_flagged_answers(
    now: dt.datetime | None = None,
    days: int = DAYS,
    limit: int = 10,
    *,
    viewer: AbstractBaseUser | AnonymousUser,
) -> list[DocumentInvolvement]:
    """Documents most often cited by, or retrieved for, queued answers of the window.

    Counted by file name from the snapshots (citations and retrieved chunks), so a
    document re-indexed or deleted since still shows up. ``answers`` counts each
    answer once per document even when it both cites and retrieved it. Documents
    ``viewer`` may not read are counted but shown without their name.
    """
    _days, start = _window(now or timezone.now(), days)
    queued = review_queue(Answer.objects.filter(created_at__gte=start))
    cited: dict[str, set[int]] = {}
    for answer_id, filename in Citation.objects.filter(answer__in=queued.values("pk")).values_list(
        "answer_id", "filename"
    ):
        if filename:
            cited.setdefault(filename, set()).add(answer_id)
    retrieved: dict[str, set[int]] = {}
    for answer_id, snapshot in queued.values_list("pk", "retrieved"):
        for item in snapshot or []:
            if isinstance(item, dict) and item.get("filename"):
                retrieved.setdefault(item["filename"], set()).add(answer_id)
    involved = Counter(
        {name: len(cited.get(name, set()) | retrieved.get(name, set())) for name in {*cited, *retrieved}}
    )
    top = sorted(involved.items(), key=lambda item: (-item[1], item[0]))[:limit]
    documents = Document.objects.in_bulk([name for name, _n in top], field_name="filename")
    hidden = _hidden_names([name for name, _n in top], viewer)
    return [
        DocumentInvolvement(
            filename=str(REDACTED) if name in hidden else name,
            answers=n,
            cited=len(cited.get(name, ())),
            retrieved=len(retrieved.get(name, ())),
            document=None if name in hidden else documents.get(name),
            hidden=name in hidden,
        )
        for name, n in top
    ]


def overview_context(now: dt.datetime | None = None, *, viewer: AbstractBaseUser | AnonymousUser) -> dict[str, object]:
    """Everything the overview template shows to ``viewer``."""
    now = now or timezone.now()
    return {
        "chart": flag_chart(now),
        "not_found": not_found_rate(now),
        "documents": documents_in_flagged_answers(now, viewer=viewer),
        "days": DAYS,
    }
