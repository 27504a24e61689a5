"""Background work through the Django tasks API.

By default the database backend (django-tasks-db): an upload queues a task and a
``manage.py index_worker`` process runs it. The test suite uses the immediate
backend, which runs the task inside the call that queues it.

After the live documents change, :func:`sentence_vectors_schedule` queues
:func:`sentence_vectors_task`: the new chunks' sentences are embedded and stored
on their rows, after every queued indexing (a lower priority), so that the
first questions after an import do not each wait seconds for it (a chunk's
sentences are otherwise embedded the first time a question retrieves it).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db.models import F
from django_tasks import task
from django_tasks.base import Task, TaskResultStatus

from documents.models import DocumentVersion

log = logging.getLogger(__name__)

# Indexing tasks have the default priority 0 and the recalibration -10 (qa.tasks): sentence vectors come
# after every queued version and before the calibration, whose pseudo-questions then find them stored.
SENTENCE_VECTORS_PRIORITY = -5
# Chunks embedded between two looks at the queue: about 3 s of the model's time on a handbook's chunks.
SENTENCE_VECTORS_BATCH = 32


@task()
def index_version_task(version_id: int) -> None:
    from documents.services import version_index

    version = DocumentVersion.objects.select_related("document").filter(pk=version_id).first()
    if version is None:  # deleted before the worker got to it
        return
    # Counted before the work starts: a run that kills its worker still counts (documents.recovery).
    DocumentVersion.objects.filter(pk=version_id).update(index_attempts=F("index_attempts") + 1)
    version_index(version=version)


@task(priority=SENTENCE_VECTORS_PRIORITY)
def sentence_vectors_task() -> None:
    """Embed and store the sentences of every live chunk that has none yet; never raises.

    Between batches it steps aside for an indexing queued meanwhile: it queues
    itself again (behind that indexing, by priority) and stops. A row it could
    not write (the database busy) is left for the next run or the first question.
    """
    from documents.services import sentence_vectors_fill

    try:
        for done, total in sentence_vectors_fill(batch=SENTENCE_VECTORS_BATCH):
            if done < total and task_waiting(index_version_task):
                sentence_vectors_task.enqueue()
                return
    except Exception:  # a cache left unfilled: questions embed what they retrieve, as without this task
        log.exception("sentence vectors not embedded in the background; questions embed them when needed")


def sentence_vectors_schedule(**_signal: Any) -> None:
    """Queue :func:`sentence_vectors_task` unless one is already waiting (a receiver of ``live_documents_changed``)."""
    if not settings.RAG_SENTENCE_VECTORS_AFTER_INDEXING:
        return
    try:
        # A backend that runs each task at once (the immediate one) would embed inside the upload.
        if sentence_vectors_task.get_backend().supports_defer and not task_waiting(sentence_vectors_task):
            sentence_vectors_task.enqueue()
    except Exception:  # the indexing that sent the signal has succeeded: never undo it from here
        log.exception("could not queue the sentence vectors; questions embed them when needed")


def task_waiting(queued: Task) -> bool:
    """Whether ``queued`` (a task) is in the queue and not started; only a database queue can tell."""
    from django_tasks_db.backend import DatabaseBackend
    from django_tasks_db.models import DBTaskResult

    if not isinstance(queued.get_backend(), DatabaseBackend):
        return False
    return DBTaskResult.objects.filter(status=TaskResultStatus.READY, task_path=queued.module_path).exists()
