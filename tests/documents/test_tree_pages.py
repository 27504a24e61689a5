"""Folders, queue positions and titles on the pages (issue 21): owner upload and API, owner list, admin, footnotes."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from documents.models import Document
from documents.services import document_ingest
from qa.models import Citation
from tests.conftest import as_user
from tests.documents.conftest import TRAVEL_MD, WIFI_TXT, stored_files
from tests.qa.answer_rows import make_answer

pytestmark = pytest.mark.django_db

DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def test_an_owner_uploads_into_a_folder_and_the_list_shows_title_and_path(client, owner):
    client.force_login(owner)
    response = client.post(
        "/documents/upload/", {"file": upload("_index.md", TRAVEL_MD.encode()), "folder": "規程\\出張/"}
    )

    document = Document.objects.get()
    assert response.status_code == 302
    assert (document.filename, document.title, document.status) == ("規程/出張/_index.md", "出張旅費規程", "ready")
    page = client.get("/documents/").content.decode()
    row = re.search(rf'<tr id="document-{document.pk}">.*?</tr>', page, re.DOTALL).group(0)
    assert "出張旅費規程" in row and "規程/出張/_index.md" in row


@pytest.mark.parametrize("folder", ["../etc", "/var/data", "規程/.secret"])
def test_a_folder_that_climbs_out_or_is_hidden_is_refused_on_the_page_and_nothing_is_stored(client, owner, folder):
    client.force_login(owner)
    files_before = set(stored_files())
    response = client.post("/documents/upload/", {"file": upload("travel.md", TRAVEL_MD.encode()), "folder": folder})

    assert response.status_code == 400
    assert "フォルダ名が正しくありません" in response.content.decode()
    assert not Document.objects.exists() and set(stored_files()) == files_before


def test_the_api_takes_a_folder_and_refuses_a_bad_one_under_folder(api, owner):
    client = as_user(api, owner)
    bad = client.post("/api/v1/documents/", {"file": upload("wifi.txt", WIFI_TXT.encode()), "folder": "a/../../b"})
    assert bad.status_code == 400
    assert "フォルダ名が正しくありません" in bad.json()["folder"][0]
    assert not Document.objects.exists()

    made = client.post("/api/v1/documents/", {"file": upload("wifi.txt", WIFI_TXT.encode()), "folder": "総務"})
    assert made.status_code == 201
    assert made.json()["filename"] == "総務/wifi.txt"
    again = client.post("/api/v1/documents/", {"file": upload("wifi.txt", WIFI_TXT.encode())})
    assert again.status_code == 201 and again.json()["filename"] == "wifi.txt"  # another folder, another document


def test_waiting_documents_show_their_place_in_the_queue_and_the_admin_lists_it(client, owner, admin_user, settings):
    settings.TASKS = DATABASE_TASKS  # queued for a worker that is not running: both wait
    first = document_ingest(owner=owner, filename="travel.md", data=TRAVEL_MD.encode())
    second = document_ingest(owner=owner, filename="wifi.txt", data=WIFI_TXT.encode(), folder="総務")
    assert first.status == second.status == Document.Status.INDEXING

    client.force_login(owner)
    page = client.get("/documents/").content.decode()
    assert "索引作成の順番待ち: 1 番目" in _row(page, first) and "索引作成の順番待ち: 2 番目" in _row(page, second)
    status = client.get(f"/documents/{second.pk}/status/").content.decode()
    assert "索引作成の順番待ち: 2 番目" in status

    client.force_login(admin_user)
    queue = client.get(reverse("admin:documents_indexingtask_changelist")).content.decode()
    assert "出張旅費規程" in queue and "総務/wifi.txt" in queue
    assert queue.index("travel.md") < queue.index("総務/wifi.txt")  # in the order the workers take them


def test_an_indexed_document_shows_no_queue_place(client, owner, travel):
    client.force_login(owner)
    assert "順番待ち" not in _row(client.get("/documents/").content.decode(), travel)


def test_a_footnote_shows_the_cited_documents_title_and_path(client, employee, owner):
    document = Document.objects.create(title="休暇の取り方", filename="people-group/leave/_index.md", owner=owner)
    answer = make_answer(employee)
    Citation.objects.filter(answer=answer).update(document=document, filename=document.filename)

    client.force_login(employee)
    html = client.get(reverse("qa:conversation", args=[answer.conversation_id])).content.decode()
    note = re.search(rf'<li id="fn-{answer.pk}-1".*?</summary>', html, re.DOTALL).group(0)
    assert '<span class="fn-title">休暇の取り方</span>' in note
    assert "people-group/leave/_index.md" in note


def _row(page: str, document: Document) -> str:
    return re.search(rf'<tr id="document-{document.pk}">.*?</tr>', page, re.DOTALL).group(0)
