"""Owner pages: who may reach each page, what each form changes, and how bad files are refused.

Every page is checked for the owner, another owner (404: the document's
existence is not revealed), a plain employee (403 on the owner pages, 404 on a
document) and an anonymous visitor (sent to the login page), asserting the
database afterwards.
"""

from __future__ import annotations

import pytest
from chromadb.errors import InternalError
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils.html import escape

from documents.models import Document, DocumentVersion
from documents.vectorstore import DenseIndex
from qa.models import Answer
from qa.retrieval import search
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
from tests.documents.fixtures import docx_with_broken_body, make_docx, make_image_only_pdf, make_pdf, zip_bytes
from tests.qa.answer_rows import make_answer

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(64)


def signed_in(client: Client, user) -> Client:
    client.force_login(user)
    return client


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def content(response) -> str:
    return response.content.decode()


def _state(document: Document) -> tuple:
    """What a visitor must not be able to change: existence, versions, live version, status."""
    document.refresh_from_db()
    return (document.versions.count(), document.live_version_id, document.status, document.title)


# --- access -----------------------------------------------------------------------------

DOCUMENT_PAGES = [
    ("get", "/documents/{pk}/"),
    ("get", "/documents/{pk}/status/"),
    ("post", "/documents/{pk}/versions/"),
    ("post", "/documents/{pk}/reindex/"),
    ("get", "/documents/{pk}/delete/"),
    ("post", "/documents/{pk}/delete/"),
]


OWNER_PAGES = [("get", "/documents/"), ("get", "/documents/upload/"), ("post", "/documents/upload/")]


@pytest.mark.parametrize(("method", "url"), [*OWNER_PAGES, *DOCUMENT_PAGES])
def test_anonymous_is_sent_to_login_and_changes_nothing(client, unindexed, method, url):
    travel = unindexed
    before = _state(travel)
    data = {"file": upload("new.md", WIFI_TXT.encode())} if method == "post" else None
    response = getattr(client, method)(url.format(pk=travel.pk), data)

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")
    assert _state(travel) == before
    assert Document.objects.count() == 1


@pytest.mark.parametrize(("method", "url"), OWNER_PAGES)
def test_employee_without_owner_role_gets_403_on_owner_pages(client, employee, method, url):
    data = {"file": upload("new.md", WIFI_TXT.encode())} if method == "post" else None
    response = getattr(signed_in(client, employee), method)(url, data)

    assert response.status_code == 403
    assert not Document.objects.exists()


@pytest.mark.parametrize("visitor", ["other_owner", "employee"])
@pytest.mark.parametrize(("method", "url"), DOCUMENT_PAGES)
def test_someone_elses_document_is_404_and_unchanged(client, unindexed, request, visitor, method, url):
    travel = unindexed
    user = request.getfixturevalue(visitor)
    before = _state(travel)
    data = {"file": upload("travel.md", TRAVEL_MD_V2.encode())} if method == "post" else None
    response = getattr(signed_in(client, user), method)(url.format(pk=travel.pk), data)

    assert response.status_code == 404
    assert "travel.md" not in content(response)
    assert _state(travel) == before


def test_list_shows_own_documents_only_and_staff_sees_all(client, owner, other_owner, admin_user, travel):
    ingest(other_owner, filename="wifi.txt", text=WIFI_TXT)

    page = content(signed_in(client, owner).get("/documents/"))
    assert "travel.md" in page and "wifi.txt" not in page
    assert "公開中" in page  # the status badge

    page = content(signed_in(Client(), admin_user).get("/documents/"))
    assert "travel.md" in page and "wifi.txt" in page


def test_staff_may_open_and_change_anyones_document(client, admin_user, travel):
    signed_in(client, admin_user)
    assert client.get(f"/documents/{travel.pk}/").status_code == 200
    response = client.post(f"/documents/{travel.pk}/versions/", {"file": upload("travel.md", TRAVEL_MD_V2.encode())})

    assert response.status_code == 302
    travel.refresh_from_db()
    assert travel.live_version.number == 2
    assert travel.live_version.uploaded_by == admin_user


# --- upload -------------------------------------------------------------------------------


def test_upload_page_has_the_form(client, owner):
    Group.objects.create(name="経理部")
    page = content(signed_in(client, owner).get("/documents/upload/"))

    assert 'enctype="multipart/form-data"' in page
    assert 'hx-post="/documents/upload/"' in page
    assert "経理部" in page  # the access groups to choose from
    assert "上限 20 MB" in page


def test_upload_creates_a_ready_document_with_groups(client, owner):
    hr = Group.objects.create(name="人事部")
    response = signed_in(client, owner).post(
        "/documents/upload/",
        {"file": upload("travel.md", TRAVEL_MD.encode()), "title": "旅費のきまり", "groups": [hr.pk]},
    )

    document = Document.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/documents/{document.pk}/"
    assert (document.title, document.filename, document.owner, document.status) == (
        "旅費のきまり", "travel.md", owner, Document.Status.READY,
    )  # fmt: skip
    assert list(document.groups.all()) == [hr]
    assert document.live_version.chunks.exists()
    page = content(client.get(response["Location"]))
    assert "「travel.md」を登録し、検索できるようにしました。" in page


def test_htmx_upload_redirects_the_browser(client, owner):
    response = signed_in(client, owner).post(
        "/documents/upload/", {"file": upload("wifi.txt", WIFI_TXT.encode())}, headers=HTMX
    )

    document = Document.objects.get()
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/documents/{document.pk}/"


BAD_FILES = [
    pytest.param("empty.md", b"", "ファイルが空です", id="empty"),
    pytest.param("picture.md", PNG, "テキストではなくバイナリファイルのようです", id="png-renamed-md"),
    pytest.param("scan.pdf", make_image_only_pdf(), "PDFに文字情報がありません", id="pdf-without-text"),
    pytest.param(
        "broken.pdf", make_pdf(["本文です。"])[:300], "PDFファイルが壊れているため読み込めません", id="corrupt-pdf"
    ),
    pytest.param(
        "broken.docx", docx_with_broken_body(), "Wordファイルが壊れているため読み込めません", id="corrupt-docx"
    ),
    pytest.param(
        "nobody.docx", zip_bytes({"hello.txt": b"hi"}), "Wordファイルが壊れているため読み込めません", id="zip-not-docx"
    ),
    pytest.param("weird.txt", b"\xff\xfd\xfc\xfb\xfa" * 20, "文字コードを判別できません", id="undecodable"),
    pytest.param("notes.exe", b"MZ\x90\x00", "対応していない形式です", id="unknown-extension"),
]


@pytest.mark.parametrize(("name", "data", "message"), BAD_FILES)
def test_bad_upload_shows_the_reason_and_stores_nothing(client, owner, name, data, message):
    files_before = set(stored_files())
    response = signed_in(client, owner).post(
        "/documents/upload/", {"file": upload(name, data), "title": "残すタイトル"}
    )

    assert response.status_code == 400
    page = content(response)
    assert message in page
    assert 'value="残すタイトル"' in page  # the rest of the form is kept
    assert not Document.objects.exists()
    assert not DocumentVersion.objects.exists()
    assert set(stored_files()) == files_before


@pytest.mark.parametrize(("name", "data", "message"), BAD_FILES[:3])
def test_bad_htmx_upload_returns_the_form_fragment_with_400(client, owner, name, data, message):
    response = signed_in(client, owner).post("/documents/upload/", {"file": upload(name, data)}, headers=HTMX)

    assert response.status_code == 400
    page = content(response)
    assert page.lstrip().startswith('<form id="upload-form"')
    assert "<html" not in page
    assert message in page
    assert not Document.objects.exists()


def test_too_large_file_is_refused(client, owner, settings):
    settings.RAG_MAX_UPLOAD_MB = 1
    data = ("あ" * 400_000).encode()  # 1.2 MB of UTF-8
    response = signed_in(client, owner).post("/documents/upload/", {"file": upload("big.txt", data)})

    assert response.status_code == 400
    assert "ファイルサイズが上限（1 MB）を超えています" in content(response)
    assert not Document.objects.exists()


def test_name_already_used_by_another_document_is_refused(client, owner, other_owner):
    ingest(other_owner, filename="travel.md")
    files_before = set(stored_files())
    response = signed_in(client, owner).post("/documents/upload/", {"file": upload("TRAVEL.md", WIFI_TXT.encode())})

    assert response.status_code == 400
    assert "「TRAVEL.md」という名前の文書は既にあります" in content(response)
    assert Document.objects.count() == 1
    assert DocumentVersion.objects.count() == 1
    assert set(stored_files()) == files_before


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "htmx"])
def test_too_long_file_name_is_refused_before_anything_is_written(client, owner, headers):
    paths_before = stored_paths()
    response = signed_in(client, owner).post(
        "/documents/upload/", {"file": upload(LONG_NAME, TRAVEL_MD.encode())}, headers=headers
    )

    assert response.status_code == 400
    assert "ファイル名が長すぎます" in content(response)
    assert not Document.objects.exists()
    assert not DocumentVersion.objects.exists()
    assert stored_paths() == paths_before  # not even an empty directory


def test_large_upload_with_a_too_long_extension_is_refused_not_a_server_error(client, owner, settings):
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024  # streamed to a temporary file, as a file over 2.5 MB is
    paths_before = stored_paths()
    data = ("# 規程\n" + "本文。" * 500).encode()
    response = signed_in(client, owner).post("/documents/upload/", {"file": upload("a." + "あ" * 90, data)})

    assert response.status_code == 400
    assert "ファイル名が長すぎます" in content(response)
    assert not Document.objects.exists()
    assert stored_paths() == paths_before


def test_nfd_spelling_of_an_uploaded_name_is_the_same_document(client, owner):
    signed_in(client, owner).post("/documents/upload/", {"file": upload(GA_NFC, TRAVEL_MD.encode())})
    files_before = set(stored_files())

    response = client.post("/documents/upload/", {"file": upload(GA_NFD, WIFI_TXT.encode())})

    assert response.status_code == 400
    assert f"「{GA_NFC}」という名前の文書は既にあります" in content(response)
    assert list(Document.objects.values_list("filename", flat=True)) == [GA_NFC]
    assert set(stored_files()) == files_before


def test_nfd_upload_stores_the_nfc_name(client, owner):
    signed_in(client, owner).post("/documents/upload/", {"file": upload(GA_NFD, TRAVEL_MD.encode())})

    document = Document.objects.get()
    assert document.filename == GA_NFC
    assert document.versions.get().original_name == GA_NFC


def test_upload_without_a_file_is_a_form_error(client, owner):
    response = signed_in(client, owner).post("/documents/upload/", {"title": "x"})

    assert response.status_code == 400
    assert "この項目は必須です。" in content(response)
    assert not Document.objects.exists()


# --- detail and status -------------------------------------------------------------------


def test_detail_shows_versions_and_chunks(client, owner, travel):
    version = travel.live_version
    page = content(signed_in(client, owner).get(f"/documents/{travel.pk}/"))

    assert version.sha256[:12] in page
    assert "公開中" in page
    assert "owner" in page  # uploaded by
    for chunk in version.chunks.all():
        assert f"{chunk.start}–{chunk.end}" in page
        assert escape(chunk.heading_path) in page
    assert "1泊12,000円" in page
    assert f'action="/documents/{travel.pk}/versions/"' in page


def test_status_badge_polls_only_while_indexing(client, owner, unindexed):
    travel = unindexed
    signed_in(client, owner)
    Document.objects.filter(pk=travel.pk).update(status=Document.Status.INDEXING)
    fragment = content(client.get(f"/documents/{travel.pk}/status/", headers=HTMX))
    assert 'hx-trigger="every 2s"' in fragment
    assert "索引作成中" in fragment
    assert 'hx-trigger="every 2s"' in content(client.get("/documents/"))

    Document.objects.filter(pk=travel.pk).update(status=Document.Status.READY)
    fragment = content(client.get(f"/documents/{travel.pk}/status/", headers=HTMX))
    assert "hx-trigger" not in fragment
    assert "公開中" in fragment
    # Polled from the detail page: a finished status reloads it, so the chunks shown are current.
    response = client.get(f"/documents/{travel.pk}/status/?refresh=1", headers=HTMX)
    assert response["HX-Refresh"] == "true"


def test_failed_status_shows_its_reason(client, owner, unindexed):
    travel = unindexed
    Document.objects.filter(pk=travel.pk).update(
        status=Document.Status.FAILED, status_message="索引の作成に失敗しました: 理由X"
    )
    page = content(signed_in(client, owner).get("/documents/"))

    assert "失敗" in page and "理由X" in page


def test_needs_fix_answers_are_listed_for_their_document(client, owner, other_owner, employee, unindexed):
    travel = unindexed
    wifi = Document.objects.create(title="Wi-Fi", filename="wifi.txt", owner=other_owner)
    citation = {
        "n": 1, "filename": "travel.md", "section": "日当", "cited_text": "日当は1日あたり2,000円", "quote_verified": True,
    }  # fmt: skip
    make_answer(
        employee,
        question="出張の日当は？",
        citations=[citation],
        retrieved=[],
        review_status=Answer.ReviewStatus.NEEDS_DOCUMENT_FIX,
        review_notes="改定後の金額に更新してください",
    )
    make_answer(
        employee,
        question="解決済みの質問",
        citations=[citation],
        retrieved=[],
        review_status=Answer.ReviewStatus.RESOLVED,
    )
    make_answer(
        employee,
        question="Wi-Fiのパスワードは？",
        citations=[{**citation, "filename": "wifi.txt"}],
        retrieved=[],
        review_status=Answer.ReviewStatus.NEEDS_DOCUMENT_FIX,
    )
    signed_in(client, owner)

    listing = content(client.get("/documents/"))
    assert "要修正" in listing
    assert "回答が 1 件あります" in listing
    detail = content(client.get(f"/documents/{travel.pk}/"))
    assert "出張の日当は？" in detail
    assert "改定後の金額に更新してください" in detail
    assert "解決済みの質問" not in detail
    assert "Wi-Fiのパスワードは？" not in detail  # another owner's document

    other = content(signed_in(Client(), other_owner).get(f"/documents/{wifi.pk}/"))
    assert "Wi-Fiのパスワードは？" in other and "出張の日当は？" not in other


def test_no_needs_fix_notice_without_such_answers(client, owner, unindexed):
    assert "要修正" not in content(signed_in(client, owner).get(f"/documents/{unindexed.pk}/"))


# --- replace -------------------------------------------------------------------------------


def test_replace_makes_the_new_version_live(client, owner, travel):
    old = travel.live_version
    response = signed_in(client, owner).post(
        f"/documents/{travel.pk}/versions/", {"file": upload("travel_v2.md", TRAVEL_MD_V2.encode())}
    )

    assert response.status_code == 302
    travel.refresh_from_db()
    assert travel.live_version.number == 2
    assert travel.filename == "travel.md"  # citations keep using the document's name
    assert fts_rows([old.pk]) == 0
    hits = search(user=owner, query="国内出張の日当はいくらですか").hits
    assert any("3,500円" in h.text for h in hits) and not any("2,000円" in h.text for h in hits)


def test_replace_with_identical_bytes_creates_no_version(client, owner, travel):
    response = signed_in(client, owner).post(
        f"/documents/{travel.pk}/versions/", {"file": upload("travel.md", TRAVEL_MD.encode())}, follow=True
    )

    assert "新しい版は作成しませんでした" in content(response)
    assert travel.versions.count() == 1


def test_bad_replacement_is_refused_and_live_version_keeps_answering(client, owner, travel):
    before = _state(travel)
    response = signed_in(client, owner).post(
        f"/documents/{travel.pk}/versions/", {"file": upload("travel.pdf", make_image_only_pdf())}
    )

    assert response.status_code == 400
    assert "PDFに文字情報がありません" in content(response)
    assert "1泊12,000円" in content(response)  # still the detail page with the live chunks
    assert _state(travel) == before
    assert any("2,000円" in h.text for h in search(user=owner, query="国内出張の日当はいくらですか").hits)

    response = client.post(f"/documents/{travel.pk}/versions/", {"file": upload("empty.md", b"")}, headers=HTMX)
    assert response.status_code == 400
    assert content(response).lstrip().startswith('<form id="replace-form"')
    assert "ファイルが空です" in content(response)


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "htmx"])
def test_replacement_with_a_too_long_name_is_refused_and_writes_nothing(client, owner, travel, headers):
    before, paths_before = _state(travel), stored_paths()
    response = signed_in(client, owner).post(
        f"/documents/{travel.pk}/versions/", {"file": upload(LONG_NAME, TRAVEL_MD_V2.encode())}, headers=headers
    )

    assert response.status_code == 400
    assert "ファイル名が長すぎます" in content(response)
    assert _state(travel) == before
    assert stored_paths() == paths_before


def test_replacement_whose_indexing_fails_reports_it_and_keeps_old_version(client, owner, travel, monkeypatch):
    old = travel.live_version

    def broken_add(self, ids, embeddings, metadatas):
        raise InternalError("chroma is down")

    monkeypatch.setattr(DenseIndex, "add", broken_add)
    response = signed_in(client, owner).post(
        f"/documents/{travel.pk}/versions/", {"file": upload("travel.md", TRAVEL_MD_V2.encode())}, follow=True
    )
    monkeypatch.undo()

    page = content(response)
    assert "索引の作成に失敗しました: 検索用の索引（ベクトル索引）に書き込めませんでした" in page
    assert "chroma is down" not in page
    travel.refresh_from_db()
    assert travel.status == Document.Status.FAILED
    assert travel.live_version_id == old.pk
    assert any("2,000円" in h.text for h in search(user=owner, query="国内出張の日当はいくらですか").hits)


# --- re-index and delete -----------------------------------------------------------------


def test_reindex_reports_success(client, owner, travel):
    Document.objects.filter(pk=travel.pk).update(status=Document.Status.FAILED, status_message="前回の失敗")
    response = signed_in(client, owner).post(f"/documents/{travel.pk}/reindex/", follow=True)

    assert "索引を作り直しました。" in content(response)
    travel.refresh_from_db()
    assert (travel.status, travel.status_message) == (Document.Status.READY, "")


def test_htmx_reindex_redirects_to_detail(client, owner, unindexed):
    travel = unindexed
    response = signed_in(client, owner).post(f"/documents/{travel.pk}/reindex/", headers=HTMX)

    assert response["HX-Redirect"] == f"/documents/{travel.pk}/"


def test_delete_asks_for_confirmation_then_removes_everything(client, owner, travel):
    signed_in(client, owner)
    version_ids = list(travel.versions.values_list("pk", flat=True))

    confirm = client.get(f"/documents/{travel.pk}/delete/")
    assert confirm.status_code == 200
    assert "travel.md" in content(confirm) and "元に戻すことはできません" in content(confirm)
    assert Document.objects.filter(pk=travel.pk).exists()  # GET changes nothing

    response = client.post(f"/documents/{travel.pk}/delete/", follow=True)
    assert response.redirect_chain[-1][0] == "/documents/"
    assert "「travel.md」を削除しました。" in content(response)
    assert not Document.objects.filter(pk=travel.pk).exists()
    assert fts_rows(version_ids) == 0
    assert not search(user=owner, query="国内出張の日当はいくらですか").hits


def test_each_format_uploads_through_the_page(client, owner):
    signed_in(client, owner)
    files = {
        "a.docx": make_docx([("h1", "備品"), ("p", "ノートPCは情報システム部が貸与する。")]),
        "b.pdf": make_pdf(["会議室は前日までに予約する。"]),
    }
    for name, data in files.items():
        assert client.post("/documents/upload/", {"file": upload(name, data)}).status_code == 302
    assert set(Document.objects.values_list("filename", "status")) == {("a.docx", "ready"), ("b.pdf", "ready")}
