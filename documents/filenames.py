"""The one rule for what a document's file name is: the name citations use and uniqueness compares.

Pure (no database): the ingest service, the upload form, the API serializer and
the import command all pass a raw name through :func:`clean_filename`, so they
store, compare and refuse names the same way.

- Only the last path component counts (a browser or a script may send a path).
- Unicode NFC: macOS and some browsers send 「ガ」 decomposed (カ + U+3099); both
  forms must be one name, or one document could be uploaded twice under
  names that look identical and a citation could name either.
- At most ``FILENAME_MAX_BYTES`` bytes of UTF-8: file systems limit one path
  component to 255 bytes (not characters), and the stored file keeps the name.
  The margin leaves room for the storage's own suffix when a name is taken.
"""

from __future__ import annotations

import unicodedata
from pathlib import PurePath

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

FILENAME_MAX_BYTES = 200


def normalize_filename(filename: str) -> str:
    """The last path component of ``filename``, in NFC, without surrounding whitespace.

    Never raises; use it to look a name up. :func:`clean_filename` also refuses bad names.
    """
    name = PurePath(filename.replace("\\", "/")).name
    return unicodedata.normalize("NFC", name).strip()


def clean_filename(filename: str) -> str:
    """The normalised name, or ``ValidationError`` (``bad_filename``, ``filename_too_long``) for the uploader."""
    name = normalize_filename(filename)
    if not name or name in {".", ".."}:
        raise ValidationError(_("ファイル名が正しくありません。"), code="bad_filename")
    _check_length(name)
    return name


def _check_length(name: str) -> None:
    """``ValidationError`` (``filename_too_long``) when one path component is longer than the file system allows."""
    if len(name.encode("utf-8")) > FILENAME_MAX_BYTES:
        raise ValidationError(
            _(
                "ファイル名が長すぎます。拡張子を含めて%(limit)dバイト（全角文字ならおよそ%(chars)d文字）までにしてください。"
            )
            % {"limit": FILENAME_MAX_BYTES, "chars": FILENAME_MAX_BYTES // 3},
            code="filename_too_long",
        )


# --- folders: a document's name is its path within the portal -------------------------------------

# The whole name (folders and file) fits the document's ``filename`` column.
DOCUMENT_NAME_MAX_CHARS = 255


def clean_folder(folder: str) -> str:
    """``folder`` as stored in a document's name (``people-group/leave``), or ``ValidationError`` (``bad_folder``).

    Forward or back slashes separate folders; each folder is NFC without
    surrounding whitespace, and empty parts (``a//b``, a trailing slash) are
    dropped. A folder may not climb out (``..``), stay in place (``.``), start
    at the root (``/etc``, ``C:``) or be hidden (``.git``): the name is what
    readers and citations see, never a place in the file system.
    """
    raw = folder.replace("\\", "/").strip()
    if not raw:
        return ""
    bad = ValidationError(
        _("フォルダ名が正しくありません（「..」や「/」で始まる名前、「.」で始まるフォルダは使えません）。"),
        code="bad_folder",
    )
    if raw.startswith("/") or (len(raw) >= 2 and raw[1] == ":"):
        raise bad
    parts = [unicodedata.normalize("NFC", part).strip() for part in raw.split("/")]
    parts = [part for part in parts if part]
    if any(part.startswith(".") for part in parts):
        raise bad
    for part in parts:
        _check_length(part)
    return "/".join(parts)


def document_name(filename: str, *, folder: str = "") -> str:
    """The name a document is stored and cited under: ``folder/file`` (just ``file`` at the top).

    ``filename`` goes through :func:`clean_filename` (only its last component
    counts), ``folder`` through :func:`clean_folder`; both raise ``ValidationError``.
    """
    name = clean_filename(filename)
    folder = clean_folder(folder)
    full = f"{folder}/{name}" if folder else name
    if len(full) > DOCUMENT_NAME_MAX_CHARS:
        raise ValidationError(
            _("フォルダとファイル名を合わせて%(limit)d文字までにしてください。") % {"limit": DOCUMENT_NAME_MAX_CHARS},
            code="filename_too_long",
        )
    return full


def split_document_name(name: str) -> tuple[str, str]:
    """``(folder, file name)`` of a stored document name; the folder is ``""`` at the top."""
    folder, _slash, filename = name.rpartition("/")
    return folder, filename


def name_key(name: str) -> str:
    """What two document names must differ in: NFKC and case-folded.

    Names that only look different (``ＧＵＩＤＥ.md`` and ``guide.md``,
    ``ｶﾞｲﾄﾞ.md`` and ``ガイド.md``) get one key, so they are one document: a
    reader cannot tell them apart in a footnote, and a citation compares names
    the same way (``verification.citations``).
    """
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
