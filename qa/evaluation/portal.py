"""A throw-away portal to evaluate in: nothing the configured portal serves is read or written.

The dense index and uploads go to a temporary directory and indexing runs
inline (the immediate tasks backend). The database is a fresh one from
Django's test-database machinery (for SQLite an in-memory database, for
PostgreSQL ``test_<name>``), migrated as a new install is; when the caller is
already inside a transaction (a test), the connection cannot be switched, so
the run happens in a savepoint that is rolled back instead.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection, transaction
from django.test.utils import override_settings

IMMEDIATE_TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


class _DiscardError(Exception):
    """Raised at the end of a savepoint run to roll it back."""


@contextmanager
def throwaway_portal() -> Iterator[None]:
    """Inside: an empty, migrated portal of its own; on exit everything it held is gone."""
    with (
        tempfile.TemporaryDirectory(prefix="ragportal-eval-portal-") as tmp,
        override_settings(
            CHROMA_DIR=Path(tmp) / "chroma", CHROMA_HOST="", MEDIA_ROOT=Path(tmp) / "uploads", TASKS=IMMEDIATE_TASKS
        ),
    ):
        if connection.in_atomic_block:
            with _rolled_back():
                yield
            return
        live_database = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        try:
            yield
        finally:
            connection.creation.destroy_test_db(live_database, verbosity=0)


@contextmanager
def _rolled_back() -> Iterator[None]:
    try:
        with transaction.atomic():
            yield
            raise _DiscardError
    except _DiscardError:
        pass
