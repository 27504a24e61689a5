"""Signals other apps listen to; documents/ imports no other app, so it announces rather than calls.

``live_documents_changed``: what readers search changed (a version went live or
was re-embedded, a document was deleted). Sent after the change is stored,
with no arguments besides the sender; qa recalibrates on it (qa.tasks) and documents embeds the new
chunks' sentences (documents.tasks). A
receiver must not raise: indexing has already succeeded when it runs.
"""

from __future__ import annotations

from django.dispatch import Signal

live_documents_changed = Signal()
