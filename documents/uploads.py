"""How a large upload is received (``FILE_UPLOAD_HANDLERS``), before any form or serializer sees it.

Django streams an upload above ``FILE_UPLOAD_MAX_MEMORY_SIZE`` (2.5 MB) into a
temporary file named after the upload's extension. An extension of a few
hundred bytes (「a.あああ…」) made that name too long for the file system: an
``OSError`` and a 500 before the page or the API could refuse the name. Here
the temporary file gets a short suffix and the upload keeps its real name, so
``documents.filenames.clean_filename`` refuses it with its message like any other.
"""

from __future__ import annotations

import os
from typing import Any

from django.core.files.uploadedfile import TemporaryUploadedFile
from django.core.files.uploadhandler import TemporaryFileUploadHandler

# Longest extension kept in the temporary file's suffix: ".docx", ".html" and the like fit.
TEMPORARY_SUFFIX_CHARS = 16


class ShortTemporaryNameUploadHandler(TemporaryFileUploadHandler):
    """Django's handler for large uploads, with the temporary file's suffix cut to a safe length."""

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super(TemporaryFileUploadHandler, self).new_file(*args, **kwargs)
        stem, extension = os.path.splitext(self.file_name or "")
        self.file = TemporaryUploadedFile(
            stem + extension[:TEMPORARY_SUFFIX_CHARS], self.content_type, 0, self.charset, self.content_type_extra
        )
        self.file.name = self.file_name  # the name the uploader sent, to be judged by the form or serializer
