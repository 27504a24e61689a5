#!/usr/bin/env python3
"""Consistency checker for the maruyoshi_store evaluation set.

Reads only files inside this folder (docs/, questions.jsonl, groups.json).
Standard library only. Exit code 0 when every check passes, 1 otherwise.
"""

from __future__ import annotations

import html
import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Final

HERE: Final[Path] = Path(__file__).resolve().parent
DOCS: Final[Path] = HERE / "docs"
QUESTIONS: Final[Path] = HERE / "questions.jsonl"
GROUPS: Final[Path] = HERE / "groups.json"

FIELDS: Final[frozenset[str]] = frozenset(
    {"qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split"}
)
MIX: Final[dict[str, int]] = {
    "paraphrase": 10,
    "lexical": 4,
    "number": 4,
    "kana": 2,
    "english": 3,
    "table": 2,
    "off_topic": 3,
    "too_short": 1,
    "restricted": 1,
}
ANSWER_KINDS: Final[frozenset[str]] = frozenset({"paraphrase", "lexical", "number", "kana", "english", "table"})
EXPECT_BY_KIND: Final[dict[str, str]] = {
    **{k: "answer" for k in ANSWER_KINDS},
    "off_topic": "not_found",
    "too_short": "clarify",
    "restricted": "not_found",
}
FILE_MIX: Final[dict[str, int]] = {".md": 12, ".html": 2, ".txt": 1}
MIN_BYTES: Final[int] = 60_000
MAX_BYTES: Final[int] = 90_000
KANA_EXTRA: Final[frozenset[str]] = frozenset("ー？?、。！! 　")

TAG_RE: Final[re.Pattern[str]] = re.compile(r"<[^>]*>")
COMMENT_RE: Final[re.Pattern[str]] = re.compile(r"<!--.*?-->", re.DOTALL)
WS_RE: Final[re.Pattern[str]] = re.compile(r"\s+")


def normalise(text: str) -> str:
    """NFKC, lower-case, remove all whitespace."""
    return WS_RE.sub("", unicodedata.normalize("NFKC", text).lower())


def visible_text(path: Path) -> str:
    """Text a reader sees: HTML tags (whole .html files and HTML blocks in .md) removed."""
    raw = path.read_text(encoding="utf-8")
    if path.suffix in (".html", ".md"):
        raw = COMMENT_RE.sub(" ", raw)
        if path.suffix == ".html":
            raw = re.sub(r"<head>.*?</head>", " ", raw, flags=re.DOTALL | re.IGNORECASE)
        raw = TAG_RE.sub(" ", raw)
        raw = html.unescape(raw)
    return raw


def is_hiragana_only(text: str) -> bool:
    hira = 0
    for ch in text:
        if "\u3041" <= ch <= "\u309f":
            hira += 1
        elif ch not in KANA_EXTRA:
            return False
    return hira >= 5


class Checker:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.notes: list[str] = []

    def fail(self, msg: str) -> None:
        self.errors.append(msg)

    def check_docs(self) -> dict[str, str]:
        """Return {file name: normalised visible text}."""
        if not DOCS.is_dir():
            self.fail("docs/ folder is missing")
            return {}
        files = sorted(p for p in DOCS.iterdir() if p.is_file())
        if len(files) != 15:
            self.fail(f"docs/ holds {len(files)} files, expected 15")
        ext_count = Counter(p.suffix for p in files)
        for ext, n in FILE_MIX.items():
            if ext_count.get(ext, 0) != n:
                self.fail(f"docs/ holds {ext_count.get(ext, 0)} {ext} files, expected {n}")
        extra = set(ext_count) - set(FILE_MIX)
        if extra:
            self.fail(f"unexpected file types in docs/: {sorted(extra)}")
        total = sum(p.stat().st_size for p in files)
        if not MIN_BYTES <= total <= MAX_BYTES:
            self.fail(f"docs/ total {total} bytes, expected {MIN_BYTES}-{MAX_BYTES}")
        self.notes.append(f"docs: {len(files)} files, {dict(sorted(ext_count.items()))}, {total} bytes")

        texts: dict[str, str] = {}
        md_raw: list[str] = []
        for p in files:
            try:
                raw = p.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                self.fail(f"{p.name}: not valid UTF-8")
                continue
            self.check_format(p, raw)
            if p.suffix == ".md":
                md_raw.append(raw)
            texts[p.name] = normalise(visible_text(p))

        self.check_styles(md_raw)
        return texts

    def check_format(self, p: Path, raw: str) -> None:
        """The page structure an HTML page and the plain-text notice promise."""
        if p.suffix == ".html":
            for tag in (
                "<html",
                "<head>",
                "<title>",
                "</title>",
                "<body>",
                "<h1>",
                "<h2>",
                "<h3>",
                "<p>",
                "<ul>",
                "<table",
            ):
                if tag not in raw:
                    self.fail(f"{p.name}: HTML page lacks {tag}")
            if raw.count("<table") != 1:
                self.fail(f"{p.name}: expected exactly one <table>")
        if p.suffix == ".txt":
            if "【" not in raw or "・" not in raw:
                self.fail(f"{p.name}: notice should use 【】 headings and ・ bullets")
            if re.search(r"^\s*(#|\*\*|- |\|)", raw, flags=re.MULTILINE):
                self.fail(f"{p.name}: plain-text notice contains Markdown syntax")

    def check_styles(self, md_raw: list[str]) -> None:
        """Style features promised in the README, across the Markdown files."""
        md_tables = [t for raw in md_raw for t in re.findall(r"<table>.*?</table>", raw, flags=re.DOTALL)]
        full_tables = [t for t in md_tables if "<thead>" in t and "<tbody>" in t and "<br>" in t]
        if len(full_tables) < 3:
            self.fail(f"only {len(full_tables)} HTML tables with thead/tbody/br inside Markdown, need 3")
        if sum(1 for t in full_tables if "rowspan" in t) < 2:
            self.fail("fewer than 2 Markdown-embedded HTML tables use rowspan")
        if not any(
            raw.startswith("---\ntitle:") and "{{% notice warning %}}" in raw and "{{% /notice %}}" in raw
            for raw in md_raw
        ):
            self.fail("no Markdown file with Hugo front matter and a notice warning shortcode")
        if not any(raw.startswith("---\nlayout:") and "\npermalink:" in raw for raw in md_raw):
            self.fail("no Markdown file with Jekyll front matter (layout, permalink)")
        if not any("<details>" in raw and "<summary>" in raw and "\nQ:" in raw and "\nA:" in raw for raw in md_raw):
            self.fail("no FAQ file with Q:/A: lines and a <details><summary> block")
        if not any(re.search(r"^### 第\d+条（", raw, flags=re.MULTILINE) for raw in md_raw):
            self.fail("no articles written as ### 第N条（…） headings")
        if not any(re.search(r"^\*\*第\d+条（", raw, flags=re.MULTILINE) for raw in md_raw):
            self.fail("no articles written as bold lines")
        if not any(re.search(r"^第\d+条（", raw, flags=re.MULTILINE) for raw in md_raw):
            self.fail("no articles written as plain lines")

    def check_groups(self, texts: dict[str, str]) -> str:
        try:
            groups: object = json.loads(GROUPS.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            self.fail(f"groups.json unreadable: {exc}")
            return ""
        if not isinstance(groups, dict) or len(groups) != 1:
            self.fail("groups.json must be an object with exactly one entry")
            return ""
        name, value = next(iter(groups.items()))
        if not isinstance(name, str) or name not in texts:
            self.fail(f"groups.json names a missing file: {name!r}")
            return ""
        if value != ["managers"]:
            self.fail(f'groups.json value for {name} must be ["managers"]')
        self.notes.append(f"groups.json: {name} -> {value}")
        return name

    def check_questions(self, texts: dict[str, str], restricted_doc: str) -> None:
        try:
            lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            self.fail(f"questions.jsonl unreadable: {exc}")
            return
        if len(lines) != 60:
            self.fail(f"questions.jsonl has {len(lines)} lines, expected 60")
        mix: dict[str, Counter[str]] = {"dev": Counter(), "held_out": Counter()}
        seen_questions: set[str] = set()
        answers_checked = 0
        for i, line in enumerate(lines, start=1):
            answers_checked += self.check_line(i, line, texts, restricted_doc, mix, seen_questions)
        for split_name, counter in mix.items():
            for kind, n in MIX.items():
                if counter.get(kind, 0) != n:
                    self.fail(f"{split_name}: {counter.get(kind, 0)} {kind} questions, expected {n}")
            self.notes.append(f"{split_name}: {dict(sorted(counter.items()))}")
        self.notes.append(f"answer strings found in gold docs: {answers_checked}")

    def check_line(
        self,
        i: int,
        line: str,
        texts: dict[str, str],
        restricted_doc: str,
        mix: dict[str, Counter[str]],
        seen: set[str],
    ) -> int:
        """One question line's fields; returns how many of its answer strings were found in its gold document."""
        want_qid = f"my-{i:03d}"
        try:
            obj: object = json.loads(line)
        except json.JSONDecodeError as exc:
            self.fail(f"line {i}: invalid JSON ({exc})")
            return 0
        if not isinstance(obj, dict):
            self.fail(f"line {i}: not a JSON object")
            return 0
        if set(obj) != FIELDS:
            self.fail(f"line {i}: fields {sorted(obj)} != {sorted(FIELDS)}")
            return 0
        qid, question, gold = obj["qid"], obj["question"], obj["gold_doc_id"]
        answers, kind, lang = obj["answers"], obj["kind"], obj["lang"]
        expect, split = obj["expect"], obj["split"]
        if qid != want_qid:
            self.fail(f"line {i}: qid {qid!r}, expected {want_qid}")
        if not isinstance(question, str) or not question.strip():
            self.fail(f"{want_qid}: empty question")
            return 0
        if question in seen:
            self.fail(f"{want_qid}: duplicate question")
        seen.add(question)
        want_split = "dev" if i <= 30 else "held_out"
        if split != want_split:
            self.fail(f"{want_qid}: split {split!r}, expected {want_split}")
        if not isinstance(kind, str) or kind not in MIX:
            self.fail(f"{want_qid}: unknown kind {kind!r}")
            return 0
        if split in mix:
            mix[split][kind] += 1
        if expect != EXPECT_BY_KIND[kind]:
            self.fail(f"{want_qid}: expect {expect!r}, kind {kind} needs {EXPECT_BY_KIND[kind]!r}")
        want_lang = "en" if kind == "english" else "ja"
        if lang != want_lang:
            self.fail(f"{want_qid}: lang {lang!r}, expected {want_lang}")
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            self.fail(f"{want_qid}: answers must be a list of strings")
            return 0
        if not isinstance(gold, str):
            self.fail(f"{want_qid}: gold_doc_id must be a string")
            return 0
        if kind == "kana" and not is_hiragana_only(question):
            self.fail(f"{want_qid}: kana question is not hiragana-only")
        if kind == "english" and (not question.isascii() or not re.search(r"[A-Za-z]", question)):
            self.fail(f"{want_qid}: english question is not plain ASCII English")
        if kind != "english" and not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", question):
            self.fail(f"{want_qid}: Japanese question has no Japanese characters")

        return self.check_answers(want_qid, kind, gold, answers, texts, restricted_doc)

    def check_answers(
        self, want_qid: str, kind: str, gold: str, answers: list[str], texts: dict[str, str], restricted_doc: str
    ) -> int:
        """The answers and gold document a question's kind needs; returns how many answers were found."""
        found = 0
        if kind in ANSWER_KINDS:
            if gold not in texts:
                self.fail(f"{want_qid}: gold_doc_id {gold!r} not in docs/")
                return found
            if gold == restricted_doc:
                self.fail(f"{want_qid}: answerable question points at the managers-only file")
            if not 1 <= len(answers) <= 3:
                self.fail(f"{want_qid}: needs 1-3 answers, has {len(answers)}")
            for a in answers:
                if not 3 <= len(a) <= 20:
                    self.fail(f"{want_qid}: answer {a!r} length {len(a)} not in 3-20")
                na = normalise(a)
                if not na or na not in texts[gold]:
                    self.fail(f"{want_qid}: answer {a!r} not found in {gold}")
                else:
                    found += 1
        else:
            if answers:
                self.fail(f"{want_qid}: {kind} must have answers []")
            want_gold = restricted_doc if kind == "restricted" else ""
            if gold != want_gold:
                self.fail(f"{want_qid}: {kind} gold_doc_id {gold!r}, expected {want_gold!r}")

        return found

    def run(self) -> int:
        texts = self.check_docs()
        restricted_doc = self.check_groups(texts)
        self.check_questions(texts, restricted_doc)
        for note in self.notes:
            print(note)
        if self.errors:
            for err in self.errors:
                print(f"ERROR: {err}")
            print(f"FAILED: {len(self.errors)} problem(s)")
            return 1
        print("ALL CHECKS PASSED")
        return 0


def main() -> int:
    return Checker().run()


if __name__ == "__main__":
    sys.exit(main())
