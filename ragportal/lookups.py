"""``__in`` on integer columns ignores numbers the column cannot hold, as Django's ``exact`` already does.

Django 5.2 makes ``filter(pk=10**20)`` match nothing (``IntegerFieldOverflow``)
but passes ``filter(pk__in=[10**20])`` to the driver, which fails (SQLite:
``OverflowError``, a 500). Every ``ModelMultipleChoiceField`` looks its choices up
with ``pk__in`` (the upload form's groups, the admin's group pickers), so one
number too large in a form was a server error instead of Django's own
"not one of the available choices". Registered on ``IntegerField`` (and so on
every auto and positive integer field) by ``documents.apps``.
"""

from __future__ import annotations

from typing import Any

from django.db.models import IntegerField
from django.db.models.lookups import In


class IntegerFieldIn(In):
    """``in`` without the values outside the column's range (they match no row); none left matches nothing."""

    def process_rhs(self, compiler: Any, connection: Any) -> Any:
        if self.rhs_is_direct_value():
            low, high = connection.ops.integer_field_range(self.lhs.output_field.get_internal_type())
            self.rhs = [value for value in self.rhs if not _outside(value, low, high)]
        return super().process_rhs(compiler, connection)


def _outside(value: Any, low: int | None, high: int | None) -> bool:
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    return (low is not None and value < low) or (high is not None and value > high)


def register() -> None:
    """Make :class:`IntegerFieldIn` the ``in`` lookup of every integer field (idempotent)."""
    IntegerField.register_lookup(IntegerFieldIn)
