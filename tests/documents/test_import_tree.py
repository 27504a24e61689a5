"""Importing a folder tree (issue 21): names by path, titles from front matter, re-import by checksum, progress."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.core.management import call_command

from documents import embeddings, indexing
from documents.models import Document
from documents.progress import ImportProgress
from documents.services import document_ingest, sentence_vectors_pending
from qa.retrieval import search

pytestmark = pytest.mark.django_db

LEAVE = """---
title: 休暇の取り方
upstream_path: /handbook/people-group/leave/
---

{{% alert title="注" %}}
休暇の申請は3日前までに上長へ出す。
{{% /alert %}}
"""
BENEFITS = """+++
title = "福利厚生の概要"
+++

# 概要

健康診断は毎年5月に全社員が受診する。
"""


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "handbook"
    (root / "people-group" / "leave").mkdir(parents=True)
    (root / "total-rewards" / "benefits").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "people-group" / "leave" / "_index.md").write_text(LEAVE, encoding="utf-8")
    (root / "total-rewards" / "benefits" / "_index.md").write_text(BENEFITS, encoding="utf-8")
    (root / "guide.md").write_text("# 利用ガイド\nポータルの使い方。\n", encoding="utf-8")
    (root / ".git" / "notes.md").write_text("# 内部メモ\n取り込まない。\n", encoding="utf-8")
    return root


def test_a_tree_is_imported_by_path_with_titles_and_reimported_by_checksum(owner, tree):
    output = run("import_documents", str(tree), "--owner", "owner")

    assert "3 created, 0 updated, 0 unchanged, 0 failed" in output
    assert dict(Document.objects.values_list("filename", "title")) == {
        "guide.md": "利用ガイド",  # a file at the top keeps its bare name
        "people-group/leave/_index.md": "休暇の取り方",  # YAML front matter
        "total-rewards/benefits/_index.md": "福利厚生の概要",  # TOML front matter, not the first heading
    }
    assert "notes.md" not in output  # hidden folders are skipped
    leave = Document.objects.get(filename="people-group/leave/_index.md")
    assert leave.status == Document.Status.READY
    assert "upstream_path" not in leave.live_version.text and "{{%" not in leave.live_version.text
    hits = search(user=owner, query="休暇の申請はいつまでに出しますか").hits
    assert hits and hits[0].filename == "people-group/leave/_index.md"

    (tree / "total-rewards" / "benefits" / "_index.md").write_text(BENEFITS.replace("5月", "6月"), encoding="utf-8")
    output = run("import_documents", str(tree), "--owner", "owner")

    assert "0 created, 1 updated, 2 unchanged, 0 failed" in output
    assert "updated   total-rewards/benefits/_index.md" in output
    numbers = dict(Document.objects.values_list("filename", "live_version__number"))
    assert numbers == {"guide.md": 1, "people-group/leave/_index.md": 1, "total-rewards/benefits/_index.md": 2}


def test_import_prints_progress_while_it_indexes(owner, tree, settings, monkeypatch, encoder_memory_cleared):
    """Every chunk its own batch, each a little slower than the print interval: progress lines must appear."""
    settings.RAG_PROGRESS_INTERVAL_S = 0.05
    monkeypatch.setattr(indexing, "STORE_BATCH", 1)
    real_embed = embeddings.embed_passages

    def slower_embed(texts: list[str], **kwargs):
        import time

        time.sleep(0.15)
        return real_embed(texts, **kwargs)

    monkeypatch.setattr(embeddings, "embed_passages", slower_embed)
    output = run("import_documents", str(tree), "--owner", "owner")

    chunks = sum(d.chunks.count() for d in Document.objects.all())
    assert f"indexing 3 file(s), {chunks} chunks" in output
    lines = re.findall(
        r"indexing: (\d+)/3 files, (\d+)/(\d+) chunks embedded, ([\d.]+) chunks/s, about .+ left", output
    )
    assert lines, output
    assert all(int(total) == chunks for _files, _done, total, _rate in lines)
    assert f"indexed {chunks} chunks in" in output


def test_progress_line_gives_files_chunks_rate_and_time_left():
    now = [0.0]
    lines: list[str] = []
    progress = ImportProgress(lines.append, interval=3600, clock=lambda: now[0])
    progress.reading(2, 4)
    now[0] = 5.0
    assert progress.line() == "reading files: 2/4 (5 s)"
    progress.indexing([2, 3, 5])
    assert lines == [
        "indexing 3 file(s), 10 chunks (embedding each chunk; the first batch also loads the embedding model)"
    ]
    now[0] = 7.0
    assert progress.line() == "indexing: 0/3 files, 0/10 chunks embedded, 2 s so far (first batch running)"
    progress.embedded(5, 10)
    now[0] = 10.0
    assert progress.line() == "indexing: 2/3 files, 5/10 chunks embedded, 1.0 chunks/s, about 5 s left"
    progress.embedded(10, 10)
    assert progress.finished() == "indexed 10 chunks in 5 s (2.0 chunks/s)"


def test_an_owner_cannot_tell_a_restricted_name_exists_but_sees_a_visible_one(owner, other_owner):
    hr = Group.objects.create(name="hr")
    Document.objects.create(title="評価", filename="evaluation.md", owner=other_owner).groups.set([hr])
    Document.objects.create(title="ガイド", filename="guide.md", owner=other_owner)

    with pytest.raises(ValidationError) as hidden:
        document_ingest(owner=owner, filename="EVALUATION.md", data="# 評価\n本文。\n".encode())
    assert "既にあります" not in hidden.value.messages[0]
    assert "使えません" in hidden.value.messages[0]

    with pytest.raises(ValidationError) as visible:
        document_ingest(owner=owner, filename="Guide.md", data="# ガイド\n本文。\n".encode())
    assert "既にあります" in visible.value.messages[0]

    owner.groups.add(hr)
    with pytest.raises(ValidationError) as now_visible:
        document_ingest(owner=owner, filename="EVALUATION.md", data="# 評価\n本文。\n".encode())
    assert "既にあります" in now_visible.value.messages[0]
    assert Document.objects.count() == 2


@pytest.mark.parametrize(("existing", "look_alike"), [("guide.md", "ＧＵＩＤＥ.md"), ("ガイド.md", "ｶﾞｲﾄﾞ.md")])
def test_a_look_alike_name_is_the_same_document(owner, existing, look_alike):
    Document.objects.create(title="ガイド", filename=existing, owner=owner)
    with pytest.raises(ValidationError) as caught:
        document_ingest(owner=owner, filename=look_alike, data="# ガイド\n本文。\n".encode())
    assert caught.value.code == "duplicate_filename"
    assert list(Document.objects.values_list("filename", flat=True)) == [existing]


def test_the_same_file_name_in_another_folder_is_another_document_and_a_bad_folder_is_refused(owner):
    Document.objects.create(title="休暇", filename="leave/_index.md", owner=owner)
    with pytest.raises(ValidationError) as caught:
        document_ingest(owner=owner, filename="_index.md", folder="../leave", data="# 福利\n本文。\n".encode())
    assert caught.value.code == "bad_folder"
    with pytest.raises(ValidationError) as same:
        document_ingest(owner=owner, filename="_INDEX.md", folder="Leave", data="# 休暇\n本文。\n".encode())
    assert same.value.code == "duplicate_filename"
    document = document_ingest(
        owner=owner, filename="_index.md", folder="benefits", data="# 福利\n健診は5月。\n".encode()
    )
    assert document.filename == "benefits/_index.md" and document.title == "福利"
    assert document.status == Document.Status.READY
    assert document.live_version.file.name.endswith("/_index.md")


def test_an_import_says_how_many_sentences_wait_or_embeds_them_with_sentences(owner, tree, settings):
    """Without a worker the first questions after an import would embed their chunks' sentences (seconds each)."""
    settings.RAG_SENTENCE_VECTORS_AFTER_INDEXING = False  # no worker embeds them behind the import
    # (calibration would embed those of the chunks its pseudo-questions retrieve: here, all of them)
    output = run("import_documents", str(tree), "--owner", "owner", "--no-calibrate")

    waiting = sentence_vectors_pending().count()
    assert waiting > 0
    assert f"{waiting} chunk(s) have no sentence vectors yet: run manage.py embed_sentences" in output

    (tree / "guide.md").write_text("# 利用ガイド\nポータルの使い方。質問は右上から。\n", encoding="utf-8")
    output = run("import_documents", str(tree), "--owner", "owner", "--sentences")

    assert "1 updated" in output
    assert sentence_vectors_pending().count() == 0
    assert "have no sentence vectors yet" not in output
    assert "sentence vectors:" in output  # embed_sentences' own report
