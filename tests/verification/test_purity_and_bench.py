"""The verification modules are pure (no Django, no qa), and the benchmark runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from qa.evaluation.verification_bench import seed_verdicts, time_verify

ROOT = Path(__file__).resolve().parents[2]
PURE_MODULES = [
    "ragportal.text",
    "verification.flags",
    "verification.answer_fit",
    "verification.textnorm",
    "verification.citations",
    "verification.quotes",
    "verification.grounding",
    "verification.support",
    "verification.verdict",
    "verification.term_weights",
    "verification.meaning",
]

BLOCKER = """
import sys

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("django", "rest_framework", "qa", "documents"):
            raise ImportError("blocked import of " + name)
        return None

sys.meta_path.insert(0, Blocker())
import importlib
for module in {modules!r}:
    importlib.import_module(module)
from verification.verdict import verify
verify(blocks=[], chunks=[], top_similarity=None, thresholds=(0.86, 0.8))
print(sorted(m for m in sys.modules if m.split(".")[0] in ("django", "qa", "documents")))
"""


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    return env


def test_modules_import_without_django_or_qa() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCKER.format(modules=PURE_MODULES)],
        cwd=ROOT,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_bench_command_reports_support_seeds_and_timing() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "qa.evaluation.verification_bench", "--json", "--repeats", "20"],
        cwd=ROOT,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["support"]["overall"]["n"] >= 80
    assert report["timing"]["answer_chars"] >= 1000
    assert report["timing"]["chunks"] == 5


def test_seed_verdicts_match_the_article() -> None:
    rows = {row["case"]: row for row in seed_verdicts()}
    assert [rows[f"article/{name}"]["confidence"] for name in ("strong", "weak", "none", "fabricated")] == [
        "high",
        "high",
        "medium",
        "low",
    ]
    assert rows["verdict/structured citation"]["flags"] == []
    assert rows["verdict/abstention"]["flags"] == ["not_found"]


def test_verify_is_fast() -> None:
    """Target < 5 ms (measured by ``python -m qa.evaluation.verification_bench``); a loose bound here for a shared CI machine."""
    timing = time_verify(repeats=30)
    assert timing["median_ms"] < 25
