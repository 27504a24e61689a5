from __future__ import annotations

import time

from django.core.management.base import BaseCommand
from django.db.models import F

from documents.models import DocumentVersion
from documents.vocabulary_store import vocabulary_record


class Command(BaseCommand):
    help = (
        "Record the corpus vocabulary (terms, readings, vectors) of every live version again: after an upgrade of "
        "the analyser or its dictionary, or for versions indexed before the vocabulary existed. Indexing records "
        "it for each new version by itself."
    )

    def handle(self, *args: object, **options: object) -> None:
        versions = list(DocumentVersion.objects.filter(document__live_version_id=F("pk")).select_related("document"))
        started = time.perf_counter()
        embedded = vocabulary_record(versions=versions)
        self.stdout.write(
            f"vocabulary: {len(versions)} live version(s), {embedded} term(s) embedded, "
            f"{time.perf_counter() - started:.1f} s"
        )
