"""What every REST API of the portal shares: paging and strict integer query parameters.

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


def query_int(request: Request, name: str) -> int | None:
    """The query parameter ``name`` as a non-negative integer (``None`` when absent or empty), else a 400.

    Capped at what the database's id column holds: a larger number would reach
    the driver and fail there (SQLite: ``OverflowError``, a 500), not match nothing.
    """
    raw = request.query_params.get(name)
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()):
        raise ValidationError({name: [_("0以上の整数を指定してください。")]})
    largest = connection.ops.integer_field_range("BigAutoField")[1]
    digits = raw.lstrip("0") or "0"
    # Length first: int() refuses (ValueError) strings of more than 4300 digits.
    if len(digits) > len(str(largest)) or int(digits) > largest:
        raise ValidationError({name: [_("%(max)d 以下の整数を指定してください。") % {"max": largest}]})
    return int(digits)


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
