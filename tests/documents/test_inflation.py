"""Decompression bombs and oversized text: refused before they cost memory (issue 11, finding 2).

The bombs are built here with zipfile and zlib (zeros deflate about 1000:1,
so half a gigabyte is half a megabyte). Peak memory is measured by parsing in a
child process and reading its peak resident set size (VmHWM), against a small
normal .docx parsed the same way.
"""

from __future__ import annotations

import io
import json
import random
import struct
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

import documents.inflation
import documents.parsing
from documents.models import Document, DocumentVersion
from documents.parsing import ParseError, parse_file
from qa.retrieval import search
from tests.documents.conftest import stored_files
from tests.documents.fixtures import make_docx, make_pdf

MIB = 1024 * 1024
BODY = "word/document.xml"
IMAGE = "word/media/image1.png"
# What python-docx needs to load IMAGE: a relationship from the body and a content type.
IMAGE_REL = (
    b'<Relationship Id="rIdBomb" Target="media/image1.png" '
    b'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"/>'
)
PNG_TYPE = b'<Default Extension="png" ContentType="image/png"/>'

TOO_BIG = "展開後のサイズが大きすぎるため、このファイルは受け付けられません（上限 {} MB）"
TOO_COMPRESSED = "圧縮率が異常に高いため、このファイルは受け付けられません（展開後のサイズは圧縮時の 100 倍まで）"
TOO_MANY_CHARS = "本文の文字数が上限（{:,} 文字）を超えています。ファイルを分割してアップロードしてください"


# --- builders -------------------------------------------------------------------------------

Writer = Callable[[IO[bytes]], None]


def rewrite_docx(members: dict[str, bytes | Writer]) -> bytes:
    """A real .docx (one paragraph 「本文」) with ``members`` replaced or added.

    A value is the member's bytes, or a function that streams them (so a
    gigabyte member never exists in memory here either).
    """
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(make_docx([("p", "本文")]))) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        names = [i.filename for i in source.infolist()]
        for name in names + [n for n in members if n not in names]:
            value = members[name] if name in members else source.read(name)
            if callable(value):
                with target.open(name, "w") as member:
                    value(member)
            else:
                target.writestr(name, value)
    return out.getvalue()


def zeros(size: int) -> Writer:
    def write(member: IO[bytes]) -> None:
        for _ in range(size // MIB):
            member.write(bytes(MIB))

    return write


def docx_with_image(image: bytes | Writer) -> bytes:
    """A .docx whose body points at ``image`` (word/media/image1.png), so python-docx loads it."""
    with zipfile.ZipFile(io.BytesIO(make_docx([("p", "本文")]))) as source:
        rels = source.read("word/_rels/document.xml.rels").replace(b"</Relationships>", IMAGE_REL + b"</Relationships>")
        types = source.read("[Content_Types].xml").replace(b"</Types>", PNG_TYPE + b"</Types>")
    return rewrite_docx({"word/_rels/document.xml.rels": rels, "[Content_Types].xml": types, IMAGE: image})


def docx_with_zero_image(size: int) -> bytes:
    return docx_with_image(zeros(size))


def docx_with_text(paragraphs: int, text: str) -> bytes:
    """A .docx whose body is ``paragraphs`` paragraphs of ``text``."""
    run = f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>".encode()

    def write(member: IO[bytes]) -> None:
        member.write(
            b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
        )
        for _ in range(paragraphs):
            member.write(run)
        member.write(b"</w:body></w:document>")

    return rewrite_docx({BODY: write})


def understate(archive: bytes, name: str, declared: int) -> bytes:
    """``archive`` with the central directory claiming ``name`` holds ``declared`` zero bytes (CRC to match).

    The compressed data is untouched, so the member really inflates to its old size.
    """
    data = bytearray(archive)
    at = data.find(b"PK\x01\x02")  # a central directory record: CRC at +16, sizes at +20 and +24, name at +46
    while at >= 0:
        name_length = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46 : at + 46 + name_length] == name.encode():
            struct.pack_into("<I", data, at + 16, zlib.crc32(bytes(declared)))
            struct.pack_into("<I", data, at + 24, declared)
            return bytes(data)
        at = data.find(b"PK\x01\x02", at + 4)
    raise AssertionError(f"{name} not in the central directory")


def pdf_with_zero_pages(pages: int, size: int) -> bytes:
    """A PDF whose ``pages`` pages each draw 「Hello」 then ``size`` bytes of spaces, each in its own Flate stream."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(pages)), pages),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i in range(pages):
        packer = zlib.compressobj(9)
        stream = packer.compress(b"BT /F1 12 Tf 72 700 Td (Hello) Tj ET\n")
        stream += b"".join(packer.compress(b" " * MIB) for _ in range(size // MIB)) + packer.flush()
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (5 + 2 * i)
        )
        objects.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(stream), stream))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


# --- memory, measured in a child process ------------------------------------------------------

# The peak is VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over
# exec, so a child of this (large) pytest process would report pytest's size.
CHILD = """
import json, re, sys
import docx, lxml.etree, pypdf  # every run pays for the same imports
from documents.parsing import ParseError, parse_file

data = open(sys.argv[1], "rb").read()
try:
    outcome = "ok:" + parse_file(sys.argv[2], data, max_chars=2_000_000).text
except ParseError as exc:
    outcome = exc.user_message
with open("/proc/self/status") as status:
    peak_kb = int(re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1))
print(json.dumps({"outcome": outcome, "peak_mb": peak_kb / 1024}))
"""


def parse_in_child(tmp_path: Path, name: str, data: bytes) -> tuple[str, float]:
    """What parsing ``data`` as ``name`` gives (``ok:<text>`` or the refusal), and the child's peak RSS in MB."""
    path = tmp_path / name
    path.write_bytes(data)
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), name],
        cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    report = json.loads(result.stdout)
    return report["outcome"], report["peak_mb"]


@pytest.fixture(scope="module")
def normal_peak_mb(tmp_path_factory: pytest.TempPathFactory) -> float:
    outcome, peak = parse_in_child(tmp_path_factory.mktemp("normal"), "normal.docx", make_docx([("p", "本文")]))
    assert outcome == "ok:本文"
    return peak


MEDIA_BOMB = 512 * MIB


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak memory is read from /proc (Linux)")
@pytest.mark.parametrize(
    ("name", "build", "expected"),
    [
        # The finding: a small upload whose image part is half a gigabyte of zeros.
        ("media-bomb.docx", lambda: docx_with_zero_image(MEDIA_BOMB), TOO_BIG.format(64)),
        # The same image, but the central directory says it is 1 KB: python-docx's
        # ZipFile.read would still inflate all of it before cutting it to 1 KB.
        ("lying-bomb.docx", lambda: understate(docx_with_zero_image(MEDIA_BOMB), IMAGE, 1024), "ok:本文"),
        # The finding: a ~200 KB .docx whose body holds 30 MB of text (tens of thousands of chunks).
        ("text-bomb.docx", lambda: docx_with_text(100_000, "就業規則の本文です。" * 10), TOO_COMPRESSED),
        # One page inflating to 256 MB: over the per-stream limit.
        ("stream-bomb.pdf", lambda: pdf_with_zero_pages(1, 256 * MIB), TOO_BIG.format(32)),
        # Twelve pages of 24 MB each: under the per-stream limit, but pypdf keeps them all.
        ("pages-bomb.pdf", lambda: pdf_with_zero_pages(12, 24 * MIB), TOO_BIG.format(128)),
    ],
    ids=["media", "lying-directory", "text", "pdf-stream", "pdf-pages"],
)
def test_bomb_is_handled_with_bounded_memory(
    tmp_path: Path, normal_peak_mb: float, name: str, build: Callable[[], bytes], expected: str
) -> None:
    data = build()
    assert len(data) < 2 * MIB  # small enough to pass any upload limit

    outcome, peak = parse_in_child(tmp_path, name, data)

    print(f"{name}: {len(data) / 1024:.0f} KB, peak {peak:.0f} MB (a small normal .docx: {normal_peak_mb:.0f} MB)")
    assert outcome == expected
    assert peak - normal_peak_mb < 100


# --- ZIP directory checks ---------------------------------------------------------------------


def test_member_under_the_size_limit_but_compressed_too_well_is_refused() -> None:
    error = _refusal("zeros.docx", docx_with_zero_image(8 * MIB))
    assert (error.code, error.user_message) == ("too_large", TOO_COMPRESSED)


def test_many_small_members_are_judged_together() -> None:
    # Each member is under the ratio floor; together they are 96 MB of zeros.
    data = rewrite_docx({f"word/media/image{i}.png": bytes(MIB) for i in range(96)})
    assert _refusal("spread.docx", data).user_message == TOO_COMPRESSED


def test_total_over_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents.inflation, "MAX_ZIP_TOTAL_BYTES", 2 * MIB)
    data = rewrite_docx({f"word/media/image{i}.jpeg": random.Random(i).randbytes(MIB) for i in range(3)})
    assert _refusal("photos.docx", data).user_message == TOO_BIG.format(2)


def test_too_many_members_are_refused() -> None:
    data = rewrite_docx({f"customXml/item{i}.xml": b"<x/>" for i in range(documents.inflation.MAX_ZIP_MEMBERS)})
    error = _refusal("parts.docx", data)
    assert error.user_message == "ファイル内の部品が多すぎるため、このファイルは受け付けられません（上限 1,000 個）"


def test_member_compressed_with_bzip2_is_refused_as_corrupt() -> None:
    # zipfile inflates bzip2 and LZMA without a bound per read; Word never writes them.
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(make_docx([("p", "本文")]))) as source, zipfile.ZipFile(out, "w") as target:
        for member in source.infolist():
            target.writestr(member.filename, source.read(member), compress_type=zipfile.ZIP_BZIP2)
    assert _refusal("bz2.docx", out.getvalue()).code == "corrupt_docx"


def test_a_docx_with_an_ordinary_image_still_parses() -> None:
    photo = random.Random(0).randbytes(4 * MIB)  # incompressible, like a real photo
    assert parse_file("photo.docx", docx_with_image(photo), max_chars=1000).text == "本文"


# --- the extracted-text cap -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "data"),
    [
        ("a.txt", ("就業規則の本文です。\n" * 50).encode()),
        ("a.md", ("# 規程\n" + "就業規則の本文です。\n" * 50).encode()),
        ("a.html", ("<h1>規程</h1>" + "<p>就業規則の本文です。</p>" * 50).encode()),
        ("a.pdf", make_pdf(["就業規則の本文です。" * 5] * 3)),
        ("a.docx", make_docx([("h1", "規程")] + [("p", "就業規則の本文です。")] * 50)),
    ],
    ids=["txt", "md", "html", "pdf", "docx"],
)
def test_text_longer_than_max_chars_is_refused_for_every_format(filename: str, data: bytes) -> None:
    length = len(parse_file(filename, data).text)

    assert len(parse_file(filename, data, max_chars=length).text) == length  # at the cap is fine
    error = _refusal(filename, data, max_chars=length - 1)
    assert (error.code, error.user_message) == ("too_large", TOO_MANY_CHARS.format(length - 1))


def test_docx_text_over_the_cap_is_refused_before_python_docx_builds_the_document(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import docx

    def must_not_run(*args: object) -> None:
        raise AssertionError("python-docx was asked to load a file already known to be too long")

    data = docx_with_text(1000, "就業規則の本文です。")  # 10,000 characters, ratio well under 100
    monkeypatch.setattr(docx, "Document", must_not_run)
    assert _refusal("long.docx", data, max_chars=5000).user_message == TOO_MANY_CHARS.format(5000)


def test_pdf_with_too_many_pages_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents.parsing, "MAX_PDF_PAGES", 2)
    error = _refusal("long.pdf", make_pdf(["1ページ目", "2ページ目", "3ページ目"]))
    assert error.user_message == "ページ数が上限（2 ページ）を超えています。ファイルを分割してアップロードしてください"


def _refusal(filename: str, data: bytes, **kwargs: object) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_file(filename, data, **kwargs)  # type: ignore[arg-type]
    return info.value


# --- through the upload path ------------------------------------------------------------------


def _upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


@pytest.mark.django_db
def test_bomb_upload_is_refused_on_the_page_and_stores_nothing(client: Client, owner) -> None:
    files_before = set(stored_files())
    client.force_login(owner)

    response = client.post("/documents/upload/", {"file": _upload("report.docx", docx_with_zero_image(128 * MIB))})

    assert response.status_code == 400
    assert TOO_BIG.format(64) in response.content.decode()
    assert not Document.objects.exists()
    assert not DocumentVersion.objects.exists()
    assert set(stored_files()) == files_before


@pytest.mark.django_db
def test_bomb_replacement_keeps_the_live_version_answering(client: Client, owner, travel) -> None:
    live = travel.live_version_id
    client.force_login(owner)

    response = client.post(
        f"/documents/{travel.pk}/versions/", {"file": _upload("travel.docx", docx_with_text(100_000, "日当" * 50))}
    )

    assert response.status_code == 400
    assert TOO_COMPRESSED in response.content.decode()
    travel.refresh_from_db()
    assert (travel.versions.count(), travel.live_version_id, travel.status) == (1, live, Document.Status.READY)
    assert any("2,000円" in h.text for h in search(user=owner, query="国内出張の日当はいくらですか").hits)


@pytest.mark.django_db
def test_upload_cap_on_extracted_text_comes_from_settings(client: Client, owner, settings) -> None:
    settings.RAG_MAX_EXTRACTED_CHARS = 1000
    client.force_login(owner)

    response = client.post("/documents/upload/", {"file": _upload("long.txt", ("あ" * 1001).encode())})

    assert response.status_code == 400
    assert TOO_MANY_CHARS.format(1000) in response.content.decode()
    assert not Document.objects.exists()
