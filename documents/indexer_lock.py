"""One indexing process at a time on an embedded Chroma directory.

Without a Chroma server (``CHROMA_HOST`` unset) every process opens the directory with
its own Chroma client. The web process and one indexing process share it well; two
processes indexing into it at once were seen to hang, both inside Chroma's upsert, with
nothing in either log. So an indexing worker, and a command that indexes in its own
process (``import_documents`` and ``reindex`` without ``--queue``), hold an exclusive
lock on a file in the directory while they run, and a second one stops at once with a
message that names the first. The lock is the operating system's (``flock``): it goes
with the process that holds it, however that process ends. With a Chroma server there
is no lock; the server takes several workers.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

LOCK_FILE = "indexer.lock"


class IndexerBusyError(CommandError):
    """Another process indexes into the embedded Chroma directory; ``holder`` says which.

    A command error: the management command that meets it stops with this message and exit status 1.
    """

    def __init__(self, holder: str, directory: Path) -> None:
        self.holder, self.directory = holder, directory
        super().__init__(
            f"{holder} already indexes into the embedded Chroma directory {directory}, which takes one "
            "indexing process at a time. Stop it first, hand the files to a running worker "
            "(import_documents --queue, reindex --queue), or run a Chroma server (CHROMA_HOST) for several workers."
        )


@contextmanager
def sole_indexer(role: str) -> Iterator[None]:
    """Hold the embedded Chroma directory's indexing lock as ``role`` (what a second process is told), or raise.

    Raises :class:`IndexerBusyError` at once when another process holds it. Does nothing with a Chroma server.
    """
    if settings.CHROMA_HOST:
        yield
        return
    directory = Path(settings.CHROMA_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", errors="replace").strip()
            raise IndexerBusyError(holder or "another process", directory) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{role} (pid {os.getpid()})".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock
