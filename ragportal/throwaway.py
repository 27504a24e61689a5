"""Throw-away backing services for the load test and the integration tests.

A PostgreSQL database created on a given server and dropped afterwards, a Chroma
collection removed afterwards, ``scripts/services`` (a whole cluster and Chroma
server in a directory) driven from Python, and one-row reads of a portal's
database (SQLite file or PostgreSQL) from outside its processes.
"""

from __future__ import annotations

import secrets
import sqlite3
import subprocess
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

SERVICES_SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "services"


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))


def _psycopg_url(url: str) -> str:
    """libpq accepts postgresql:// and postgres://, not Django's postgis:// or psql:// aliases."""
    parts = urlsplit(url)
    return urlunsplit(("postgresql", parts.netloc, parts.path, parts.query, ""))


def create_database(server_url: str, prefix: str = "ragportal_scratch") -> str:
    """Create an empty database on the server of ``server_url`` (whose role may CREATE DATABASE); return its URL."""
    import psycopg

    from psycopg import sql

    name = f"{prefix}_{secrets.token_hex(4)}"
    with psycopg.connect(_psycopg_url(server_url), autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return _with_database(server_url, name)


def drop_database(url: str) -> None:
    """Drop the database of ``url``, closing its remaining connections (a killed worker's, say)."""
    import psycopg

    from psycopg import sql

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(_psycopg_url(_with_database(url, "postgres")), autocommit=True) as connection:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def unique_collection_name(prefix: str = "scratch") -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


def delete_collection(host: str, port: int, name: str) -> None:
    """Remove a collection from a Chroma server; one that is not there is fine."""
    import chromadb
    from chromadb.config import Settings

    client = chromadb.HttpClient(host=host, port=port, settings=Settings(anonymized_telemetry=False))
    try:
        client.delete_collection(name)
    except Exception as exc:  # chromadb raises NotFoundError or ValueError, depending on the version
        if "does not exist" not in str(exc) and "not found" not in str(exc).lower():
            raise


def read_row(database_url: str, sql: str, params: Sequence[object] = ()) -> tuple | None:
    """One row of ``sql`` (``?`` placeholders) from a portal's database, without Django; None when there is none."""
    rows = read_rows(database_url, sql, params)
    return rows[0] if rows else None


def read_rows(database_url: str, sql: str, params: Sequence[object] = ()) -> list[tuple]:
    """Every row of ``sql`` (``?`` placeholders) from ``sqlite:///PATH`` (read-only) or ``postgres://…``."""
    if database_url.startswith("sqlite:///"):
        path = database_url.removeprefix("sqlite:///")
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=20) as db:
            return [tuple(row) for row in db.execute(sql, tuple(params)).fetchall()]
    import psycopg

    with psycopg.connect(_psycopg_url(database_url), autocommit=True) as connection:
        return [tuple(row) for row in connection.execute(sql.replace("?", "%s"), tuple(params)).fetchall()]


def _services(command: str, directory: Path, timeout: float = 120) -> str:
    done = subprocess.run(
        [str(SERVICES_SCRIPT), command, str(directory)], capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise RuntimeError(f"scripts/services {command} {directory} exited {done.returncode}:\n{done.stderr}")
    return done.stdout


def _exported(line: str) -> dict[str, str]:
    """``export A=1 B=2`` → ``{"A": "1", "B": "2"}`` (the values carry no spaces)."""
    return dict(pair.split("=", 1) for pair in line.removeprefix("export ").split())


def services_start(directory: Path) -> dict[str, str]:
    """Start PostgreSQL and a Chroma server in ``directory``; return DATABASE_URL, CHROMA_HOST and CHROMA_PORT."""
    _services("start", directory)
    return _exported(_services("env", directory).strip())


def services_stop(directory: Path) -> None:
    _services("stop", directory)
