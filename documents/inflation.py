"""How far an upload may inflate before a parser holds it in memory.

A .docx is a ZIP archive and a PDF is made of compressed streams; both can be
small on disk and enormous once inflated. A 1 MB .docx carrying a 1 GiB
zero-filled image took the server from 358 MB to 2.27 GB, because python-docx
reads every part a relationship points to; a 2 MB PDF whose thirty pages each
inflate to 70 MB took it to 2.2 GB, because pypdf keeps every stream it has
decoded. The checks here run before those parsers and hand them only what passed.

Pure module: no Django imports. Refusals are ``LimitExceededError``, which says
which limit was passed; ``documents.parsing`` words it for the uploader.
"""

from __future__ import annotations

import io
import shutil
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from pypdf import PdfReader

__all__ = [
    "MAX_PDF_DECODED_BYTES",
    "MAX_PDF_STREAM_BYTES",
    "MAX_ZIP_MEMBERS",
    "MAX_ZIP_MEMBER_BYTES",
    "MAX_ZIP_RATIO",
    "MAX_ZIP_TOTAL_BYTES",
    "ZIP_RATIO_FLOOR",
    "LimitExceededError",
    "bounded_zip_copy",
    "check_pdf_streams",
    "check_xml_text",
    "pdf_limits",
]

_MIB = 1024 * 1024
# Members are read in pieces of this size, so a read never inflates more than this at once.
_CHUNK = 64 * 1024

# ZIP (DOCX). A real Word file has a few dozen members; its XML parts compress
# about 10-30 times and its images hardly at all.
MAX_ZIP_MEMBERS = 1000
MAX_ZIP_MEMBER_BYTES = 64 * _MIB
MAX_ZIP_TOTAL_BYTES = 128 * _MIB
MAX_ZIP_RATIO = 100
# Parts smaller than this (styles, relationships, empty tables) may compress far
# better than MAX_ZIP_RATIO and cost nothing; the ratio is judged above it only.
ZIP_RATIO_FLOOR = 1 * _MIB

# PDF. Per stream (pypdf stops decoding there) and for all the streams text
# extraction may decode, together: pypdf caches each decoded stream for the
# reader's lifetime, so the total is what stays in memory.
MAX_PDF_STREAM_BYTES = 32 * _MIB
MAX_PDF_DECODED_BYTES = 128 * _MIB


class LimitExceededError(Exception):
    """An upload that passes one of the limits of this module (or a caller's).

    ``what`` is "members", "bytes", "ratio", "chars" or "pages"; ``limit`` is the
    limit that was passed, in that unit (a count, bytes, or inflated/compressed).
    """

    def __init__(self, what: str, limit: int) -> None:
        super().__init__(f"more {what} than {limit}")
        self.what = what
        self.limit = limit


# --- ZIP -------------------------------------------------------------------------------------


def bounded_zip_copy(data: bytes) -> bytes:
    """A copy of the ZIP archive ``data`` whose declared sizes are the true ones.

    First the central directory is checked, before anything is inflated:
    at most ``MAX_ZIP_MEMBERS`` members, none over ``MAX_ZIP_MEMBER_BYTES``, all
    together at most ``MAX_ZIP_TOTAL_BYTES``, and neither a member nor the whole
    inflating more than ``MAX_ZIP_RATIO`` times (above ``ZIP_RATIO_FLOOR``).
    Raises ``LimitExceededError`` for those, and ``zipfile.BadZipFile`` for a damaged
    archive, a duplicate member name, or a compression method other than stored
    and deflated (Word writes nothing else; zipfile inflates bzip2 and LZMA
    members without any bound on a single read).

    Why a copy: declared sizes can lie. zipfile stops a member at its declared
    size and checks the CRC, but ``ZipFile.read`` (python-docx's way in) inflates
    the whole compressed stream in one call before cutting it to that size, so a
    member declared as 1 KB that holds 1 GiB of zeros costs 1 GiB for a moment.
    Here every member is read in 64 KB pieces, which is bounded, and the copy
    holds exactly what those reads returned, so the parser's reads are bounded too.
    The copy is deflated again (fastest level), so it costs about what the upload does.
    """
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = archive.infolist()
        _check_zip_directory(members)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as copy:
            for member in members:
                if member.is_dir():
                    continue
                with archive.open(member) as source, copy.open(member.filename, "w") as target:
                    shutil.copyfileobj(source, target, _CHUNK)
    return out.getvalue()


def _check_zip_directory(members: list[zipfile.ZipInfo]) -> None:
    if len(members) > MAX_ZIP_MEMBERS:
        raise LimitExceededError("members", MAX_ZIP_MEMBERS)
    if len({m.filename for m in members}) != len(members):
        raise zipfile.BadZipFile("duplicate member names")
    total = total_compressed = 0
    for member in members:
        if member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise zipfile.BadZipFile(f"compression method {member.compress_type} of {member.filename!r}")
        if member.file_size > MAX_ZIP_MEMBER_BYTES:
            raise LimitExceededError("bytes", MAX_ZIP_MEMBER_BYTES)
        _check_ratio(member.file_size, member.compress_size)
        total += member.file_size
        total_compressed += member.compress_size
    if total > MAX_ZIP_TOTAL_BYTES:
        raise LimitExceededError("bytes", MAX_ZIP_TOTAL_BYTES)
    # Many members each under the floor add up: judge the whole as well.
    _check_ratio(total, total_compressed)


def _check_ratio(inflated: int, compressed: int) -> None:
    if inflated > ZIP_RATIO_FLOOR and inflated > MAX_ZIP_RATIO * compressed:
        raise LimitExceededError("ratio", MAX_ZIP_RATIO)


def check_xml_text(source: IO[bytes], *, tag: str, max_chars: int) -> None:
    """Raise ``LimitExceededError("chars")`` once the text of ``tag`` elements in the XML passes ``max_chars``.

    Reads ``source`` in pieces and drops each element once seen, so memory stays
    flat however large the XML is: a text bomb is refused before a parser builds
    its tree (a 33 MB document.xml costs python-docx 150 MB and half a minute).
    Malformed XML raises lxml's ``XMLSyntaxError``.
    """
    from lxml import etree

    parser = etree.XMLPullParser(events=("end",), resolve_entities=False, no_network=True)
    count = 0
    while chunk := source.read(_CHUNK):
        parser.feed(chunk)
        for _, element in parser.read_events():
            if element.tag == tag:
                count += len(element.text or "")
                if count > max_chars:
                    raise LimitExceededError("chars", max_chars)
            # Children were seen at their own end events; earlier siblings are done too.
            element.clear(keep_tail=True)
            while element.getprevious() is not None:
                del element.getparent()[0]
    parser.close()


# --- PDF -------------------------------------------------------------------------------------


@contextmanager
def pdf_limits() -> Iterator[None]:
    """pypdf's own limits, tightened to ``MAX_PDF_STREAM_BYTES``, for the code inside.

    pypdf reads its configuration from a context variable, so this applies to
    this thread (or task) only. Streams that pass a limit raise pypdf's
    ``LimitReachedError`` where they are decoded.
    """
    from pypdf import apply_configuration

    with apply_configuration(
        zlib_maximum_output_length=MAX_PDF_STREAM_BYTES,
        lzw_maximum_output_length=MAX_PDF_STREAM_BYTES,
        run_length_maximum_output_length=MAX_PDF_STREAM_BYTES,
        brotli_maximum_output_length=MAX_PDF_STREAM_BYTES,
        array_based_stream_maximum_output_length=MAX_PDF_STREAM_BYTES,
        stream_decoding_work_maximum_length=2 * MAX_PDF_STREAM_BYTES,
    ):
        yield


def check_pdf_streams(reader: PdfReader) -> None:
    """Raise ``LimitExceededError("bytes")`` if the PDF's streams inflate past the limits.

    Decodes every stream except images (text extraction never decodes those)
    one at a time without keeping the result, so at most one stream is inflated
    at once: over ``MAX_PDF_STREAM_BYTES`` for one, or ``MAX_PDF_DECODED_BYTES``
    for all, is refused. Call inside ``pdf_limits()``. Works on encrypted files
    (pypdf decrypts objects as it loads them). A stream that cannot be loaded or
    decoded is skipped: text extraction cannot inflate it either.
    """
    from pypdf.errors import LimitReachedError
    from pypdf.filters import decode_stream_data
    from pypdf.generic import EncodedStreamObject, IndirectObject

    total = 0
    for generation, offsets in list(reader.xref.items()):
        for number in list(offsets):
            try:
                stream = reader.get_object(IndirectObject(number, generation, reader))
                if not isinstance(stream, EncodedStreamObject) or stream.get("/Subtype") == "/Image":
                    continue
                total += len(decode_stream_data(stream))
            except LimitReachedError as exc:
                raise LimitExceededError("bytes", MAX_PDF_STREAM_BYTES) from exc
            except Exception:  # noqa: BLE001 - damaged or undecodable: see the docstring
                continue
            if total > MAX_PDF_DECODED_BYTES:
                raise LimitExceededError("bytes", MAX_PDF_DECODED_BYTES)
