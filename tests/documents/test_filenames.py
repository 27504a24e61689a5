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


# --- folders and the uniqueness key ------------------------------------------------------------

from documents.filenames import clean_folder, document_name, name_key  # noqa: E402


@pytest.mark.parametrize(
    ("folder", "expected"),
    [
        ("", ""),
        ("people-group/leave", "people-group/leave"),
        ("people-group\\leave\\", "people-group/leave"),
        (" 規程 / 就業 ", "規程/就業"),
        ("a//b", "a/b"),
        (GA_NFD, GA_NFC),
    ],
)
def test_a_folder_is_normalised_like_file_names(folder, expected):
    assert clean_folder(folder) == expected


@pytest.mark.parametrize("folder", ["../secret", "a/../../b", "/etc", "C:\\Users", "a/.git", ".hidden"])
def test_a_folder_may_not_climb_out_start_at_the_root_or_be_hidden(folder):
    with pytest.raises(ValidationError) as caught:
        clean_folder(folder)
    assert caught.value.code == "bad_folder"
    assert "フォルダ名が正しくありません" in caught.value.messages[0]


def test_a_document_name_is_the_folder_and_the_last_component_of_the_file_name():
    assert document_name("C:\\tmp\\_index.md", folder="people-group/leave") == "people-group/leave/_index.md"
    assert document_name("attendance.md") == "attendance.md"
    with pytest.raises(ValidationError) as caught:
        document_name("a.md", folder="/".join(["x" * 60] * 5))
    assert caught.value.code == "filename_too_long"


@pytest.mark.parametrize(
    ("one", "other"),
    [("ＧＵＩＤＥ.md", "guide.md"), ("ｶﾞｲﾄﾞ.md", "ガイド.md"), ("Guide.MD", "guide.md"), (GA_NFD, GA_NFC)],
)
def test_look_alike_names_have_one_key(one, other):
    assert one != other
    assert name_key(one) == name_key(other)


def test_names_that_differ_keep_different_keys():
    assert name_key("leave/_index.md") != name_key("benefits/_index.md")
    assert name_key("ガイド.md") != name_key("カイド.md")
