from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import QuerySet

from documents.indexer_lock import sole_indexer
from documents.models import Document
from documents.services import document_reindex


class Command(BaseCommand):
    help = (
        "Re-index documents (all, or the given ids) here and now: the live version keeps answering meanwhile. "
        "With --queue the indexing workers do it instead."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="*", type=int)
        parser.add_argument("--all", action="store_true")
        parser.add_argument("--queue", action="store_true", help="hand the work to the indexing workers and return")

    def handle(self, *args: Any, **options: Any) -> None:
        ids = options["ids"]
        if bool(ids) == bool(options["all"]):
            raise CommandError("give document ids or --all (not both)")
        documents = Document.objects.all() if options["all"] else Document.objects.filter(pk__in=ids)
        missing = set(ids or []) - set(documents.values_list("pk", flat=True))
        if missing:
            raise CommandError(f"no document with id {', '.join(map(str, sorted(missing)))}")
        # Indexing here, it is the embedded Chroma directory's one indexing process (documents.indexer_lock).
        indexing = nullcontext() if options["queue"] else sole_indexer("a re-index (manage.py reindex)")
        with indexing:
            failed = self._reindex(documents, queue=bool(options["queue"]))
        if failed:
            raise CommandError(f"{failed} document(s) failed to re-index")

    def _reindex(self, documents: QuerySet[Document], *, queue: bool) -> int:
        """Re-index ``documents`` (here, or queued), report each; the number that failed."""
        failed = 0
        for document in documents.order_by("pk"):
            document_reindex(document=document, background=queue)
            document.refresh_from_db()
            self.stdout.write(f"{document.status:8} {document.filename} {document.status_message}")
            failed += document.status == Document.Status.FAILED
        return failed
