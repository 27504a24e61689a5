"""A real PostgreSQL server and Chroma server, given by the environment.

RAGPORTAL_TEST_POSTGRES is the URL of a database on a server where the tests may
CREATE DATABASE (each test gets its own, dropped afterwards); RAGPORTAL_TEST_CHROMA
is ``host:port`` of a Chroma server (each test gets its own collection, deleted
afterwards). `.ci/run` and `make test` start throw-away ones with scripts/services.
Without them the tests skip with the reason; under CI they fail instead, because
CI must run them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ragportal.throwaway import create_database, delete_collection, drop_database, unique_collection_name
from tests.portal import Portal, worker_processes

POSTGRES_ENV = "RAGPORTAL_TEST_POSTGRES"
CHROMA_ENV = "RAGPORTAL_TEST_CHROMA"


@dataclass(frozen=True)
class Servers:
    postgres_url: str
    chroma_host: str
    chroma_port: int


def _servers_from_environment() -> Servers | str:
    """The servers, or why there are none."""
    postgres, chroma = os.environ.get(POSTGRES_ENV, ""), os.environ.get(CHROMA_ENV, "")
    if not postgres or not chroma:
        return (
            f"{POSTGRES_ENV} and {CHROMA_ENV} are not set: the integration tests need a PostgreSQL server and a "
            "Chroma server (`make test` starts throw-away ones when Debian's postgresql is installed; or "
            'eval "$(scripts/services test-env DIR)" after scripts/services start DIR)'
        )
    host, _, port = chroma.rpartition(":")
    if not host or not port.isdigit():
        return f"{CHROMA_ENV} must be host:port, not {chroma!r}"
    return Servers(postgres_url=postgres, chroma_host=host, chroma_port=int(port))


@pytest.fixture(scope="session")
def servers() -> Servers:
    found = _servers_from_environment()
    if isinstance(found, str):
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the integration tests: {found}")
        pytest.skip(found)
    return found


@pytest.fixture
def pg_database(servers: Servers) -> Iterator[str]:
    """The URL of a new, empty database on the test server; dropped after the test."""
    url = create_database(servers.postgres_url, prefix="ragportal_test")
    try:
        yield url
    finally:
        drop_database(url)


@pytest.fixture
def portal(tmp_path: Path, servers: Servers, pg_database: str) -> Iterator[Portal]:
    """A migrated portal on its own PostgreSQL database and its own collection on the Chroma server."""
    collection = unique_collection_name("test")
    portal = Portal(tmp_path, database_url=pg_database, chroma=(servers.chroma_host, servers.chroma_port, collection))
    portal.manage("migrate", "--noinput", "-v0")
    try:
        yield portal
    finally:
        delete_collection(servers.chroma_host, servers.chroma_port, collection)


@pytest.fixture
def worker(portal: Portal):
    """Start a long-running worker (as `make run` does); always killed at the end."""
    with worker_processes(portal) as start:
        yield start
