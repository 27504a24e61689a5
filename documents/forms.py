"""Forms of the owner pages: upload a document, replace its file.

The forms check shape only (a file was sent, its name is usable, the groups
exist). Whether the file can become a document (type, size, encoding, text
layer, name collision) is ``documents.services.document_ingest``'s rule; its
``ValidationError`` is attached to the ``file`` field by the view, so the page,
the API and the import command all refuse the same files with the same message.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import UploadedFile
from django.utils.translation import gettext_lazy as _

from documents.filenames import clean_filename, clean_folder


def read_upload(uploaded: UploadedFile) -> bytes:
    """The bytes of an uploaded file, read at most one byte past ``RAG_MAX_UPLOAD_MB``.

    A larger file is returned truncated to limit + 1 bytes, which is enough for
    the ingest service to refuse it as too large without this process holding
    an arbitrarily large upload in memory.
    """
    limit = settings.RAG_MAX_UPLOAD_MB * 1024 * 1024
    uploaded.seek(0)
    return uploaded.read(limit + 1)


class _FileField(forms.FileField):
    """A file field that lets empty files through (the ingest service words that refusal).

    The file's name comes back as the ingest service will store it (NFC; see
    ``documents.filenames``), and a name it would refuse (too long) is refused
    here, before the upload is read.
    """

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("label", _("ファイル"))
        super().__init__(allow_empty_file=True, **kwargs)  # type: ignore[arg-type]

    def clean(self, data: object, initial: object = None) -> UploadedFile | None:
        uploaded = super().clean(data, initial)
        if uploaded:
            uploaded.name = clean_filename(uploaded.name)
        return uploaded


class DocumentUploadForm(forms.Form):
    """A new document: its file, an optional folder and title, and the groups allowed to read it (none = everyone)."""

    file = _FileField()
    folder = forms.CharField(
        label=_("フォルダ"),
        max_length=255,
        required=False,
        help_text=_("例: 人事/休暇。同じファイル名でもフォルダが違えば別の文書です。空欄なら最上位に置きます。"),
    )
    title = forms.CharField(
        label=_("タイトル"), max_length=255, required=False, help_text=_("空欄なら本文の最初の行を使います。")
    )
    groups = forms.ModelMultipleChoiceField(
        label=_("閲覧グループ"),
        queryset=Group.objects.order_by("name"),
        required=False,
        help_text=_("選ばなければ全社員が閲覧できます。"),
    )

    def clean_folder(self) -> str:
        """The folder as the document's name will hold it (``documents.filenames.clean_folder``)."""
        return clean_folder(self.cleaned_data["folder"])


class VersionUploadForm(forms.Form):
    """A new version of an existing document."""

    file = _FileField()
