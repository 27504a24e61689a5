"""A document with almost no text of its own goes live with a warning: on its owner's pages and at import."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from documents.body_text import NEAR_EMPTY_BELOW, body_chars
from documents.models import Document
from documents.parsing import parse_file
from tests.documents.conftest import TRAVEL_MD, ingest

LINK_ONLY = "[勤怠管理ページ（社内ポータル）](https://intra.example.com/handbook/finance/timekeeping/)\n"
HEADING_ONLY = "# 経費精算規程\n\n## 第1章 総則\n"
FRONT_MATTER_ONLY = '---\ntitle: "育児休業のご案内"\nweight: 10\n---\n'
POINTER = "詳しくは[こちら](/handbook/leave/)をご覧ください。\n"
WARNING = "本文がほとんどありません"


def _chars(name: str, source: str) -> int:
    doc = parse_file(name, source.encode())
    return body_chars(doc.text, doc.headings)


@pytest.mark.parametrize("source", [LINK_ONLY, HEADING_ONLY, FRONT_MATTER_ONLY, "<https://example.com/a>\n"])
def test_a_link_a_heading_or_front_matter_alone_has_no_body(source):
    assert _chars("page.md", source) == 0


def test_a_sentence_around_a_link_is_counted_without_the_link_or_its_punctuation():
    assert _chars("page.md", POINTER) == len("詳しくはをご覧ください")


def test_one_real_rule_is_enough_in_any_format():
    assert _chars("rule.md", "# 慶弔休暇\n\n本人の結婚は5日の特別休暇とする。\n") >= NEAR_EMPTY_BELOW
    assert _chars("rule.txt", "Expense claims are due by the 25th.\n") >= NEAR_EMPTY_BELOW
    assert _chars("rule.html", "<h1>Leave</h1><p>Ten days after six months.</p>") >= NEAR_EMPTY_BELOW


def test_front_matter_alone_still_makes_a_document_named_by_its_title():
    doc = parse_file("_index.md", FRONT_MATTER_ONLY.encode())
    assert doc.title == "育児休業のご案内"
    assert [h.title for h in doc.headings] == ["育児休業のご案内"]


@pytest.mark.django_db
def test_a_link_only_upload_goes_live_and_its_owner_sees_the_warning(client, owner):
    document = ingest(owner, filename="timekeeping.md", text=LINK_ONLY)
    normal = ingest(owner, filename="travel.md", text=TRAVEL_MD)
    assert document.status == Document.Status.READY and document.live_version is not None

    client.force_login(owner)
    detail = client.get(reverse("documents:detail", args=[document.pk])).content.decode()
    assert WARNING in detail and "0 文字" in detail
    assert WARNING not in client.get(reverse("documents:detail", args=[normal.pk])).content.decode()

    listing = client.get(reverse("documents:list")).content.decode()
    row = listing[listing.index(f'id="document-{document.pk}"') :].split("</tr>")[0]
    other = listing[listing.index(f'id="document-{normal.pk}"') :].split("</tr>")[0]
    assert "本文わずか" in row and "本文わずか" not in other


@pytest.mark.django_db
def test_the_upload_form_says_so_at_once(client, owner):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(owner)
    upload = SimpleUploadedFile("index.md", HEADING_ONLY.encode(), content_type="text/markdown")
    page = client.post(reverse("documents:upload"), {"file": upload, "title": ""}, follow=True).content.decode()
    assert WARNING in page
    assert Document.objects.get(filename="index.md").status == Document.Status.READY


@pytest.mark.django_db
def test_import_names_each_near_empty_document_and_imports_it(owner, tmp_path: Path):
    (tmp_path / "timekeeping.md").write_text(LINK_ONLY, encoding="utf-8")
    (tmp_path / "leave").mkdir()
    (tmp_path / "leave" / "_index.md").write_text(FRONT_MATTER_ONLY, encoding="utf-8")
    (tmp_path / "travel.md").write_text(TRAVEL_MD, encoding="utf-8")
    out, err = StringIO(), StringIO()

    call_command("import_documents", str(tmp_path), "--owner", "owner", stdout=out, stderr=err)

    assert "3 created, 0 updated, 0 unchanged, 0 failed" in out.getvalue()
    warned = sorted(
        line.split(":")[0].split()[-1] for line in err.getvalue().splitlines() if line.startswith("warning")
    )
    assert warned == ["leave/_index.md", "timekeeping.md"]
    assert all(WARNING in line for line in err.getvalue().splitlines() if line.startswith("warning"))
    assert set(Document.objects.values_list("status", flat=True)) == {Document.Status.READY}
    assert Document.objects.get(filename="leave/_index.md").title == "育児休業のご案内"
