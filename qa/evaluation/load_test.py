"""Questions under load against gunicorn on 127.0.0.1, alone and while a large document is being indexed.

Two backends, each with the process layout of ``make run-prod``: ``embedded``
(SQLite and the Chroma directory: one gunicorn process with threads, one
indexing worker) and ``postgres`` (PostgreSQL and a Chroma server: three gunicorn
processes, two workers), the services started with scripts/services or given.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser, OutputWrapper

from qa.evaluation.benchmark_api import _questions, percentile
from ragportal.throwaway import (
    create_database,
    delete_collection,
    drop_database,
    read_row,
    services_start,
    services_stop,
    unique_collection_name,
)

LOOPBACK = "127.0.0.1"
# Each request gives up after this long; a slower answer counts as an error.
REQUEST_TIMEOUT_S = 60


@dataclass
class Phase:
    """What one run of ``users`` concurrent askers saw."""

    name: str
    users: int
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)  # successful requests, seconds
    errors: dict[str, int] = field(default_factory=dict)  # "HTTP 500", "timeout", ... → count

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    def row(self) -> dict[str, object]:
        ms = [v * 1000 for v in self.latencies]
        done = len(ms) + self.error_count
        return {
            "phase": self.name,
            "users": self.users,
            "requests": done,
            "errors": self.error_count,
            "error_kinds": dict(self.errors),
            "throughput_rps": round(len(ms) / self.seconds, 2) if self.seconds else 0.0,
            "p50_ms": round(percentile(ms, 0.50)),
            "p95_ms": round(percentile(ms, 0.95)),
            "p99_ms": round(percentile(ms, 0.99)),
        }


def long_document(chunks: int) -> str:
    """A Markdown rule book of about ``chunks`` chunks (one ~350-character article each, under the 400-character chunk size)."""
    articles = []
    for i in range(1, chunks + 1):
        body = (
            f"第{i}条の手続は、申請者が所定の様式に必要事項を記入し、所属長の承認を得たうえで総務部へ提出する。"
            f"総務部は受理した日から{i % 9 + 1}営業日以内に内容を確認し、不備がある場合は申請者へ差し戻す。"
            f"差し戻された申請は、修正のうえ再提出することができる。承認された申請の記録は{i % 5 + 3}年間保存し、"
            f"監査の求めに応じて提示する。第{i}条に定めのない事項は、総務部長が別に定める細則による。"
        )
        articles.append(f"## 第{i}条（手続{i}）\n{body}\n")
    return "# 総務手続規程（負荷試験用）\n" + "\n".join(articles)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Layout:
    """The processes ``make run-prod`` starts for a backend: gunicorn processes (each with threads) and workers."""

    web_workers: int
    index_workers: int
    web_threads: int = 4

    @classmethod
    def for_services(cls, services_env: dict[str, str]) -> Layout:
        # The embedded Chroma directory serves one web process and one worker (README); a server, more.
        return cls(web_workers=3, index_workers=2) if services_env.get("CHROMA_HOST") else cls(1, 1)


@contextmanager
def backend_services(
    backend: str, *, postgres: str | None, chroma: str | None, keep: bool, stdout: OutputWrapper
) -> Iterator[dict[str, str]]:
    """The portal's DATABASE_URL and CHROMA_* for ``backend`` (none: embedded); whatever was made is undone at the end.

    ``postgres`` (a server URL whose role may CREATE DATABASE) and ``chroma``
    (host:port) name running servers: a new database and collection on them.
    Without them, scripts/services starts a cluster and a Chroma server of their own.
    """
    if backend == "embedded":
        yield {}
        return
    if bool(postgres) != bool(chroma):
        raise CommandError("--postgres and --chroma go together (or leave both out to start throw-away services)")
    if postgres and chroma:
        host, _, port = chroma.rpartition(":")
        if not host or not port.isdigit():
            raise CommandError(f"--chroma takes host:port, not {chroma!r}")
        database_url, collection = create_database(postgres, prefix="ragportal_load"), unique_collection_name("load")
        stdout.write(f"using database {database_url} and collection {collection} on {chroma}")
        try:
            yield {
                "DATABASE_URL": database_url,
                "CHROMA_HOST": host,
                "CHROMA_PORT": port,
                "CHROMA_COLLECTION": collection,
            }
        finally:
            drop_database(database_url)
            delete_collection(host, int(port), collection)
        return
    directory = Path(tempfile.mkdtemp(prefix="ragportal-load-services-"))
    stdout.write(f"starting PostgreSQL and a Chroma server in {directory} (scripts/services)")
    try:
        try:
            services_env = services_start(directory)  # stops what it started if it fails
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc
        try:
            yield services_env
        finally:
            services_stop(directory)
    finally:
        if not keep:
            shutil.rmtree(directory, ignore_errors=True)


class Portal:
    """A throw-away portal: its own data directory, gunicorn and indexing workers, as `make run-prod` starts them."""

    def __init__(self, data_dir: Path, port: int, services_env: dict[str, str]) -> None:
        self.data_dir = data_dir
        self.port = port
        self.layout = Layout.for_services(services_env)
        self.database_url = services_env.get("DATABASE_URL") or f"sqlite:///{data_dir / 'ragportal.sqlite3'}"
        self.processes: list[subprocess.Popen] = []
        drop = {
            "DATABASE_URL", "CHROMA_HOST", "CHROMA_PORT", "CHROMA_COLLECTION",
            "DJANGO_SETTINGS_MODULE", "RAGPORTAL_DATA_DIR", "TASKS_BACKEND",
        }  # fmt: skip
        self.env = {k: v for k, v in os.environ.items() if k not in drop}
        self.env.update(
            services_env,
            DEBUG="0",  # production settings, as make run-prod (plain HTTP on loopback)
            SECRET_KEY=secrets.token_urlsafe(50),
            ALLOWED_HOSTS=LOOPBACK,
            RAG_HTTPS="0",
            OMP_NUM_THREADS="1",
            DJANGO_SETTINGS_MODULE="ragportal.settings",
            RAGPORTAL_DATA_DIR=str(data_dir),
            RAG_PROVIDER="extractive",
            RAG_LLM_EXPANSION="0",
            RAG_ASK_RATE="1000000/min",  # the per-user throttle would turn load into 429s
            RAG_HEALTH_RATE="1000000/min",
        )

    def _command(self, *args: str) -> list[str]:
        return [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), *args]

    def manage(self, *args: str, timeout: float = 900) -> str:
        done = subprocess.run(
            self._command(*args), env=self.env, cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=timeout
        )
        if done.returncode != 0:
            raise CommandError(f"manage.py {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def _gunicorn(self) -> list[str]:
        gunicorn = Path(sys.executable).with_name("gunicorn")
        executable = str(gunicorn) if gunicorn.exists() else shutil.which("gunicorn")
        if executable is None:
            raise CommandError("gunicorn is not installed (pip install -r requirements.txt)")
        layout = self.layout
        return [
            executable, "ragportal.wsgi", "--bind", f"{LOOPBACK}:{self.port}",
            "--workers", str(layout.web_workers), "--threads", str(layout.web_threads),
            "--timeout", "120", "--graceful-timeout", "30",
        ]  # fmt: skip

    def _workers(self) -> list[list[str]]:
        sole = ["--sole-worker"] if self.layout.index_workers == 1 else []
        return [self._command("index_worker", *sole) for _ in range(self.layout.index_workers)]

    def start(self) -> None:
        (self.data_dir / "static").mkdir(exist_ok=True)  # STATIC_ROOT, served by whitenoise (nothing collected)
        self.manage("migrate", "--noinput", "-v0")
        self.manage("load_demo")
        logs = self.data_dir / "logs"
        logs.mkdir(exist_ok=True)
        commands = [("web", self._gunicorn())] + [(f"worker{i}", c) for i, c in enumerate(self._workers(), 1)]
        for name, command in commands:
            with (logs / f"{name}.log").open("w") as log:
                self.processes.append(
                    subprocess.Popen(command, env=self.env, cwd=settings.BASE_DIR, stdout=log, stderr=subprocess.STDOUT)
                )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in self.processes):
                raise CommandError(f"a portal process exited at start; see {logs}")
            try:
                with urllib.request.urlopen(f"{self.url}api/v1/health", timeout=30) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        raise CommandError("the web server did not answer /api/v1/health within 120 s")

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(35)  # gunicorn's graceful timeout is 30 s
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/"

    def token(self, username: str) -> str:
        out = self.manage("drf_create_token", username)
        return out.split()[2]  # "Generated token KEY for user USERNAME"

    def ingest_in_background(self, text: str, filename: str) -> None:
        """Store a new document through the service; it is queued, and the worker indexes it."""
        source = self.data_dir / filename
        source.write_text(text, encoding="utf-8")
        code = (
            "from pathlib import Path\nfrom django.contrib.auth.models import User\n"
            "from documents.services import document_ingest\n"
            f"p = Path({str(source)!r})\n"
            "d = document_ingest(owner=User.objects.get(username='owner'), filename=p.name, data=p.read_bytes())\n"
            "print(d.status)\n"
        )
        status = self.manage("shell", "-v", "0", "-c", code).strip().splitlines()[-1]
        if status != "indexing":
            raise CommandError(f"the upload was not queued (status {status!r})")

    def document_state(self, filename: str) -> tuple[str, int, int]:
        """(status, chunks embedded, chunks) of ``filename``'s latest version, read from the portal's database."""
        row = read_row(
            self.database_url,
            "SELECT d.status, v.chunks_embedded, (SELECT count(*) FROM documents_chunk c WHERE c.version_id = v.id)"
            " FROM documents_document d JOIN documents_documentversion v ON v.document_id = d.id"
            " WHERE d.filename = ? ORDER BY v.number DESC LIMIT 1",
            (filename,),
        )
        return (str(row[0]), int(row[1]), int(row[2])) if row else ("missing", 0, 0)


def _ask(url: str, token: str, question: str) -> None:
    request = urllib.request.Request(
        f"{url}api/v1/ask",
        data=json.dumps({"text": question}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Token {token}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
        response.read()


def run_phase(
    phase: Phase,
    *,
    url: str,
    token: str,
    questions: list[str],
    seconds: float,
    max_requests: int,
    until: Callable[[], bool] | None = None,
) -> Phase:
    """``phase.users`` threads ask in a loop until ``seconds`` pass, ``max_requests`` are sent or ``until()`` is true."""
    lock = threading.Lock()
    sent = 0
    started = time.monotonic()

    def more() -> bool:
        nonlocal sent
        with lock:
            if sent >= max_requests or time.monotonic() - started >= seconds or (until is not None and until()):
                return False
            sent += 1
            return True

    def user(seed: int) -> None:
        rng = random.Random(seed)
        while more():
            t0 = time.monotonic()
            try:
                _ask(url, token, rng.choice(questions))
            except urllib.error.HTTPError as exc:
                kind = f"HTTP {exc.code}"
            except (TimeoutError, socket.timeout):
                kind = "timeout"
            except (urllib.error.URLError, OSError) as exc:
                kind = type(exc).__name__
            else:
                with lock:
                    phase.latencies.append(time.monotonic() - t0)
                continue
            with lock:
                phase.errors[kind] = phase.errors.get(kind, 0) + 1

    threads = [threading.Thread(target=user, args=(i,)) for i in range(phase.users)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    phase.seconds = time.monotonic() - started
    return phase


class Command(BaseCommand):
    help = (
        "Load test: start a throw-away portal on 127.0.0.1 (its own data directory, the demo corpus, gunicorn and "
        "indexing workers as `make run-prod` starts them; offline extractive provider), ask POST /api/v1/ask from 1, "
        "4 and 16 concurrent users, then again while a document of --index-chunks chunks is being indexed. Reports "
        "throughput, p50/p95/p99 and errors per phase, and stops everything it started. Bounded by --seconds and "
        "--max-requests. --backend postgres runs it on PostgreSQL and a Chroma server (started with scripts/services, "
        "or --postgres URL --chroma HOST:PORT)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--users", default="1,4,16", help="concurrent users per phase (default 1,4,16)")
        parser.add_argument("--seconds", type=float, default=20, help="length of each phase (default 20)")
        parser.add_argument("--max-requests", type=int, default=2000, help="requests per phase at most")
        parser.add_argument(
            "--index-chunks", type=int, default=1000, help="size of the document indexed meanwhile (0: skip)"
        )
        parser.add_argument("--index-users", type=int, default=16, help="concurrent users while it is indexed")
        parser.add_argument(
            "--index-seconds", type=float, default=600, help="the indexing phase ends by then at the latest"
        )
        parser.add_argument("--json", dest="json_out", help="also write the table to this file")
        parser.add_argument(
            "--keep-dir", action="store_true", help="keep the throw-away data directory (logs in logs/)"
        )
        parser.add_argument(
            "--backend", choices=("embedded", "postgres"), default="embedded",
            help="embedded: SQLite and the Chroma directory, 1 web process and 1 worker; postgres: PostgreSQL and a "
            "Chroma server, 3 web processes and 2 workers (default embedded)",
        )  # fmt: skip
        parser.add_argument("--postgres", help="with --backend postgres: a server URL whose role may CREATE DATABASE")
        parser.add_argument("--chroma", help="with --backend postgres: host:port of a running Chroma server")

    def handle(self, *args: Any, **options: Any) -> None:
        users = [int(u) for u in str(options["users"]).split(",") if u.strip()]
        if not users or min(users) < 1:
            raise CommandError("--users takes positive numbers, e.g. 1,4,16")
        data_dir = Path(tempfile.mkdtemp(prefix="ragportal-load-"))
        rows: list[dict[str, object]] = []
        try:
            with backend_services(
                str(options["backend"]), postgres=options["postgres"], chroma=options["chroma"],
                keep=bool(options["keep_dir"]), stdout=self.stdout,
            ) as services_env:  # fmt: skip
                rows = self._run(Portal(data_dir, _free_port(), services_env), users, options)
        finally:
            if not options["keep_dir"]:
                shutil.rmtree(data_dir, ignore_errors=True)
        if options["json_out"]:
            Path(str(options["json_out"])).write_text(json.dumps(rows, ensure_ascii=False, indent=2), "utf-8")

    def _run(self, portal: Portal, users: list[int], options: dict) -> list[dict[str, object]]:
        layout = portal.layout
        rows: list[dict[str, object]] = []
        try:
            self.stdout.write(
                f"starting a portal in {portal.data_dir} on {portal.url} (migrate, demo corpus, gunicorn with "
                f"{layout.web_workers} process(es) × {layout.web_threads} threads, {layout.index_workers} worker(s))"
            )
            portal.start()
            token = portal.token("employee")
            questions = _questions()
            # Every gunicorn process loads the model on its first question: warm them all up.
            warm = layout.web_workers * layout.web_threads
            run_phase(
                Phase("warm-up", warm),
                url=portal.url,
                token=token,
                questions=questions,
                seconds=60,
                max_requests=warm * 2,
            )
            for n in users:
                phase = run_phase(
                    Phase("questions only", n),
                    url=portal.url,
                    token=token,
                    questions=questions,
                    seconds=float(options["seconds"]),
                    max_requests=int(options["max_requests"]),
                )
                rows.append(self._report(phase.row()))
            if options["index_chunks"]:
                rows.append(self._indexing_phase(portal, token, questions, options))
        finally:
            portal.stop()
        return rows

    def _indexing_phase(self, portal: Portal, token: str, questions: list[str], options: dict) -> dict[str, object]:
        filename = "load-test-rules.md"
        portal.ingest_in_background(long_document(int(options["index_chunks"])), filename)
        started = time.monotonic()
        users = int(options["index_users"])
        phase = run_phase(
            Phase("while indexing", users),
            url=portal.url,
            token=token,
            questions=questions,
            seconds=float(options["index_seconds"]),
            max_requests=10**9,
            until=lambda: portal.document_state(filename)[0] != "indexing",
        )
        status, embedded, total = portal.document_state(filename)
        row = phase.row()
        row.update(indexed_chunks=total, embedded=embedded, final_status=status)
        row["indexing_s"] = round(time.monotonic() - started, 1)
        return self._report(row)

    def _report(self, row: dict[str, object]) -> dict[str, object]:
        extra = ""
        if "indexed_chunks" in row:
            extra = (
                f"  [document of {row['indexed_chunks']} chunks: {row['final_status']} after {row['indexing_s']} s,"
                f" {row['embedded']} embedded]"
            )
        self.stdout.write(
            f"{row['phase']:15} users {row['users']:>2}  requests {row['requests']:>5}  errors {row['errors']:>3}  "
            f"{row['throughput_rps']:>6} req/s  p50 {row['p50_ms']:>6} ms  p95 {row['p95_ms']:>6} ms  "
            f"p99 {row['p99_ms']:>6} ms{extra}" + (f"  {row['error_kinds']}" if row["errors"] else "")
        )
        return row
