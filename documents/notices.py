"""Notices that other parts of the portal attach to an owner's documents.

The documents app shows them on the owner's list and detail pages without
knowing where they come from: the review side registers a source (its "needs a
document fix" answers) when its app is ready. A source receives the viewing user
and the documents shown and returns, per document id, what to show; text the
user may not read is already replaced.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from documents.models import Document


@dataclass(frozen=True)
class DocumentNotice:
    """One thing an owner is asked to look at about one document."""

    text: str
    created_at: dt.datetime
    note: str = ""
    # ``text`` stands in for content the owner may not read.
    withheld: bool = False


NoticeSource = Callable[[Any, Sequence[Document]], dict[int, list[DocumentNotice]]]

_sources: list[NoticeSource] = []


def register_notice_source(source: NoticeSource) -> None:
    """Add ``source`` (once, however often its app is made ready)."""
    if source not in _sources:
        _sources.append(source)


def notices_for(user: Any, documents: Sequence[Document]) -> dict[int, list[DocumentNotice]]:
    """Per document id, the notices of every registered source, newest first."""
    merged: dict[int, list[DocumentNotice]] = {}
    if not documents:
        return merged
    for source in _sources:
        for pk, notices in source(user, documents).items():
            merged.setdefault(pk, []).extend(notices)
    for notices in merged.values():
        notices.sort(key=lambda notice: notice.created_at, reverse=True)
    return merged
