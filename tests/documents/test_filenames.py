"""The file-name rule (documents/filenames.py), without the database."""

from __future__ import annotations

import unicodedata

import pytest
from django.core.exceptions import ValidationError

from documents.filenames import FILENAME_MAX_BYTES, clean_filename, normalize_filename
from tests.documents.conftest import GA_NFC, GA_NFD, LONG_NAME


def test_nfd_and_nfc_spellings_become_one_name():
    assert GA_NFD != GA_NFC
    assert unicodedata.normalize("NFC", GA_NFD) == GA_NFC
    assert clean_filename(GA_NFD) == clean_filename(GA_NFC) == GA_NFC
    assert normalize_filename(GA_NFD) == GA_NFC


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("travel.md", "travel.md"),
        ("  travel.md  ", "travel.md"),
        ("C:\\Users\\me\\travel.md", "travel.md"),
        ("../../etc/travel.md", "travel.md"),
        ("規程/就業規則.md", "就業規則.md"),
    ],
)
def test_only_the_last_path_component_counts(raw, expected):
    assert clean_filename(raw) == expected


@pytest.mark.parametrize("raw", ["", "   ", ".", "..", "a/..", "dir/ "])
def test_empty_or_dot_names_are_refused(raw):
    with pytest.raises(ValidationError) as caught:
        clean_filename(raw)
    assert caught.value.code == "bad_filename"


def test_a_name_longer_than_the_limit_in_bytes_is_refused_with_a_japanese_message():
    assert len(LONG_NAME) == 103 and len(LONG_NAME.encode()) == 303  # short in characters, long in bytes
    with pytest.raises(ValidationError) as caught:
        clean_filename(LONG_NAME)
    assert caught.value.code == "filename_too_long"
    assert "ファイル名が長すぎます" in caught.value.messages[0]
    assert f"{FILENAME_MAX_BYTES}バイト" in caught.value.messages[0]


def test_the_limit_is_inclusive_and_counted_after_normalising():
    at_limit = "あ" * 65 + ".md" + "x" * 2  # 195 + 5 = 200 bytes
    assert len(at_limit.encode()) == FILENAME_MAX_BYTES
    assert clean_filename(at_limit) == at_limit
    with pytest.raises(ValidationError):
        clean_filename(at_limit + "x")
    # 66 decomposed 「ガ」 are 396 bytes, but 198 once composed (+ ".md" = 201: still one too many).
    with pytest.raises(ValidationError):
        clean_filename("\u30ab\u3099" * 66 + ".md")
    assert clean_filename("\u30ab\u3099" * 65 + ".md") == "\u30ac" * 65 + ".md"
