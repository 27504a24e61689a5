"""Memory per request: an upload and its detail through the documents API stay bounded by the file, not by
chunks × text.

The requests run in a child process (``manage.py shell`` against a throw-away data
directory, DEBUG off, the database task backend as ``make run`` uses it), which
reports its own peak resident size: SQLite's memory is not Python's, so only the
process's peak sees a query that sorts the version's whole text once per chunk.
No worker runs: the POST stores the version and its chunks and queues the
indexing, which is exactly what the web process does in production; embedding
is the worker's memory, not the web request's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.portal import Portal

# What the issue measured: 1.65 MB of ordinary Japanese Markdown grew the web process by 3.3 GB.
UPLOAD_BYTES = 1_650_000
PEAK_LIMIT_MB = 800
# The child may not grow past this: a regression fails with an out-of-memory error instead of taking the
# machine's memory (the old code needed about 3.3 GB here).
ADDRESS_SPACE_HEADROOM_MB = 2500

SECTIONS = ("総則", "申請の手続き", "費用の精算", "承認の流れ", "記録の保管", "例外の扱い", "問い合わせ先")
SENTENCES = (
    "{dept}は、第{n}条に定める手続きに従い、申請を受け付けた日から{days}日以内に結果を通知する。",
    "申請者は、必要な書類を揃えたうえで、社内システムから{dept}へ提出すること。",
    "金額が{amount:,}円を超える場合は、事前に部門長の承認を得なければならない。",
    "やむを得ない事情により期限までに提出できないときは、理由を添えて{dept}に相談する。",
    "この条の規定は、{year}年{month}月{day}日以降に行われた申請について適用する。",
    "記録は{years}年間保管し、監査の求めがあった場合には速やかに提示できるようにしておく。",
)
DEPARTMENTS = ("人事部", "経理部", "総務部", "情報システム部", "法務部")


def ordinary_japanese_markdown(size: int) -> bytes:
    """About ``size`` bytes of UTF-8 Markdown shaped like a long internal handbook: chapters, articles, prose.

    Deterministic; the numbers vary from article to article so no two chunks are alike.
    """
    parts: list[str] = ["# 社内規程集\n\n"]
    length, n = len(parts[0].encode()), 0
    while length < size:
        n += 1
        lines = []
        if n % 12 == 1:
            lines.append(f"## 第{n // 12 + 1}章 {SECTIONS[(n // 12) % len(SECTIONS)]}\n\n")
        lines.append(f"### 第{n}条（{SECTIONS[n % len(SECTIONS)]}）\n\n")
        for i in range(4 + n % 3):
            template = SENTENCES[(n + i) % len(SENTENCES)]
            lines.append(
                template.format(
                    dept=DEPARTMENTS[(n * 3 + i) % len(DEPARTMENTS)],
                    n=n,
                    days=3 + (n + i) % 28,
                    amount=10_000 * (1 + (n * 7 + i) % 90),
                    year=2020 + n % 6,
                    month=1 + n % 12,
                    day=1 + (n + i) % 28,
                    years=3 + n % 8,
                )  # fmt: skip
            )
        lines.append("\n\n")
        block = "".join(lines)
        parts.append(block)
        length += len(block.encode())
    return "".join(parts).encode()


# Runs in the child after PYTHON_SETUP (tests/portal.py): ``owner`` exists.
UPLOAD_AND_DETAIL = """
import json, resource
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from documents.models import Chunk

owner.groups.add(Group.objects.get(name="owners"))
data = open({path!r}, "rb").read()
client = Client()
client.force_login(owner)


def status_kb(field):
    with open("/proc/self/status") as status:
        return int(next(line for line in status if line.startswith(field + ":")).split()[1])


def reset_peak():
    # Linux: "5" resets the peak resident size (VmHWM) to the current one, so the peak measured is these requests'.
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")


headroom = {headroom_mb} * 1024 * 1024
resource.setrlimit(resource.RLIMIT_AS, (status_kb("VmSize") * 1024 + headroom, resource.RLIM_INFINITY))
reset_peak()
before = status_kb("VmRSS")
created = client.post("/api/v1/documents/", {{"file": SimpleUploadedFile("handbook.md", data)}})
after_post = status_kb("VmHWM")
reset_peak()
detail = client.get(f"/api/v1/documents/{{created.json()['id']}}/")
after_get = status_kb("VmHWM")
print("RESULT " + json.dumps({{
    "post": created.status_code, "get": detail.status_code, "versions": detail.json()["versions"],
    "chunks": Chunk.objects.count(), "before_kb": before, "after_post_kb": after_post, "after_get_kb": after_get,
}}))
"""


@pytest.fixture
def portal(tmp_path: Path) -> Portal:
    portal = Portal(tmp_path)
    portal.manage("migrate", "--noinput", "-v0")
    return portal


def test_a_large_upload_and_its_detail_through_the_api_stay_under_800_mb(portal, tmp_path):
    """1.65 MB of Japanese Markdown (about 2,700 chunks): POST and GET detail grow the process by < 800 MB."""
    path = tmp_path / "handbook.md"
    path.write_bytes(ordinary_japanese_markdown(UPLOAD_BYTES))

    out = portal.python(
        UPLOAD_AND_DETAIL.format(path=str(path), headroom_mb=ADDRESS_SPACE_HEADROOM_MB),
        DEBUG="0", RAG_CHUNK_SIZE="400", RAG_CHUNK_OVERLAP="60",
        # Parsed and chunked inside the request, as the issue measured it (by default a file this
        # size is parsed by the worker, which would leave the version without chunks to count).
        RAG_PARSE_INLINE_MAX_KB="4096", RAG_PARSE_INLINE_TIMEOUT_S="120",
    )  # fmt: skip

    result = json.loads(re.search(r"^RESULT (.*)$", out, re.M).group(1))
    assert (result["post"], result["get"]) == (201, 200), out
    [version] = result["versions"]
    assert version["chunk_count"] == result["chunks"] > 1000  # the count the API shows is still right
    peak_mb = (max(result["after_post_kb"], result["after_get_kb"]) - result["before_kb"]) / 1024
    print(f"peak above baseline: {peak_mb:.0f} MB ({result['chunks']} chunks)")
    assert peak_mb < PEAK_LIMIT_MB


# --- every list that joins chunks or versions: counts right, no version text loaded per row ------------------


def _version_text_selected(queries: list[dict]) -> list[str]:
    return [q["sql"] for q in queries if '"documents_documentversion"."text"' in q["sql"]]


@pytest.mark.django_db
def test_lists_that_count_or_join_chunks_never_load_the_version_text(client, api, admin_user, unindexed):
    """The API detail and list, the owner pages, and the admin lists of documents, versions and chunks."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from documents.models import Chunk
    from tests.conftest import as_user

    version = unindexed.live_version
    Chunk.objects.bulk_create(
        Chunk(version=version, document=unindexed, ordinal=i, text=f"第{i}条", start=i, end=i + 1) for i in range(7)
    )
    client.force_login(admin_user)
    as_user(api, admin_user)
    pages = {
        "/api/v1/documents/": api,
        f"/api/v1/documents/{unindexed.pk}/": api,
        "/documents/": client,
        f"/documents/{unindexed.pk}/": client,
        "/admin/documents/document/": client,
        "/admin/documents/documentversion/": client,
        "/admin/documents/chunk/": client,
    }
    for url, user_client in pages.items():
        with CaptureQueriesContext(connection) as queries:
            response = user_client.get(url)
        assert response.status_code == 200, url
        assert _version_text_selected(queries.captured_queries) == [], url

    assert api.get(f"/api/v1/documents/{unindexed.pk}/").json()["versions"][0]["chunk_count"] == 7
    listing = client.get("/admin/documents/document/").content.decode()
    assert '<td class="field-chunk_count">7</td>' in listing
