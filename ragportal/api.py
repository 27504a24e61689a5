"""What every REST API of the portal shares: paging, strict integer query parameters and ids from input.

Authentication, permissions, parsers and throttle rates are DRF settings
(``REST_FRAMEWORK`` in settings.py); this module holds the classes those
settings and the apps' views name, so that no app imports another for them.
"""

from __future__ import annotations

from django.db import connection
from django.utils.translation import gettext as _
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request


def largest_id() -> int:
    """The largest value the database's id columns hold."""
    return connection.ops.integer_field_range("BigAutoField")[1]


def database_id(raw: str) -> int | None:
    """``raw`` (ASCII digits) as an id the database can hold; ``None`` for anything else.

    Compared before it reaches the database: a larger number fails in the driver
    (SQLite: ``OverflowError``, a 500) instead of matching nothing, and the length
    is checked before ``int()``, which refuses (``ValueError``) more than 4,300 digits.
    """
    if not (raw.isascii() and raw.isdigit()):
        return None
    digits = raw.lstrip("0") or "0"
    largest = largest_id()
    if len(digits) > len(str(largest)) or int(digits) > largest:
        return None
    return int(digits)


def query_int(request: Request, name: str) -> int | None:
    """The query parameter ``name`` as a non-negative integer (``None`` when absent or empty), else a 400.

    Capped at what the database's id column holds (:func:`database_id`).
    """
    raw = request.query_params.get(name)
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()):
        raise ValidationError({name: [_("0以上の整数を指定してください。")]})
    value = database_id(raw)
    if value is None:
        raise ValidationError({name: [_("%(max)d 以下の整数を指定してください。") % {"max": largest_id()}]})
    return value


class Pagination(LimitOffsetPagination):
    """limit/offset paging; unlike DRF's default, a malformed value is a 400, not silently ignored."""

    default_limit = 20
    max_limit = 100

    def get_limit(self, request: Request) -> int | None:
        query_int(request, self.limit_query_param)
        return super().get_limit(request)

    def get_offset(self, request: Request) -> int:
        query_int(request, self.offset_query_param)
        return super().get_offset(request)
