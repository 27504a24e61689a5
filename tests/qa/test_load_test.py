"""qa/management/commands/load_test.py: the document it indexes under load, and how a phase is summarised."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from documents.chunking import chunk_document
from documents.parsing import parse_file
from qa.evaluation.load_test import Phase, long_document


def test_the_document_indexed_under_load_has_the_asked_number_of_chunks():
    parsed = parse_file("rules.md", long_document(120).encode("utf-8"))

    assert len(chunk_document(parsed, max_chars=400, overlap=60)) == 120


def test_a_phase_reports_throughput_percentiles_and_errors_by_kind():
    phase = Phase("questions only", users=4, seconds=2.0, latencies=[i / 100 for i in range(1, 101)])
    phase.errors = {"HTTP 500": 2, "timeout": 1}

    row = phase.row()

    assert row["requests"] == 103 and row["errors"] == 3
    assert row["throughput_rps"] == 50.0  # successful answers per second
    assert (row["p50_ms"], row["p95_ms"], row["p99_ms"]) == (510, 950, 990)  # nearest rank, as benchmark_api
    assert row["error_kinds"] == {"HTTP 500": 2, "timeout": 1}


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"postgres": "postgres://ragportal@127.0.0.1:5433/ragportal"}, "--postgres and --chroma go together"),
        ({"postgres": "postgres://ragportal@127.0.0.1:5433/ragportal", "chroma": "8001"}, "--chroma takes host:port"),
    ],
)
def test_the_postgres_backend_says_which_servers_it_needs_before_starting_anything(given, message):
    with pytest.raises(CommandError, match=message):
        call_command("load_test", "--backend", "postgres", **given)
