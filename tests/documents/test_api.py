"""The documents API: shapes, owner-only access, 404 for other people's documents, 400 with field messages."""

from __future__ import annotations

import pytest
import yaml
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from documents.models import Document, DocumentVersion
from qa.retrieval import search
from tests.conftest import as_user
from tests.documents.conftest import (
    GA_NFC,
    GA_NFD,
    LONG_NAME,
    TRAVEL_MD,
    TRAVEL_MD_V2,
    WIFI_TXT,
    fts_rows,
    ingest,
    stored_files,
    stored_paths,
)
from tests.documents.fixtures import make_image_only_pdf

pytestmark = pytest.mark.django_db

DOCUMENT_KEYS = {
    "id", "title", "filename", "owner", "groups", "status", "status_message", "live_version",
    "created_at", "updated_at",
}  # fmt: skip
VERSION_KEYS = {
    "id", "number", "original_name", "sha256", "size", "encoding", "uploaded_by", "created_at", "indexed_at",
    "embedding_model", "error", "live", "chunk_count",
}  # fmt: skip


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def _state(document: Document) -> tuple:
    document.refresh_from_db()
    return (document.versions.count(), document.live_version_id, document.status)


ENDPOINTS = [
    ("get", "/api/v1/documents/"),
    ("post", "/api/v1/documents/"),
    ("get", "/api/v1/documents/{pk}/"),
    ("delete", "/api/v1/documents/{pk}/"),
    ("post", "/api/v1/documents/{pk}/versions/"),
    ("post", "/api/v1/documents/{pk}/reindex/"),
]
DOCUMENT_ENDPOINTS = ENDPOINTS[2:]


# --- access ----------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "url"), ENDPOINTS)
def test_anonymous_gets_401(api, unindexed, method, url):
    before = _state(unindexed)
    data = {"file": upload("x.md", WIFI_TXT.encode())}
    response = getattr(api, method)(url.format(pk=unindexed.pk), data, format="multipart")

    assert response.status_code == 401
    assert _state(unindexed) == before


@pytest.mark.parametrize(("method", "url"), ENDPOINTS)
def test_employee_without_owner_role_gets_403(api, employee, unindexed, method, url):
    before = _state(unindexed)
    response = getattr(as_user(api, employee), method)(
        url.format(pk=unindexed.pk), {"file": upload("x.md", WIFI_TXT.encode())}, format="multipart"
    )

    assert response.status_code == 403
    assert _state(unindexed) == before
    assert Document.objects.count() == 1


@pytest.mark.parametrize(("method", "url"), DOCUMENT_ENDPOINTS)
def test_another_owners_document_is_404_and_unchanged(api, other_owner, unindexed, method, url):
    before = _state(unindexed)
    response = getattr(as_user(api, other_owner), method)(
        url.format(pk=unindexed.pk), {"file": upload("travel.md", TRAVEL_MD_V2.encode())}, format="multipart"
    )

    assert response.status_code == 404
    assert "travel.md" not in response.content.decode()
    assert _state(unindexed) == before


def test_token_authentication(api, owner, unindexed):
    token = Token.objects.create(user=owner)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")

    assert api.get(f"/api/v1/documents/{unindexed.pk}/").status_code == 200


# --- list and detail ---------------------------------------------------------------------


def test_list_shows_own_documents_and_staff_sees_all(api, owner, other_owner, admin_user, unindexed):
    Document.objects.create(title="Wi-Fi", filename="wifi.txt", owner=other_owner)

    body = as_user(api, owner).get("/api/v1/documents/").json()
    assert body["count"] == 1
    (row,) = body["results"]
    assert set(row) == DOCUMENT_KEYS
    assert (row["filename"], row["owner"], row["status"], row["live_version"]) == ("travel.md", "owner", "ready", 1)

    body = as_user(APIClient(), admin_user).get("/api/v1/documents/").json()
    assert [r["filename"] for r in body["results"]] == ["travel.md", "wifi.txt"]


def test_detail_lists_versions_newest_first(api, owner, travel):
    ingest(owner, text=TRAVEL_MD_V2, document=travel)
    body = as_user(api, owner).get(f"/api/v1/documents/{travel.pk}/").json()

    assert set(body) == DOCUMENT_KEYS | {"versions"}
    assert body["live_version"] == 2
    assert [(v["number"], v["live"]) for v in body["versions"]] == [(2, True), (1, False)]
    assert set(body["versions"][0]) == VERSION_KEYS
    assert body["versions"][0]["chunk_count"] > 0
    assert body["versions"][0]["uploaded_by"] == "owner"
    assert len(body["versions"][0]["sha256"]) == 64


# --- upload ------------------------------------------------------------------------------


def test_upload_with_groups_by_name_and_id(api, owner):
    hr = Group.objects.create(name="人事部")
    sales = Group.objects.create(name="営業部")
    response = as_user(api, owner).post(
        "/api/v1/documents/",
        {"file": upload("travel.md", TRAVEL_MD.encode()), "title": "旅費", "groups": ["人事部", str(sales.pk)]},
        format="multipart",
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["title"], body["filename"], body["status"], body["live_version"]) == ("旅費", "travel.md", "ready", 1)
    assert sorted(body["groups"]) == sorted(["人事部", "営業部"])
    document = Document.objects.get(pk=body["id"])
    assert set(document.groups.all()) == {hr, sales}
    assert document.owner == owner
    assert any("2,000円" in h.text for h in search(user=owner, query="国内出張の日当はいくらですか").hits)


def test_upload_with_unknown_group_is_400(api, owner):
    response = as_user(api, owner).post(
        "/api/v1/documents/",
        {"file": upload("travel.md", TRAVEL_MD.encode()), "groups": ["存在しない部"]},
        format="multipart",
    )

    assert response.status_code == 400
    assert "「存在しない部」というグループはありません。" in str(response.json()["groups"])
    assert not Document.objects.exists()


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("empty.md", b"", "ファイルが空です"),
        ("picture.md", b"\x89PNG\r\n\x1a\n" + bytes(64), "テキストではなくバイナリファイルのようです"),
        ("scan.pdf", make_image_only_pdf(), "PDFに文字情報がありません"),
        ("weird.txt", b"\xff\xfd\xfc\xfb\xfa" * 20, "文字コードを判別できません"),
    ],
    ids=["empty", "png-renamed-md", "pdf-without-text", "undecodable"],
)
def test_bad_file_is_400_under_file_and_nothing_stored(api, owner, name, data, message):
    files_before = set(stored_files())
    response = as_user(api, owner).post("/api/v1/documents/", {"file": upload(name, data)}, format="multipart")

    assert response.status_code == 400
    (error,) = response.json()["file"]
    assert message in error
    assert not Document.objects.exists()
    assert set(stored_files()) == files_before


def test_too_large_file_is_400(api, owner, settings):
    settings.RAG_MAX_UPLOAD_MB = 1
    response = as_user(api, owner).post(
        "/api/v1/documents/", {"file": upload("big.txt", ("あ" * 400_000).encode())}, format="multipart"
    )

    assert response.status_code == 400
    assert response.json() == {"file": ["ファイルサイズが上限（1 MB）を超えています"]}


def test_name_collision_is_400(api, owner, other_owner, unindexed):
    response = as_user(api, other_owner).post(
        "/api/v1/documents/", {"file": upload("travel.md", WIFI_TXT.encode())}, format="multipart"
    )

    assert response.status_code == 400
    assert "「travel.md」という名前の文書は既にあります" in response.json()["file"][0]
    assert Document.objects.count() == 1


def test_too_long_file_name_is_400_and_nothing_written(api, owner):
    paths_before = stored_paths()
    response = as_user(api, owner).post(
        "/api/v1/documents/", {"file": upload(LONG_NAME, TRAVEL_MD.encode())}, format="multipart"
    )

    assert response.status_code == 400
    (error,) = response.json()["file"]
    assert "ファイル名が長すぎます" in error
    assert not Document.objects.exists()
    assert stored_paths() == paths_before


def test_large_upload_with_a_too_long_extension_is_400(api, owner, settings):
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024  # streamed to a temporary file, as a file over 2.5 MB is
    data = ("# 規程\n" + "本文。" * 500).encode()
    response = as_user(api, owner).post(
        "/api/v1/documents/", {"file": upload("a." + "あ" * 90, data)}, format="multipart"
    )

    assert response.status_code == 400
    assert "ファイル名が長すぎます" in response.json()["file"][0]


def test_a_large_upload_keeps_its_name(api, owner, settings):
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024
    data = ("# 出張旅費規程\n" + "国内出張の日当は1日あたり2,000円とする。\n" * 60).encode()
    response = as_user(api, owner).post("/api/v1/documents/", {"file": upload("travel.md", data)}, format="multipart")

    assert response.status_code == 201
    assert response.json()["filename"] == "travel.md"


def test_nfd_spelling_of_an_existing_name_is_a_collision(api, owner):
    as_user(api, owner).post("/api/v1/documents/", {"file": upload(GA_NFC, TRAVEL_MD.encode())}, format="multipart")

    response = api.post("/api/v1/documents/", {"file": upload(GA_NFD, WIFI_TXT.encode())}, format="multipart")

    assert response.status_code == 400
    assert f"「{GA_NFC}」という名前の文書は既にあります" in response.json()["file"][0]
    assert list(Document.objects.values_list("filename", flat=True)) == [GA_NFC]


def test_missing_file_is_400(api, owner):
    response = as_user(api, owner).post("/api/v1/documents/", {"title": "x"}, format="multipart")

    assert response.status_code == 400
    assert "file" in response.json()


# --- versions, re-index, delete ----------------------------------------------------------


def test_new_version_is_201_and_identical_bytes_200(api, owner, travel):
    as_user(api, owner)
    url = f"/api/v1/documents/{travel.pk}/versions/"
    response = api.post(url, {"file": upload("travel.md", TRAVEL_MD_V2.encode())}, format="multipart")
    assert response.status_code == 201
    assert response.json()["live_version"] == 2

    response = api.post(url, {"file": upload("travel.md", TRAVEL_MD_V2.encode())}, format="multipart")
    assert response.status_code == 200
    assert len(response.json()["versions"]) == 2
    assert DocumentVersion.objects.filter(document=travel).count() == 2


def test_bad_new_version_is_400_and_live_version_keeps_answering(api, owner, travel):
    before = _state(travel)
    response = as_user(api, owner).post(
        f"/api/v1/documents/{travel.pk}/versions/",
        {"file": upload("travel.pdf", make_image_only_pdf())},
        format="multipart",
    )

    assert response.status_code == 400
    assert "PDFに文字情報がありません" in response.json()["file"][0]
    assert _state(travel) == before
    assert any("2,000円" in h.text for h in search(user=owner, query="国内出張の日当はいくらですか").hits)


def test_new_version_with_a_too_long_name_is_400_and_nothing_written(api, owner, travel):
    before, paths_before = _state(travel), stored_paths()
    response = as_user(api, owner).post(
        f"/api/v1/documents/{travel.pk}/versions/",
        {"file": upload(LONG_NAME, TRAVEL_MD_V2.encode())},
        format="multipart",
    )

    assert response.status_code == 400
    assert "ファイル名が長すぎます" in response.json()["file"][0]
    assert _state(travel) == before
    assert stored_paths() == paths_before


def test_reindex(api, owner, travel):
    Document.objects.filter(pk=travel.pk).update(status=Document.Status.FAILED, status_message="前回の失敗")
    response = as_user(api, owner).post(f"/api/v1/documents/{travel.pk}/reindex/")

    assert response.status_code == 200
    assert (response.json()["status"], response.json()["status_message"]) == ("ready", "")


def test_delete_removes_it_everywhere(api, owner, travel):
    version_ids = list(travel.versions.values_list("pk", flat=True))
    response = as_user(api, owner).delete(f"/api/v1/documents/{travel.pk}/")

    assert response.status_code == 204
    assert not Document.objects.filter(pk=travel.pk).exists()
    assert fts_rows(version_ids) == 0
    assert not search(user=owner, query="国内出張の日当はいくらですか").hits
    assert api.get(f"/api/v1/documents/{travel.pk}/").status_code == 404


# --- schema ------------------------------------------------------------------------------


def test_schema_describes_the_documents_operations(api, owner):
    schema = yaml.safe_load(as_user(api, owner).get("/api/schema/").content)
    paths = schema["paths"]

    assert set(paths["/api/v1/documents/"]) >= {"get", "post"}
    assert set(paths["/api/v1/documents/{id}/"]) >= {"get", "delete"}
    upload_body = paths["/api/v1/documents/"]["post"]["requestBody"]["content"]
    assert "multipart/form-data" in upload_body
    assert paths["/api/v1/documents/{id}/versions/"]["post"]["responses"].keys() >= {"200", "201", "400", "404"}
