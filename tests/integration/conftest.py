"""Each integration test's portal: a database of its own on RAGPORTAL_TEST_POSTGRES (dropped afterwards)
and a collection of its own on RAGPORTAL_TEST_CHROMA (deleted afterwards); see tests/integration_services.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragportal.throwaway import delete_collection, unique_collection_name
from tests.integration_services import chroma_server_address, postgres_database
from tests.portal import Portal, worker_processes


@pytest.fixture
def pg_database() -> Iterator[str]:
    """The URL of a new, empty database on the test server; dropped after the test."""
    with postgres_database("portal") as url:
        yield url


@pytest.fixture
def portal(tmp_path: Path, pg_database: str) -> Iterator[Portal]:
    """A migrated portal on its own PostgreSQL database and its own collection on the Chroma server."""
    host, port = chroma_server_address()
    collection = unique_collection_name("test")
    portal = Portal(tmp_path, database_url=pg_database, chroma=(host, port, collection))
    portal.manage("migrate", "--noinput", "-v0")
    try:
        yield portal
    finally:
        delete_collection(host, port, collection)


@pytest.fixture
def worker(portal: Portal):
    """Start a long-running worker (as `make run` does); always killed at the end."""
    with worker_processes(portal) as start:
        yield start
