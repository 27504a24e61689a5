"""Recalibration after the live documents change: queued once, run by the indexing worker after the indexing.

documents/ sends ``live_documents_changed`` after a version goes live or a
document is deleted; :func:`calibration_schedule` answers it by queueing
:func:`calibrate_task` to run :data:`DEFER_S` seconds later, unless one is
already waiting. The task has a lower priority than indexing, so a worker takes
every queued version first: an import of 300 files is calibrated once, after
the last. Restricting a document to groups sends nothing: calibration measures
every live version, whoever may read it, since the thresholds are the corpus's,
not a reader's. With a backend that runs tasks at once (the immediate one: the test
suite, evaluation's throw-away portals) nothing is queued: ``manage.py calibrate``
calibrates there. A calibration costs about one search per pseudo-question (some 80 on
a corpus of 60 headings or more), which is why it is not run per upload. Should documents still be
indexing elsewhere (an import indexing in its own process), the task waits for
them, at most :data:`MAX_DEFERRALS` times. Until it has run, the previous
calibration stays in use; a calibration that fails stores nothing and so keeps it.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django_tasks import task

from documents.models import Document
from documents.tasks import task_waiting

log = logging.getLogger(__name__)

# Indexing tasks have the default priority 0: a worker takes them all before this one.
CALIBRATION_PRIORITY = -10
# Wait this long after a change before calibrating; while documents are being indexed, look again after as
# long, at most MAX_DEFERRALS times (a document left 「索引作成中」 by a dead worker must not hold it back for ever).
DEFER_S = 30
MAX_DEFERRALS = 20


@task(priority=CALIBRATION_PRIORITY)
def calibrate_task(deferrals: int = 0) -> None:
    """Measure the live corpus and store its calibration (qa.services.calibration_run); never raises."""
    from qa.services import calibration_run, calibration_up_to_date

    backend = calibrate_task.get_backend()
    indexing = Document.objects.filter(status=Document.Status.INDEXING).exists()
    if indexing and backend.supports_defer and deferrals < MAX_DEFERRALS:
        later = timezone.now() + timedelta(seconds=DEFER_S)
        calibrate_task.using(run_after=later).enqueue(deferrals + 1)
        return
    if calibration_up_to_date():  # measured since the change (`calibrate`, an import, load_demo): nothing to do
        log.info("calibration already up to date with the live documents")
        return
    try:
        calibration = calibration_run()
    except ValidationError as exc:  # nothing to measure (no document with headings): keep what there is
        log.info("calibration skipped: %s", " ".join(exc.messages))
    except Exception:  # the previous calibration stays in use; the next change or `calibrate` tries again
        log.exception("calibration failed; the previous calibration stays in use")
    else:
        log.info("calibrated on %d documents: %s", calibration.documents, calibration.values)


def calibration_schedule(**_signal: Any) -> None:
    """Queue a recalibration unless one is already waiting (a receiver of ``live_documents_changed``)."""
    if not settings.RAG_CALIBRATE_AFTER_INDEXING:
        return
    try:
        if not calibrate_task.get_backend().supports_defer:
            # A backend that runs each task at once (the immediate one) would calibrate inside the upload
            # or the evaluation that indexed: minutes each time. There `manage.py calibrate` does it.
            return
        if not task_waiting(calibrate_task):
            # A quiet moment first: an owner uploading several files one by one is calibrated once, after them.
            calibrate_task.using(run_after=timezone.now() + timedelta(seconds=DEFER_S)).enqueue()
    except Exception:  # the indexing that sent the signal has succeeded: never undo it from here
        log.exception("could not queue a recalibration; run `manage.py calibrate`")
