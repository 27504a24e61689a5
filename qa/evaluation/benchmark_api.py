"""Answer latency through the real API (POST /api/v1/ask) with the offline provider on the demo corpus."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import QuerySet
from django.test import Client
from django.test.utils import override_settings

from qa.evaluation import stream_benchmark
from qa.models import Answer, Conversation

GOLDEN_QUERIES = Path(settings.BASE_DIR) / "documents" / "demo_corpus" / "golden" / "queries.jsonl"
FALLBACK_QUESTIONS = ["有給休暇は何日もらえますか？", "経費の申請期限は？", "在宅勤務は週に何日までできますか？"]


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile of ``values`` (0 for an empty list)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Command(BaseCommand):
    help = (
        "Measure answer latency p50/p95 through POST /api/v1/ask (django.test.Client, a signed-in demo user) "
        "with the offline extractive provider on the demo corpus. It loads the demo corpus and users into the "
        "configured database (load_demo, idempotent), asks once to warm up (the embedding model loads then; "
        "that request is excluded), then times --n requests cycling through the demo golden questions, and "
        "deletes the answers it created unless --keep. Throttling is off for the run. "
        "Run it against a throw-away data directory, e.g.: "
        "RAGPORTAL_DATA_DIR=$(mktemp -d) SECRET_KEY=x python manage.py migrate && "
        "RAGPORTAL_DATA_DIR=<same dir> SECRET_KEY=x python manage.py benchmark_api --n 50"
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--n", type=int, default=50, help="timed requests (default 50)")
        parser.add_argument("--user", default="employee", help="demo user to ask as (default: employee)")
        parser.add_argument("--skip-load", action="store_true", help="do not run load_demo first")
        parser.add_argument("--keep", action="store_true", help="keep the answers the benchmark created")
        parser.add_argument("--json", dest="json_out", help="also write the numbers to this file")
        parser.add_argument(
            "--stream",
            type=int,
            default=0,
            metavar="N",
            help=(
                "also time N streamed answers (Accept: text/event-stream) per provider: extractive, and Claude and "
                "Gemini through their SDKs against loopback fakes that stream for 2.4 s; prints the time to the "
                "first text and to the verified answer"
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        n = int(options["n"])
        if n < 1:
            raise CommandError("--n must be at least 1")
        if not options["skip_load"]:
            call_command("load_demo", stdout=self.stdout, stderr=self.stderr)
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(f"no user named {options['user']!r} (run without --skip-load to create the demo users)")
        questions = _questions()

        rest_framework = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"ask": None}}
        with override_settings(
            RAG_PROVIDER="extractive",
            RAG_LLM_EXPANSION=False,
            REST_FRAMEWORK=rest_framework,
            ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "testserver"],
        ):
            client = Client()
            client.force_login(user)
            first_answer_id = Answer.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            started = time.perf_counter()
            _ask(client, questions[0])
            warmup_ms = (time.perf_counter() - started) * 1000
            round_trips: list[float] = []
            for i in range(n):
                started = time.perf_counter()
                _ask(client, questions[i % len(questions)])
                round_trips.append((time.perf_counter() - started) * 1000)
            plain = Answer.objects.filter(pk__gt=first_answer_id, user=user)
            last_plain_id = plain.order_by("-pk").values_list("pk", flat=True).first() or first_answer_id
            # Streamed answers are timed on a question the plain run answered (not "not found", not asked back).
            answered = plain.filter(response_type=Answer.ResponseType.ANSWER).values_list("question", flat=True).first()
            stream_n = int(options["stream"])
            streamed = _streamed(client, answered or FALLBACK_QUESTIONS[0], stream_n) if stream_n else {}

        created = Answer.objects.filter(pk__gt=first_answer_id, user=user)
        timed = created.filter(pk__lte=last_plain_id).order_by("pk")
        report = _report(timed, questions=questions, warmup_ms=warmup_ms, round_trips=round_trips)
        if streamed:
            report["streamed"] = streamed
        self._write_report(report)
        if options["json_out"]:
            Path(str(options["json_out"])).write_text(json.dumps(report, ensure_ascii=False, indent=2), "utf-8")
        if not options["keep"]:
            conversation_ids = list(created.values_list("conversation_id", flat=True))
            created.delete()
            Conversation.objects.filter(pk__in=conversation_ids, answers__isnull=True).delete()

    def _write_report(self, report: dict[str, Any]) -> None:
        """The report as lines on stdout: the plain run, then one line per streaming provider."""
        self.stdout.write(
            f"POST /api/v1/ask x{report['n']} ({report['questions']} demo questions, extractive, "
            f"warm-up {report['warmup_ms']} ms excluded)\n"
            f"  round trip   p50 {report['api_ms']['p50']} ms   p95 {report['api_ms']['p95']} ms\n"
            f"  answer_question (stored latency) p50 {report['pipeline_ms']['p50']} ms   p95 {report['pipeline_ms']['p95']} ms\n"
            f"  response types: {report['response_types']}"
        )
        for provider, numbers in report.get("streamed", {}).items():
            self.stdout.write(
                f"  streamed {provider:<15} first text p50 {numbers['first_text_ms']['p50']} ms "
                f"p95 {numbers['first_text_ms']['p95']} ms   verified answer p50 {numbers['answer_ms']['p50']} ms "
                f"p95 {numbers['answer_ms']['p95']} ms   ({numbers['n']} answers)"
            )


def _report(
    timed: QuerySet[Answer], *, questions: list[str], warmup_ms: float, round_trips: list[float]
) -> dict[str, Any]:
    """The numbers of the plain run: ``timed`` are its answers, the warm-up first (left out of the percentiles)."""
    pipeline = [a for a in timed.values_list("latency_ms", flat=True)][1:]  # without warm-up
    kinds: dict[str, int] = {}
    for kind in timed.values_list("response_type", flat=True)[1:]:
        kinds[kind] = kinds.get(kind, 0) + 1
    return {
        "n": len(round_trips),
        "questions": len(questions),
        "provider": "extractive",
        "warmup_ms": round(warmup_ms, 1),
        "api_ms": {"p50": round(percentile(round_trips, 0.5), 1), "p95": round(percentile(round_trips, 0.95), 1)},
        "pipeline_ms": {
            "p50": round(percentile([float(v or 0) for v in pipeline], 0.5), 1),
            "p95": round(percentile([float(v or 0) for v in pipeline], 0.95), 1),
        },
        "response_types": kinds,
    }


def _streamed(client: Client, question: str, n: int) -> dict[str, dict]:
    """Per provider, p50/p95 of the time to the first text and to the verified answer of ``n`` streamed answers."""
    numbers = {}
    for provider in stream_benchmark.PROVIDERS:
        with stream_benchmark.provider_settings(provider):
            stream_benchmark.ask_streaming(client, question)  # warm-up: the SDK is imported on first use
            timings = [stream_benchmark.ask_streaming(client, question) for _ in range(n)]
        first = [t.first_text_ms or 0.0 for t in timings]
        done = [t.answer_ms or 0.0 for t in timings]
        numbers[provider] = {
            "n": n,
            "first_text_ms": {"p50": round(percentile(first, 0.5), 1), "p95": round(percentile(first, 0.95), 1)},
            "answer_ms": {"p50": round(percentile(done, 0.5), 1), "p95": round(percentile(done, 0.95), 1)},
            "events": [(name, at) for name, at, _data in timings[-1].events],
        }
    return numbers


def _questions() -> list[str]:
    """The demo golden questions (the fallback list when the file is missing)."""
    if not GOLDEN_QUERIES.is_file():
        return FALLBACK_QUESTIONS
    with GOLDEN_QUERIES.open(encoding="utf-8") as fh:
        questions = [json.loads(line)["question"] for line in fh if line.strip()]
    return questions or FALLBACK_QUESTIONS


def _ask(client: Client, question: str) -> None:
    response = client.post("/api/v1/ask", {"text": question}, content_type="application/json")
    if response.status_code != 200:
        raise CommandError(f"POST /api/v1/ask returned {response.status_code}: {response.content[:300]!r}")
