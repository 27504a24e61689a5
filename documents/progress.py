"""What a long import is doing, printed at least every few seconds (import_documents, load_demo).

Pure (no Django). Indexing reports progress once per stored batch of chunks,
and a batch can take longer than the promised interval on a busy machine (or
while the embedding model loads), so a background thread prints the latest
state on a timer instead of waiting for the next batch.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from types import TracebackType


def format_duration(seconds: float) -> str:
    """``"42 s"``, ``"3 min 05 s"``, ``"1 h 02 min"``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class ImportProgress:
    """A progress line for reading files, then for indexing them, written every ``interval`` seconds.

    Use as a context manager around the work. Call :meth:`reading` as files
    are stored, :meth:`indexing` once with each new version's chunk count
    before indexing starts, and pass :meth:`embedded` as the indexing progress
    callback ``(chunks done, chunks total)``. ``write`` gets whole lines and
    is called from the timer thread too.
    """

    def __init__(
        self, write: Callable[[str], None], *, interval: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._write = write
        self._interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._phase = "starting"
        self._files_done = self._files_total = 0
        self._sizes: list[int] = []
        self._chunks_done = 0
        self._chunks_total = 0
        self._phase_started = clock()

    def __enter__(self) -> ImportProgress:
        self._thread = threading.Thread(target=self._tick, name="import-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def reading(self, done: int, total: int) -> None:
        """``done`` of ``total`` files read, parsed and stored."""
        with self._lock:
            if self._phase != "reading":
                self._phase, self._phase_started = "reading", self._clock()
            self._files_done, self._files_total = done, total

    def indexing(self, sizes: Sequence[int]) -> None:
        """Indexing starts: one entry per new version, its chunk count, in the order they are embedded."""
        with self._lock:
            self._phase, self._phase_started = "indexing", self._clock()
            self._sizes = list(sizes)
            self._chunks_done, self._chunks_total = 0, sum(self._sizes)
        self._write(
            f"indexing {len(self._sizes)} file(s), {self._chunks_total:,} chunks "
            "(embedding each chunk; the first batch also loads the embedding model)"
        )

    def embedded(self, done: int, total: int) -> None:
        """The indexing callback: ``done`` of ``total`` chunks are in both indexes."""
        with self._lock:
            self._chunks_done = done
            self._chunks_total = max(total, self._chunks_total)

    def finished(self) -> str:
        """The closing line of the indexing phase (chunks, time, rate)."""
        with self._lock:
            elapsed = self._clock() - self._phase_started
            done = self._chunks_done
        rate = done / elapsed if elapsed > 0 else 0.0
        return f"indexed {done:,} chunks in {format_duration(elapsed)} ({rate:.1f} chunks/s)"

    def line(self) -> str:
        """The current state in one line."""
        with self._lock:
            elapsed = self._clock() - self._phase_started
            if self._phase == "starting":
                return f"starting ({format_duration(elapsed)})"
            if self._phase == "reading":
                return f"reading files: {self._files_done:,}/{self._files_total:,} ({format_duration(elapsed)})"
            return self._indexing_line(elapsed)

    def _indexing_line(self, elapsed: float) -> str:
        done, total = self._chunks_done, self._chunks_total
        files_done, end = 0, 0
        for size in self._sizes:
            end += size
            if end > done:
                break
            files_done += 1
        line = f"indexing: {files_done:,}/{len(self._sizes):,} files, {done:,}/{total:,} chunks embedded"
        if done == 0 or elapsed <= 0:
            return f"{line}, {format_duration(elapsed)} so far (first batch running)"
        rate = done / elapsed
        return f"{line}, {rate:.1f} chunks/s, about {format_duration((total - done) / rate)} left"

    def _tick(self) -> None:
        while not self._stop.wait(self._interval):
            self._write(self.line())
