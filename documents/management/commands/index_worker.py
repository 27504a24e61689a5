from __future__ import annotations

import logging
import os
import time
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser
from django.db import connections

from documents.indexer_lock import sole_indexer
from documents.recovery import indexing_requeue, worker_id
from ragportal.database_unavailable import DATABASE_UNAVAILABLE_ERRORS

log = logging.getLogger(__name__)

# Waits between attempts while the database cannot be used: 1 s, 2 s, 4 s ... up to this.
MAX_BACKOFF_S = 30.0


class Command(BaseCommand):
    help = (
        "Run an indexing worker: re-queue documents a crashed worker left 「索引作成中」, then run "
        "django-tasks-db's db_worker. The worker runs at a lower CPU priority than the web server, so "
        "questions stay fast while a large document is embedded. When the database is locked for "
        "longer than its timeout or cannot be reached, the worker logs it, waits (backing off up to "
        f"{MAX_BACKOFF_S:.0f} s) and carries on once the database is back. On an embedded Chroma directory "
        "it is the one indexing process: a second worker (or an import without --queue) stops with a message."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--sole-worker",
            action="store_true",
            help="no other worker runs (make run): any task still marked running was left by a dead worker",
        )
        parser.add_argument("--batch", action="store_true", help="run the queued tasks, then exit")
        parser.add_argument("--interval", type=float, default=1.0, help="seconds between looks at an empty queue")
        parser.add_argument("--nice", type=int, default=10, help="CPU priority increment (0: as the web server)")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["nice"]:
            os.nice(int(options["nice"]))
        # An embedded Chroma directory takes one indexing process (documents.indexer_lock).
        with sole_indexer("an indexing worker (manage.py index_worker)"):
            self._run(options)

    def _run(self, options: dict[str, Any]) -> None:
        backoff = 1.0
        while True:
            try:
                self._recover(sole_worker=bool(options["sole_worker"]))
                # Reached only once the database answered: the next outage starts from a short wait again.
                backoff = 1.0
                worker_options = {
                    "interval": options["interval"],
                    "batch": bool(options["batch"]),
                    "reload": False,
                    "worker_id": worker_id(),  # host:pid, so that a restart can tell this worker died
                }
                call_command("db_worker", startup_delay=False, verbosity=options["verbosity"], **worker_options)
                return
            except DATABASE_UNAVAILABLE_ERRORS as exc:
                # A task cut off here stays "running"; the recovery at the next round re-queues it
                # (at once with --sole-worker, else after RAG_INDEX_TASK_TIMEOUT_S).
                log.warning("database unavailable (%s); the indexing worker retries in %.0f s", exc, backoff)
                connections.close_all()
                time.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_S)

    def _recover(self, *, sole_worker: bool) -> None:
        report = indexing_requeue(sole_worker=sole_worker)
        if report.abandoned_tasks or report.requeued or report.failed:
            self.stdout.write(
                f"recovery: {report.abandoned_tasks} abandoned task(s) marked failed; "
                f"re-queued {', '.join(report.requeued) or 'nothing'}; gave up on {', '.join(report.failed) or 'nothing'}"
            )
