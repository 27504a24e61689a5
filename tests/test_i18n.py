"""English UI through Django's translation machinery, and the health of the English catalogue.

The UI is written in Japanese (the msgids) and ``locale/en/LC_MESSAGES/django.po``
translates it. These tests check what a user sees after choosing English (the
language switch posts to ``/i18n/setlang/``; a browser's Accept-Language works too),
that Japanese stays the default, and that the catalogue is complete, matches the
strings currently in the code, and is compiled.

When code gains new UI strings, ``test_catalogue_covers_every_string_in_the_code``
fails until the catalogue is refreshed; the commands are in
``REFRESH_COMMANDS`` below.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.test.utils import override_settings

from qa.models import Answer, Conversation

PASSWORD = "correct-horse-battery"
BASE_DIR = Path(settings.BASE_DIR)
PO_PATH = BASE_DIR / "locale" / "en" / "LC_MESSAGES" / "django.po"
MO_PATH = PO_PATH.with_suffix(".mo")

# Paths makemessages must skip: tooling, data, tests and document corpora
# (their text is content, not UI). Keep in sync with REFRESH_COMMANDS.
MAKEMESSAGES_IGNORES = (
    ".venv",
    "var",
    "tests",
    ".hypothesis",
    ".ci",
    "documents/demo_corpus/*",
    "verification/labelled/*",
)
REFRESH_COMMANDS = (
    "DEBUG=1 RAGPORTAL_DATA_DIR=$(mktemp -d) .venv/bin/python manage.py makemessages -l en "
    + " ".join(f'--ignore="{p}"' for p in MAKEMESSAGES_IGNORES)
    + "\n# translate every new/empty msgstr in locale/en/LC_MESSAGES/django.po, drop '#, fuzzy', then:\n"
    "DEBUG=1 RAGPORTAL_DATA_DIR=$(mktemp -d) .venv/bin/python manage.py compilemessages -l en --ignore=.venv"
)


# --------------------------------------------------------------------------
# A small .po reader (polib is not a dependency)


@dataclass
class PoEntry:
    """One catalogue entry: msgid (and msgid_plural), its translations, flags."""

    msgid: str = ""
    msgid_plural: str | None = None
    msgstrs: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False


_KEYWORD = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+"(.*)"\s*$')
_CONTINUATION = re.compile(r'^"(.*)"\s*$')
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)


def read_po(path: Path) -> list[PoEntry]:
    """Entries of a .po file, header excluded; ``#~`` obsolete entries are marked, not dropped."""
    entries: list[PoEntry] = []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
        entry = PoEntry()
        current: str | None = None
        values: dict[str, str] = {}
        for raw in block.splitlines():
            line = raw
            if line.startswith("#~"):
                entry.obsolete = True
                line = line[2:].strip()
            if line.startswith("#,"):
                entry.flags.update(f.strip() for f in line[2:].split(","))
                continue
            if line.startswith("#"):
                continue
            if match := _KEYWORD.match(line):
                current = match.group(1)
                values[current] = _unescape(match.group(2))
            elif (match := _CONTINUATION.match(line)) and current:
                values[current] += _unescape(match.group(1))
        if "msgid" not in values or values["msgid"] == "":
            continue  # the header (or a trailing blank)
        entry.msgid = values["msgid"]
        entry.msgid_plural = values.get("msgid_plural")
        if entry.msgid_plural is None:
            entry.msgstrs = [values.get("msgstr", "")]
        else:
            entry.msgstrs = [v for k, v in sorted(values.items()) if k.startswith("msgstr[")]
        entries.append(entry)
    return entries


_PLACEHOLDER = re.compile(r"%\(\w+\)[sdif]|\{\w*\}")


def _placeholders(text: str) -> list[str]:
    return sorted(_PLACEHOLDER.findall(text))


# --------------------------------------------------------------------------
# Pages


def _logged_in_client(user: User) -> Client:
    client = Client()
    client.force_login(user)  # Client.login has no request, which django-axes needs
    return client


def _choose_english(client: Client) -> None:
    """Use the language switch in the header, as a user would."""
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 302
    assert response["Location"] == "/"


CHAT_EN_JA = [
    ("Past conversations", "過去の会話"),
    ("New conversation", "新しい会話"),
    ("Ask a question about internal documents. Answers come with their sources.",
     "社内文書について質問してください。回答には出典が付きます。"),
    ("e.g. How many days of paid leave do I get?", "例: 有給休暇は何日もらえますか？"),
    ("Writing the answer…", "回答を作成しています…"),
    (">Ask<", ">質問する<"),
    ("Log out", "ログアウト"),
]  # fmt: skip


@pytest.mark.django_db
def test_chat_page_is_japanese_by_default(employee: User) -> None:
    html = _logged_in_client(employee).get("/").content.decode()

    assert '<html lang="ja">' in html
    for english, japanese in CHAT_EN_JA:
        assert japanese in html
        assert english not in html


@pytest.mark.django_db
def test_language_switch_turns_the_chat_page_english(employee: User) -> None:
    client = _logged_in_client(employee)
    _choose_english(client)

    html = client.get("/").content.decode()

    assert '<html lang="en">' in html
    for english, japanese in CHAT_EN_JA:
        assert english in html
        assert japanese not in html
    # The choice sticks for later pages of the session, and can be switched back.
    assert "Past conversations" in client.get("/").content.decode()
    client.post("/i18n/setlang/", {"language": "ja", "next": "/"})
    assert "過去の会話" in client.get("/").content.decode()


@pytest.mark.django_db
def test_owner_navigation_and_documents_page_in_english(owner: User) -> None:
    client = _logged_in_client(owner)
    _choose_english(client)

    chat = client.get("/").content.decode()
    assert ">Documents</a>" in chat
    assert "文書管理" not in chat

    documents = client.get("/documents/").content.decode()
    assert "Upload a document" in documents
    assert "No documents yet." in documents
    assert "文書をアップロード" not in documents
    assert "まだ文書がありません。" not in documents


@pytest.mark.django_db
def test_answer_badges_labels_and_flag_warnings_in_english(employee: User) -> None:
    conversation = Conversation.objects.create(user=employee, title="有給休暇")
    Answer.objects.create(
        conversation=conversation,
        user=employee,
        question="有給休暇は何日もらえますか？",
        response_type=Answer.ResponseType.ANSWER,
        confidence=Answer.Confidence.LOW,
        answer_text="有給休暇は10日です。",
        flag_no_citation=True,  # no stored warning text: the page shows the flag's label
    )
    client = _logged_in_client(employee)
    _choose_english(client)

    html = client.get(f"/c/{conversation.pk}/").content.decode()

    assert "Confidence: low" in html
    assert "The answer does not cite any source" in html
    assert 'aria-label="Verification warnings"' in html
    assert 'title="Helpful"' in html and 'title="Not helpful"' in html
    assert "Send" in html
    for japanese in ("信頼度: 低", "回答に出典が含まれていません", "役に立った", "送信"):
        assert japanese not in html
    # The documents' and the user's own text is content, not UI: never translated.
    assert "有給休暇は10日です。" in html


@pytest.mark.django_db
def test_question_validation_error_in_english(employee: User) -> None:
    client = _logged_in_client(employee)
    _choose_english(client)

    response = client.post("/ask/", {"text": "   "})

    assert response.status_code == 400
    html = response.content.decode()
    assert "Please enter a question." in html
    assert "質問を入力してください。" not in html


@pytest.mark.django_db
def test_login_page_follows_accept_language() -> None:
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get("/accounts/login/").content.decode()
    japanese = Client().get("/accounts/login/").content.decode()

    assert '<html lang="en">' in english
    for text in ("Log in", "Username", "Password"):
        assert text in english
    for text in ("ログイン", "ユーザー名", "パスワード"):
        assert text not in english
        assert text in japanese
    assert '<html lang="ja">' in japanese


@pytest.mark.django_db
def test_failed_login_message_in_english(employee: User) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")

    response = client.post("/accounts/login/", {"username": "employee", "password": "wrong"})

    html = response.content.decode()
    assert "Incorrect username or password." in html
    assert "ユーザー名またはパスワードが正しくありません。" not in html


# --------------------------------------------------------------------------
# The catalogue


def test_every_catalogue_entry_is_translated_and_not_fuzzy() -> None:
    entries = [e for e in read_po(PO_PATH) if not e.obsolete]

    assert len(entries) > 100  # the reader saw the real catalogue, not an empty file
    untranslated = [e.msgid for e in entries if not e.msgstrs or not all(s.strip() for s in e.msgstrs)]
    fuzzy = [e.msgid for e in entries if "fuzzy" in e.flags]
    assert untranslated == []
    assert fuzzy == []


def test_translations_keep_every_placeholder() -> None:
    wrong = []
    for entry in read_po(PO_PATH):
        expected = _placeholders(entry.msgid)
        wrong.extend((entry.msgid, text) for text in entry.msgstrs if _placeholders(text) != expected)
    assert wrong == []


def test_product_terms_are_translated_consistently() -> None:
    translations = {e.msgid: e.msgstrs[0] for e in read_po(PO_PATH) if not e.obsolete}

    assert translations["文書"] == "Document"
    assert translations["出典"] == "Source"
    assert translations["引用"] == "Citation"
    assert translations["信頼度"] == "Confidence"
    assert translations["レビュー状態"] == "Review status"


def test_compiled_catalogue_matches_the_po(tmp_path: Path) -> None:
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("msgfmt (gettext) is not installed")
    fresh = tmp_path / "django.mo"
    # Same invocation as compilemessages, so an up-to-date .mo is byte-identical.
    subprocess.run([msgfmt, "--check-format", "-o", str(fresh), str(PO_PATH)], check=True, capture_output=True)

    assert MO_PATH.exists(), "locale/en/LC_MESSAGES/django.mo is missing; run compilemessages"
    assert MO_PATH.read_bytes() == fresh.read_bytes(), "django.mo is stale; run:\n" + REFRESH_COMMANDS


def _copy_sources(destination: Path) -> None:
    """Copy the project's translatable sources (what makemessages scans) into ``destination``."""
    skip_dirs = {".git", ".venv", "var", "tests", ".hypothesis", ".ci", "locale", "__pycache__", "node_modules"}
    skip_paths = {BASE_DIR / "documents" / "demo_corpus", BASE_DIR / "verification" / "labelled"}

    def ignore(directory: str, names: list[str]) -> list[str]:
        here = Path(directory)
        return [
            n
            for n in names
            if ((here / n).is_dir() and (n in skip_dirs or here / n in skip_paths))
            or ((here / n).is_file() and Path(n).suffix not in {".py", ".html", ".txt"})
        ]

    shutil.copytree(BASE_DIR, destination, ignore=ignore)


def test_catalogue_covers_every_string_in_the_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Extract the strings of the current code (on a copy, so the real catalogue is untouched)."""
    if shutil.which("xgettext") is None or shutil.which("msguniq") is None:
        pytest.skip("gettext tools are not installed")
    sources = tmp_path / "src"
    output = tmp_path / "out"
    _copy_sources(sources)
    monkeypatch.chdir(sources)
    with override_settings(LOCALE_PATHS=[str(output)]):
        call_command("makemessages", locale=["en"], ignore_patterns=list(MAKEMESSAGES_IGNORES), verbosity=0)

    in_code = {e.msgid for e in read_po(output / "en" / "LC_MESSAGES" / "django.po")}
    in_catalogue = {e.msgid for e in read_po(PO_PATH) if not e.obsolete}

    assert len(in_code) > 100  # extraction really ran over the project
    missing = sorted(in_code - in_catalogue)
    assert missing == [], "new UI strings are not in the catalogue; run:\n" + REFRESH_COMMANDS
