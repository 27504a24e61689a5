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
    if len(name.encode("utf-8")) > FILENAME_MAX_BYTES:
        raise ValidationError(
            _(
                "ファイル名が長すぎます。拡張子を含めて%(limit)dバイト（全角文字ならおよそ%(chars)d文字）までにしてください。"
            )
            % {"limit": FILENAME_MAX_BYTES, "chars": FILENAME_MAX_BYTES // 3},
            code="filename_too_long",
        )
    return name
