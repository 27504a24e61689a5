"""The demo's example answers from the Claude path: load_demo stores them once, and a reviewer can try every flag.

Issue 25 item 7: with the offline provider the fabricated-citation filters were
always empty. The shipped examples were made by ``make_example_answers`` (the
real Anthropic provider against the fake server); here they are loaded by
``load_demo`` over the demo documents they cite, and looked at in the queue.
"""

from __future__ import annotations

import json
import re
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from documents.management.commands import load_demo
from qa.models import Answer, Conversation
from verification.flags import FLAG_NAMES

pytestmark = pytest.mark.django_db

EXAMPLES = json.loads(load_demo.DEMO_EXAMPLES.read_text("utf-8"))


@pytest.fixture
def demo_with_examples(tmp_path: Path, monkeypatch, settings) -> Path:
    """load_demo reads a demo folder holding the examples and only the documents they retrieved (quicker to index)."""
    settings.RAG_PROGRESS_INTERVAL_S = 60
    names = {item["filename"] for example in EXAMPLES for item in example["retrieved"]}
    for name in names:
        shutil.copy(load_demo.DEMO_DIR / name, tmp_path / name)
    shutil.copy(load_demo.DEMO_EXAMPLES, tmp_path / load_demo.DEMO_EXAMPLES.name)
    monkeypatch.setattr(load_demo, "DEMO_DIR", tmp_path)
    monkeypatch.setattr(load_demo, "DEMO_EXAMPLES", tmp_path / load_demo.DEMO_EXAMPLES.name)
    return tmp_path


def run_load_demo() -> str:
    out = StringIO()
    call_command("load_demo", no_glossary=True, stdout=out)
    return out.getvalue()


def test_a_fresh_install_has_no_examples():
    assert not Answer.objects.filter(is_example=True).exists()


def test_the_shipped_examples_cover_every_flag():
    """What the queue can show after load_demo: every flag of the registry on some example."""
    shown = {flag for example in EXAMPLES for flag in example["verification"]["flags"]}
    assert shown == set(FLAG_NAMES)
    # Every example the portal sent to a provider went to Claude (the fake server), not the offline provider.
    asked = [example for example in EXAMPLES if example["usage"]["decision"]["outcome"] == "answer"]
    assert len(asked) >= len(EXAMPLES) - 1
    assert {(example["provider"], example["model_name"]) for example in asked} == {
        ("anthropic", "claude (fake server example)")
    }


def test_load_demo_stores_the_examples_once_and_a_reviewer_can_try_every_flag(demo_with_examples, reviewer_client):
    """One load_demo over the demo documents (indexing them is the slow part), then what the reviewer sees."""
    first = run_load_demo()
    assert f"{len(EXAMPLES)} example answers stored" in first
    examples = Answer.objects.filter(is_example=True)
    assert examples.count() == len(EXAMPLES)
    assert {a.question for a in examples} == {e["question"] for e in EXAMPLES}
    # Asked by the example user, who cannot sign in; each in a conversation titled 例: ….
    assert {a.user.username for a in examples} == {"example"}
    assert not examples[0].user.is_active and not examples[0].user.has_usable_password()
    assert all(title.startswith("例: ") for title in Conversation.objects.values_list("title", flat=True))

    again = run_load_demo()
    assert "0 example answers stored" in again
    assert Answer.objects.filter(is_example=True).count() == len(EXAMPLES)

    _the_fabricated_citation_filter_shows_the_example_with_its_help(reviewer_client)
    for flag in FLAG_NAMES:
        html = reviewer_client.get(f"/admin/qa/answer/?flag={flag}").content.decode()
        assert "rv-example" in html, flag


def _the_fabricated_citation_filter_shows_the_example_with_its_help(reviewer_client) -> None:
    fabricated = Answer.objects.get(is_example=True, flag_fabricated_source=True)
    html = reviewer_client.get("/admin/qa/answer/?flag=fabricated_source").content.decode()
    rows = re.findall(r"<tr[^>]*>.*?</tr>", html[html.index('id="result_list"') :], re.S)[1:]
    assert len(rows) == 1
    assert "rv-example" in rows[0] and fabricated.question in rows[0]
    # The filter says which providers can produce the flag, so the reviewer knows why the example is from Claude.
    help_list = re.search(r'<dl class="rv-filter-help">(.*?)</dl>', html, re.S).group(1)
    assert "存在しない出典" in help_list and "anthropic" in help_list

    page = reviewer_client.get(f"/admin/qa/answer/{fabricated.pk}/change/").content.decode()
    assert 'class="rv-example-note"' in page and "デモ用の例です" in page
    assert "leave_policy_2019.md" in page  # the made-up file name, shown with the answer
    assert "原文と一致" in page  # its quote is real: only the file name was invented
