"""The real PostgreSQL server and Chroma server the integration tests use.

RAGPORTAL_TEST_POSTGRES is a URL on a server where the tests may create
databases; RAGPORTAL_TEST_CHROMA is ``host:port`` of a Chroma server. `.ci/run`
(and `make test` where Debian's PostgreSQL is installed) starts throw-away ones
with scripts/services and sets both. Without them the tests skip with the
reason; under CI they fail, because CI must run them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from ragportal.throwaway import create_database, drop_database

POSTGRES_ENV = "RAGPORTAL_TEST_POSTGRES"
CHROMA_ENV = "RAGPORTAL_TEST_CHROMA"
HOW = (
    "`make test` starts throw-away servers when Debian's postgresql is installed; by hand, "
    'scripts/services start DIR && eval "$(scripts/services test-env DIR)" (see README, Tests)'
)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the integration tests: {reason}")
    pytest.skip(reason)


def postgres_server_url() -> str:
    url = os.environ.get(POSTGRES_ENV, "")
    if not url:
        _unavailable(f"{POSTGRES_ENV} is not set: no PostgreSQL server for the integration tests ({HOW})")
    return url


def chroma_server_address() -> tuple[str, int]:
    address = os.environ.get(CHROMA_ENV, "")
    host, _, port = address.rpartition(":")
    if not address:
        _unavailable(f"{CHROMA_ENV} is not set: no Chroma server for the integration tests ({HOW})")
    elif not host or not port.isdigit():
        _unavailable(f"{CHROMA_ENV} must be host:port, not {address!r}")
    return host, int(port)


@contextmanager
def postgres_database(label: str) -> Iterator[str]:
    """A new, empty database on the test server (dropped afterwards, with its connections); yields its URL."""
    url = create_database(postgres_server_url(), prefix=f"ragportal_test_{label}")
    try:
        yield url
    finally:
        drop_database(url)
