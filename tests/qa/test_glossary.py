"""The demo glossary is demo data: a fresh install has no synonym rows, `load_demo` loads them, and
the migration that used to ship them to every install removes them, sparing what an admin edited or added."""

from __future__ import annotations

import json
import re
from importlib import import_module
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from documents.management.commands import load_demo
from documents.management.commands.load_demo import DEMO_GLOSSARY
from qa.expansion import dictionary_rules, expand
from qa.glossary import glossary_read
from qa.models import SynonymEntry

DEMO_ENTRIES = glossary_read(DEMO_GLOSSARY)


@pytest.fixture
def no_demo_documents(tmp_path, monkeypatch):
    """load_demo without the demo documents (indexing them takes minutes); its glossary stays the demo's."""
    monkeypatch.setattr(load_demo, "DEMO_DIR", tmp_path)


def test_a_fresh_install_has_an_empty_synonym_dictionary(db):
    assert SynonymEntry.objects.count() == 0
    assert expand("有給は何日もらえる？", rules=dictionary_rules()).added_keywords == []


def test_load_demo_loads_the_demo_glossary_and_says_how_many(no_demo_documents, db):
    assert SynonymEntry.objects.count() == 0
    out = StringIO()
    call_command("load_demo", stdout=out)

    assert SynonymEntry.objects.count() == len(DEMO_ENTRIES) > 100
    assert f"{len(DEMO_ENTRIES)} glossary entries loaded ({len(DEMO_ENTRIES)} new, 0 changed" in out.getvalue()
    assert SynonymEntry.objects.get(term="有休").expansion_list() == ["有給休暇", "年次有給休暇"]
    assert "有給休暇" in expand("有給は何日もらえる？", rules=dictionary_rules()).added_keywords


def test_load_demo_again_changes_nothing_and_leaves_the_companys_own_pairs(no_demo_documents, db):
    call_command("load_demo", stdout=StringIO())
    SynonymEntry.objects.create(term="ボーナス時期", expansions="賞与, 支給日")
    before = sorted(SynonymEntry.objects.values_list("term", "expansions"))

    out = StringIO()
    call_command("load_demo", stdout=out)
    assert sorted(SynonymEntry.objects.values_list("term", "expansions")) == before
    assert f"(0 new, 0 changed, {len(DEMO_ENTRIES)} unchanged)" in out.getvalue()


def test_load_demo_puts_back_a_demo_pair_that_was_changed(no_demo_documents, db):
    call_command("load_demo", stdout=StringIO())
    SynonymEntry.objects.filter(term="有休").update(expansions="休暇")
    out = StringIO()
    call_command("load_demo", stdout=out)
    assert SynonymEntry.objects.get(term="有休").expansions == DEMO_ENTRIES["有休"]
    assert "(0 new, 1 changed," in out.getvalue()


def test_load_demo_without_the_glossary_leaves_the_dictionary_empty(no_demo_documents, db):
    out = StringIO()
    call_command("load_demo", no_glossary=True, stdout=out)
    assert SynonymEntry.objects.count() == 0
    assert "glossary" not in out.getvalue()


def _write(tmp_path, text: str):
    path = tmp_path / "glossary.json"
    path.write_text(text, "utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not UTF-8 JSON"),
        ('{"entries": ["有休"]}', '{"entries"'),
        ('{"entries": {"有休": "休暇", "有休": "有給休暇"}}', "'有休' appears twice"),
        ('{"entries": {"有休": ""}}', "non-empty"),
        (json.dumps({"entries": {"有休": "休暇", "長い": "語" * 501}}), "'長い'"),
    ],
)
def test_a_bad_glossary_file_is_refused_with_its_reason_and_nothing_is_loaded(db, tmp_path, text, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("load_glossary", str(_write(tmp_path, text)), stdout=StringIO())
    assert SynonymEntry.objects.count() == 0


def test_a_missing_glossary_file_is_a_command_error(db, tmp_path):
    with pytest.raises(CommandError, match="not found"):
        call_command("load_glossary", str(tmp_path / "missing.json"))


def test_evaluate_expands_with_the_same_rules_from_the_demo_file_as_from_a_demo_database(demo_glossary):
    from qa.glossary import glossary_read
    from qa.management.commands.evaluate import _rules

    from_database = dictionary_rules()
    SynonymEntry.objects.all().delete()
    assert _rules(glossary_read(DEMO_GLOSSARY)) == from_database
    assert _rules({}) == []


def test_evaluate_portal_cannot_skip_the_glossary_of_a_portal_it_does_not_build(db):
    with pytest.raises(CommandError, match="--no-glossary"):
        call_command("evaluate_portal", in_place=True, no_glossary=True, quiet=True)


# --- the migration that takes the shipped rows back --------------------------------


def _migrate(*targets: tuple[str, str]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(list(targets) or executor.loader.graph.leaf_nodes())
    return executor


@pytest.mark.django_db(transaction=True)
def test_upgrading_removes_the_rows_the_old_migrations_shipped_but_keeps_edited_and_own_ones():
    cleanup = import_module("qa.migrations.0010_glossary_remove_shipped_synonyms")
    before = ("qa", "0009_anonymity_words")
    executor = _migrate(before)
    try:
        Entry = executor.loader.project_state(before).apps.get_model("qa", "SynonymEntry")
        # What an install that ran the old migrations holds, then an admin's edit and own pair.
        Entry.objects.bulk_create(Entry(term=term, expansions=words) for term, words in cleanup.SHIPPED)
        Entry.objects.filter(term="有給").update(expansions="有給休暇, 年次有給休暇, 年休, 計画年休")
        Entry.objects.create(term="ボーナス時期", expansions="賞与, 支給日")
        assert Entry.objects.count() == len(cleanup.SHIPPED) + 1 == 199
    finally:
        _migrate()  # forward to the latest state, through the cleanup

    assert dict(SynonymEntry.objects.values_list("term", "expansions")) == {
        "有給": "有給休暇, 年次有給休暇, 年休, 計画年休",
        "ボーナス時期": "賞与, 支給日",
    }
