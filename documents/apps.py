from __future__ import annotations

from django.apps import AppConfig


class DocumentsConfig(AppConfig):
    name = "documents"
    verbose_name = "Documents"

    def ready(self) -> None:
        # Project-wide ORM behaviour; the app every other one builds on registers it.
        from documents.signals import live_documents_changed
        from documents.tasks import sentence_vectors_schedule
        from ragportal import lookups

        lookups.register()
        # The live documents changed: embed the new chunks' sentences in the background (documents.tasks).
        live_documents_changed.connect(sentence_vectors_schedule, dispatch_uid="documents.sentence_vectors_schedule")
