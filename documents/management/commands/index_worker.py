from __future__ import annotations

import os

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from documents.recovery import indexing_requeue


class Command(BaseCommand):
    help = (
        "Run an indexing worker: re-queue documents a crashed worker left 「索引作成中」, then run "
        "django-tasks-db's db_worker. The worker runs at a lower CPU priority than the web server, so "
        "questions stay fast while a large document is embedded."
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

    def handle(self, *args: object, **options: object) -> None:
        if options["nice"]:
            os.nice(int(options["nice"]))
        report = indexing_requeue(sole_worker=bool(options["sole_worker"]))
        if report.abandoned_tasks or report.requeued or report.failed:
            self.stdout.write(
                f"recovery: {report.abandoned_tasks} abandoned task(s) marked failed; "
                f"re-queued {', '.join(report.requeued) or 'nothing'}; gave up on {', '.join(report.failed) or 'nothing'}"
            )
        worker_options = {"interval": options["interval"], "batch": bool(options["batch"]), "reload": False}
        call_command("db_worker", startup_delay=False, verbosity=options["verbosity"], **worker_options)
