"""Parsing an upload in a child process that cannot outrun its time or outgrow its memory.

``documents.parsing`` refuses what it can judge cheaply (sizes, counts) before
the expensive work, but the parsers it drives (markdown-it, python-docx, pypdf,
BeautifulSoup) have costs no upfront check can predict for every input: 200 KB
of nested block quotes cost markdown-it 27 s. So the parse runs in a child
process with limits the parser cannot pass whatever the file holds:

- a wall-clock limit, after which the child is killed;
- ``RLIMIT_CPU`` as well, so a child whose parent died still stops;
- ``RLIMIT_AS``: the memory the parse may add to the child; past it,
  allocations fail (``MemoryError``) instead of the kernel killing a web worker.

A child's CPU is also not the web process's GIL: questions keep being answered
while a file is parsed. Children are forked from a small server process that
has the parsers imported (``multiprocessing``'s forkserver), so each parse
starts in milliseconds and never inherits a web worker's threads or open
connections.

Pure module: no Django imports; the caller words ``ParseAbortedError`` for users.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import resource
import signal
from dataclasses import dataclass
from multiprocessing.connection import Connection

from documents.parsing import ParsedDocument, ParseError, parse_file

__all__ = ["ParseAbortedError", "ParseBudget", "parse_file_bounded"]

# Imported once in the fork server, so a child has them ready.
_PRELOAD = ["documents.parsing", "documents.inflation", "pypdf", "docx", "markdown_it", "bs4", "lxml.etree"]
_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(_PRELOAD)
# Questions come first: a parse runs at a lower priority than the process that asked for it.
_CHILD_NICENESS = 5


@dataclass(frozen=True)
class ParseBudget:
    """What one parse may cost: ``seconds`` of wall-clock time and ``memory_bytes`` on top of a fresh child."""

    seconds: float
    memory_bytes: int


class ParseAbortedError(Exception):
    """The parse was stopped before it finished; nothing is known about the file's content.

    ``reason`` is "time" (past the budget's seconds), "memory" (past its
    memory) or "crashed" (the child died some other way). ``budget`` is the
    budget it was given.
    """

    def __init__(self, reason: str, budget: ParseBudget) -> None:
        super().__init__(f"parse stopped: {reason} (budget {budget})")
        self.reason = reason
        self.budget = budget


def parse_file_bounded(
    filename: str,
    data: bytes,
    *,
    budget: ParseBudget,
    max_bytes: int | None = None,
    max_chars: int | None = None,
) -> ParsedDocument:
    """``documents.parsing.parse_file`` in a child process held to ``budget``.

    Returns what ``parse_file`` returns and raises the ``ParseError`` it
    raises; raises ``ParseAbortedError`` when the child is stopped or dies.
    The child is gone when this returns, whichever way.
    """
    if max_bytes is not None and len(data) > max_bytes:
        # Too large to be worth a child: parse_file refuses it before reading a byte.
        return parse_file(filename, data, max_bytes=max_bytes, max_chars=max_chars)
    receiver, sender = _CONTEXT.Pipe(duplex=False)
    child = _CONTEXT.Process(
        target=_child_main,
        args=(sender, filename, data, max_bytes, max_chars, budget),
        name=f"parse {filename[:40]}",
        daemon=True,
    )
    try:
        child.start()
    finally:
        sender.close()  # the child holds its own copy: EOF on the receiver means the child is gone
    try:
        outcome = receiver.recv() if receiver.poll(budget.seconds) else ("time",)
    except EOFError:
        outcome = ("died",)
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiver.close()
    return _result(outcome, child.exitcode, budget)


def _result(outcome: tuple, exitcode: int | None, budget: ParseBudget) -> ParsedDocument:
    kind = outcome[0]
    if kind == "parsed":
        return outcome[1]
    if kind == "refused":
        raise ParseError(outcome[1], outcome[2])
    if kind == "time" or exitcode == -signal.SIGXCPU:
        raise ParseAbortedError("time", budget)
    if kind == "memory" or exitcode == -signal.SIGKILL:  # SIGKILL that we did not send: the kernel's OOM killer
        raise ParseAbortedError("memory", budget)
    raise ParseAbortedError("crashed", budget)


def _child_main(
    sender: Connection,
    filename: str,
    data: bytes,
    max_bytes: int | None,
    max_chars: int | None,
    budget: ParseBudget,
) -> None:
    """The child: hold itself to ``budget``, parse, and send back ("parsed", doc), ("refused", code, message) or ("memory",)."""
    _limit_self(budget)
    try:
        outcome: tuple = ("parsed", parse_file(filename, data, max_bytes=max_bytes, max_chars=max_chars))
    except ParseError as exc:
        outcome = ("refused", exc.code, exc.user_message)
    except MemoryError:
        outcome = ("memory",)
    del data
    try:
        sender.send(outcome)
    except MemoryError:  # the result itself did not fit: report that much, at least
        sender.send(("memory",))
    sender.close()


def _limit_self(budget: ParseBudget) -> None:
    os.nice(_CHILD_NICENESS)
    # CPU: past the soft limit SIGXCPU (which kills), one second later the hard limit's SIGKILL.
    _lower_limit(resource.RLIMIT_CPU, math.ceil(budget.seconds) + 1, slack=1)
    address_space = _address_space_bytes()
    if address_space is not None:
        _lower_limit(resource.RLIMIT_AS, address_space + budget.memory_bytes)


def _lower_limit(which: int, soft: int, *, slack: int = 0) -> None:
    """Set a resource limit, never above one this process already has (raising a hard limit is not allowed)."""
    current_soft, current_hard = resource.getrlimit(which)
    hard = soft + slack
    if current_hard != resource.RLIM_INFINITY:
        hard = min(hard, current_hard)
        soft = min(soft, hard)
    resource.setrlimit(which, (soft, hard))


def _address_space_bytes() -> int | None:
    """This process's virtual size now (Linux ``/proc``); ``None`` where it cannot be read, and then no memory limit."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None
