"""The import_documents and reindex management commands, against the real indexes."""

from __future__ import annotations

import errno
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command

from documents.models import Document, DocumentVersion
from documents.vectorstore import DenseIndex
from qa.retrieval import search
from tests.documents.conftest import GA_NFC, GA_NFD, TRAVEL_MD, TRAVEL_MD_V2, WIFI_TXT

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def policies(tmp_path: Path) -> Path:
    (tmp_path / "travel.md").write_text(TRAVEL_MD, encoding="utf-8")
    (tmp_path / "wifi.txt").write_bytes(WIFI_TXT.encode("cp932"))
    (tmp_path / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(32))
    (tmp_path / "budget.xlsx").write_bytes(b"PK\x03\x04" + bytes(32))
    (tmp_path / ".hidden.md").write_text("# 下書き\n公開しない。\n", encoding="utf-8")
    return tmp_path


def test_import_is_idempotent_and_picks_up_changes(owner, policies):
    output = run("import_documents", str(policies), "--owner", "owner")

    assert "2 created, 0 updated, 0 unchanged, 0 failed" in output
    assert set(Document.objects.values_list("filename", "status", "owner__username")) == {
        ("travel.md", "ready", "owner"),
        ("wifi.txt", "ready", "owner"),
    }
    assert "photo.png" not in output and "budget.xlsx" not in output and ".hidden.md" not in output

    output = run("import_documents", str(policies), "--owner", "owner")
    assert "0 created, 0 updated, 2 unchanged, 0 failed" in output
    assert DocumentVersion.objects.count() == 2

    (policies / "travel.md").write_text(TRAVEL_MD_V2, encoding="utf-8")
    output = run("import_documents", str(policies), "--owner", "owner")
    assert "updated   travel.md" in output
    assert "0 created, 1 updated, 1 unchanged, 0 failed" in output
    travel = Document.objects.get(filename="travel.md")
    assert travel.live_version.number == 2
    hits = search(user=owner, query="国内出張の日当はいくらですか").hits
    assert any("3,500円" in h.text for h in hits) and not any("2,000円" in h.text for h in hits)


def test_import_sets_access_groups_creating_them(owner, tmp_path):
    (tmp_path / "wifi.txt").write_text(WIFI_TXT, encoding="utf-8")
    run("import_documents", str(tmp_path), "--owner", "owner", "--groups", "総務部, 情報システム部")

    document = Document.objects.get()
    assert set(document.groups.values_list("name", flat=True)) == {"総務部", "情報システム部"}
    assert Group.objects.filter(name="総務部").exists()


def test_import_reports_refused_files_and_fails(owner, tmp_path):
    (tmp_path / "good.md").write_text(TRAVEL_MD, encoding="utf-8")
    (tmp_path / "fake.md").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(32))
    err = StringIO()

    with pytest.raises(CommandError, match="1 file"):
        call_command("import_documents", str(tmp_path), "--owner", "owner", stdout=StringIO(), stderr=err)

    assert "fake.md" in err.getvalue() and "バイナリ" in err.getvalue()
    assert list(Document.objects.values_list("filename", flat=True)) == ["good.md"]


def test_import_of_an_nfd_file_name_updates_the_document_its_nfc_twin_made(owner, tmp_path):
    (tmp_path / GA_NFC).write_text(TRAVEL_MD, encoding="utf-8")
    run("import_documents", str(tmp_path), "--owner", "owner")
    (tmp_path / GA_NFC).unlink()
    (tmp_path / GA_NFD).write_text(TRAVEL_MD_V2, encoding="utf-8")  # the same folder copied from a Mac

    output = run("import_documents", str(tmp_path), "--owner", "owner")

    assert f"updated   {GA_NFC}" in output
    assert "0 created, 1 updated, 0 unchanged, 0 failed" in output
    document = Document.objects.get()
    assert document.filename == GA_NFC
    assert document.live_version.number == 2


def test_import_needs_an_existing_owner_and_directory(owner, tmp_path):
    with pytest.raises(CommandError, match="no user"):
        run("import_documents", str(tmp_path), "--owner", "nobody")
    with pytest.raises(CommandError, match="not a directory"):
        run("import_documents", str(tmp_path / "missing"), "--owner", "owner")


def test_import_defaults_to_the_first_superuser(admin_user, tmp_path):
    (tmp_path / "wifi.txt").write_text(WIFI_TXT, encoding="utf-8")
    run("import_documents", str(tmp_path))

    assert Document.objects.get().owner == admin_user


# --- reindex ----------------------------------------------------------------------------


def test_reindex_given_ids_and_all(owner, travel):
    Document.objects.filter(pk=travel.pk).update(status=Document.Status.FAILED, status_message="前回の失敗")

    output = run("reindex", str(travel.pk))
    assert "ready" in output and "travel.md" in output
    travel.refresh_from_db()
    assert (travel.status, travel.status_message) == (Document.Status.READY, "")

    assert "travel.md" in run("reindex", "--all")
    assert any("2,000円" in h.text for h in search(user=owner, query="国内出張の日当はいくらですか").hits)


def test_reindex_argument_errors(travel):
    with pytest.raises(CommandError, match="no document with id 999999"):
        run("reindex", "999999")
    with pytest.raises(CommandError, match="not both"):
        run("reindex")
    with pytest.raises(CommandError, match="not both"):
        run("reindex", "--all", str(travel.pk))


def test_failed_reindex_exits_non_zero_and_keeps_live_version(owner, travel, monkeypatch):
    live = travel.live_version_id
    monkeypatch.setattr(
        DenseIndex, "add", lambda *a, **k: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left"))
    )

    with pytest.raises(CommandError, match="1 document"):
        run("reindex", "--all")

    monkeypatch.undo()
    travel.refresh_from_db()
    assert travel.status == Document.Status.FAILED and "ディスクの空きが足りません" in travel.status_message
    assert travel.live_version_id == live
    assert any("2,000円" in h.text for h in search(user=owner, query="国内出張の日当はいくらですか").hits)


def test_benchmark_indexing_measures_pipeline_against_the_encoder_and_cleans_up(db, tmp_path):
    import json as _json
    from io import StringIO

    from django.core.management import call_command

    from documents.models import Document

    (tmp_path / "a.md").write_text("# 休暇\n有給休暇は入社6ヶ月後に10日付与されます。\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("社員食堂は11:30から14:00まで営業します。", encoding="utf-8")
    (tmp_path / "leave").mkdir()  # a handbook folder: its subfolders are measured too, a same-named file included
    (tmp_path / "leave" / "a.md").write_text("# 特別休暇\n慶弔休暇は最大5日です。\n", encoding="utf-8")
    out = StringIO()
    call_command("benchmark_indexing", dir=str(tmp_path), stdout=out)
    result = _json.loads(out.getvalue())
    assert result["documents"] == 3 and result["failed"] == []
    assert result["chunks"] >= 3
    assert result["pipeline_chunks_per_s"] > 0 and result["encoder_chunks_per_s"] > 0
    assert 0 < result["ratio"]
    # Where the time went, per chunk: every stage of the pipeline, adding up to its whole time.
    stages = result["stages_ms_per_chunk"]
    assert {"parse_chunk_store", "embed", "chroma", "keyword_index"} <= set(stages)
    assert stages["embed"] > 0 and all(ms >= 0 for ms in stages.values())
    total_ms = 1000 * result["pipeline_seconds"] / result["chunks"]
    assert abs(sum(stages.values()) - total_ms) <= 0.02 * total_ms + 0.5
    assert result["texts_embedded"] == result["chunks"]  # each (distinct) chunk once, and nothing else
    assert not Document.objects.exists()


def test_import_indexes_files_in_one_batch_and_isolates_a_failing_one(db, tmp_path, owner, monkeypatch):
    """One bad version in a batch fails alone; the others go live (the failure is Chroma's, at its edge)."""
    from documents.importing import import_directory
    from documents.models import Document, DocumentVersion
    from documents.vectorstore import live_collection

    (tmp_path / "leave.md").write_text("# 休暇\n有給休暇は入社6ヶ月後に10日付与されます。\n", encoding="utf-8")
    (tmp_path / "broken.md").write_text("# 壊れた\nこの文書の索引は失敗します。\n", encoding="utf-8")
    (tmp_path / "cafe.txt").write_text("社員食堂は11:30から14:00まで営業します。", encoding="utf-8")
    collection = live_collection()
    real_upsert = collection.upsert
    calls: list[int] = []

    def upsert(**kwargs):
        versions = {m["version_id"] for m in kwargs["metadatas"]}
        calls.append(len(versions))
        if DocumentVersion.objects.filter(pk__in=versions, document__filename="broken.md").exists():
            raise RuntimeError("disk full")
        return real_upsert(**kwargs)

    monkeypatch.setattr(collection, "upsert", upsert)
    report = import_directory(tmp_path, owner=owner)

    assert calls[0] == 3  # all three files embedded and stored in one batch first
    statuses = dict(Document.objects.values_list("filename", "status"))
    assert statuses == {"leave.md": "ready", "cafe.txt": "ready", "broken.md": "failed"}
    assert [name for name, _ in report.failed] == ["broken.md"]
    reason = Document.objects.get(filename="broken.md").status_message
    assert reason.startswith("索引の作成に失敗しました") and "disk full" not in reason
