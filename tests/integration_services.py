"""The real PostgreSQL server the integration tests use (RAGPORTAL_TEST_POSTGRES).

`.ci/run` (and `make test` where Debian's PostgreSQL is installed) starts a
throw-away server and sets the variable to a URL of it on which the tests may
create databases. Without it the tests skip with the reason; under CI they fail.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

POSTGRES_ENV = "RAGPORTAL_TEST_POSTGRES"


def postgres_server_url() -> str:
    url = os.environ.get(POSTGRES_ENV, "")
    if not url:
        reason = f"{POSTGRES_ENV} is not set: no PostgreSQL server for the integration tests (see README, Tests)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the integration tests: {reason}")
        pytest.skip(reason)
    return url


@contextmanager
def postgres_database(label: str) -> Iterator[str]:
    """A new, empty database on the test server (dropped afterwards); yields its URL."""
    import psycopg
    from psycopg import sql

    server = postgres_server_url()
    name = f"ragportal_test_{label}_{secrets.token_hex(4)}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield server.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
