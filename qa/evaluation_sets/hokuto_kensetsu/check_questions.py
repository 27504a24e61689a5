#!/usr/bin/env python3
"""Validate the Hokuto Kensetsu evaluation set (questions.jsonl, docs/, groups.json).

Reads only files inside this folder. Exits 0 when every check passes, 1 otherwise.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
DOCS = ROOT / "docs"
QUESTIONS = ROOT / "questions.jsonl"
GROUPS = ROOT / "groups.json"

N_QUESTIONS = 60
N_DOCS = 16
MIN_BYTES = 60_000
MAX_BYTES = 95_000
FIELDS = ("qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split")
MIX: dict[str, int] = {
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
EXPECT: dict[str, str] = {
    "off_topic": "not_found",
    "too_short": "clarify",
    "restricted": "not_found",
}
ANSWER_KINDS = frozenset(k for k in MIX if k not in EXPECT)
KANA_EXTRA = frozenset("\u30fc\u3001\u3002\uff1f\uff01?! \u3000")  # long-vowel mark, punctuation, spaces


def normalise(text: str) -> str:
    """Apply NFKC, lower-case and remove all whitespace."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def is_hiragana_only(text: str) -> bool:
    """Return True when every character is hiragana (U+3041-U+309F) or a small set of marks."""
    return all("\u3041" <= ch <= "\u309f" or ch in KANA_EXTRA for ch in text)


def load_docs(errors: list[str]) -> dict[str, str]:
    """Load docs/*, checking count, extension and total size."""
    files = sorted(p for p in DOCS.iterdir() if p.is_file())
    if len(files) != N_DOCS:
        errors.append(f"docs/: expected {N_DOCS} files, found {len(files)}")
    docs: dict[str, str] = {}
    total = 0
    for path in files:
        if path.suffix != ".md":
            errors.append(f"docs/{path.name}: not a .md file")
        data = path.read_bytes()
        total += len(data)
        try:
            docs[path.name] = data.decode("utf-8")
        except UnicodeDecodeError:
            errors.append(f"docs/{path.name}: not valid UTF-8")
    if not MIN_BYTES <= total <= MAX_BYTES:
        errors.append(f"docs/: total {total} bytes outside {MIN_BYTES}-{MAX_BYTES}")
    print(f"docs: {len(files)} files, {total} bytes")
    return docs


def check_doc_styles(docs: dict[str, str], errors: list[str]) -> None:
    """Check the required mixture of Markdown styles across the documents."""
    joined = "\n".join(docs.values())
    html_tables = joined.count("<table>")
    rowspan_tables = sum(
        1 for block in re.findall(r"<table>.*?</table>", joined, flags=re.DOTALL) if "rowspan" in block
    )
    if html_tables < 4:
        errors.append(f"docs/: only {html_tables} HTML <table> blocks (need 4)")
    if rowspan_tables < 2:
        errors.append(f"docs/: only {rowspan_tables} HTML tables with rowspan (need 2)")
    hugo = [n for n, t in docs.items() if t.startswith("---\ntitle:") and "{{% notice tip %}}" in t]
    jekyll = [n for n, t in docs.items() if t.startswith("---\nlayout:") and "\npermalink:" in t]
    if not hugo:
        errors.append("docs/: no file with Hugo front matter and a notice tip shortcode")
    if not jekyll:
        errors.append("docs/: no file with Jekyll front matter (layout, permalink)")
    if not any("<details>" in t and "<summary>" in t for t in docs.values()):
        errors.append("docs/: no <details><summary> block")
    print(f"styles: {html_tables} HTML tables, {rowspan_tables} with rowspan, hugo={len(hugo)}, jekyll={len(jekyll)}")


def load_groups(docs: dict[str, str], errors: list[str]) -> str:
    """Load groups.json and return the managers-only file name ("" if invalid)."""
    try:
        groups: Any = json.loads(GROUPS.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        errors.append(f"groups.json: cannot read ({exc})")
        return ""
    if not isinstance(groups, dict) or len(groups) != 1:
        errors.append("groups.json: expected an object with exactly one entry")
        return ""
    name, value = next(iter(groups.items()))
    if name not in docs:
        errors.append(f"groups.json: {name!r} is not a file in docs/")
    if value != ["managers"]:
        errors.append(f"groups.json: groups for {name!r} should be ['managers']")
    print(f"groups: {name} -> {value}")
    return str(name)


def load_questions(errors: list[str]) -> list[dict[str, Any]]:
    """Parse questions.jsonl, checking line count, JSON validity and field names/types."""
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    if len(lines) != N_QUESTIONS:
        errors.append(f"questions.jsonl: expected {N_QUESTIONS} lines, found {len(lines)}")
    rows: list[dict[str, Any]] = []
    for no, line in enumerate(lines, 1):
        try:
            row: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {no}: invalid JSON ({exc})")
            continue
        if not isinstance(row, dict) or tuple(row) != FIELDS:
            errors.append(f"line {no}: fields must be exactly {FIELDS} in that order")
            continue
        if not all(isinstance(row[f], str) for f in FIELDS if f != "answers"):
            errors.append(f"line {no}: all fields except answers must be strings")
        if not isinstance(row["answers"], list) or not all(isinstance(a, str) for a in row["answers"]):
            errors.append(f"line {no}: answers must be a list of strings")
            continue
        rows.append(row)
    return rows


def check_order_and_mix(rows: list[dict[str, Any]], errors: list[str]) -> None:
    """Check qid order, the dev/held_out halves and the per-half kind mix."""
    half = N_QUESTIONS // 2
    for index, row in enumerate(rows):
        want_qid = f"hk-{index + 1:03d}"
        if row["qid"] != want_qid:
            errors.append(f"{row['qid']}: expected qid {want_qid}")
        want_split = "dev" if index < half else "held_out"
        if row["split"] != want_split:
            errors.append(f"{row['qid']}: split should be {want_split}")
    for split in ("dev", "held_out"):
        counts = Counter(str(r["kind"]) for r in rows if r["split"] == split)
        if counts != Counter(MIX):
            errors.append(f"{split}: kind mix {dict(counts)} differs from {MIX}")
        print(f"{split}: " + ", ".join(f"{k}={counts.get(k, 0)}" for k in MIX))


def check_language(row: dict[str, Any], errors: list[str]) -> None:
    """Check lang, kana-only and ASCII-only rules for one question."""
    qid, kind, text = row["qid"], row["kind"], row["question"]
    want_lang = "en" if kind == "english" else "ja"
    if row["lang"] != want_lang:
        errors.append(f"{qid}: lang should be {want_lang}")
    if not text.strip():
        errors.append(f"{qid}: empty question")
    if kind == "kana" and not is_hiragana_only(text):
        errors.append(f"{qid}: kana question contains non-hiragana characters")
    if kind == "english" and not text.isascii():
        errors.append(f"{qid}: english question is not ASCII")
    if kind not in ("english", "kana") and not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", text):
        errors.append(f"{qid}: Japanese question has no Japanese characters")


def check_gold(row: dict[str, Any], docs: dict[str, str], managers_doc: str, errors: list[str]) -> int:
    """Check expect, gold_doc_id and answers for one question; return how many answers occur in other docs."""
    qid, kind, gold, answers = row["qid"], row["kind"], row["gold_doc_id"], row["answers"]
    if kind not in MIX:
        errors.append(f"{qid}: unknown kind {kind!r}")
        return 0
    if row["expect"] != EXPECT.get(kind, "answer"):
        errors.append(f"{qid}: expect should be {EXPECT.get(kind, 'answer')!r}")
    if kind not in ANSWER_KINDS:
        want_gold = managers_doc if kind == "restricted" else ""
        if gold != want_gold:
            errors.append(f"{qid}: gold_doc_id should be {want_gold!r}")
        if answers:
            errors.append(f"{qid}: answers must be [] for kind {kind}")
        return 0
    if gold not in docs or gold == managers_doc:
        errors.append(f"{qid}: gold_doc_id {gold!r} is not a public file in docs/")
        return 0
    if not 1 <= len(answers) <= 3:
        errors.append(f"{qid}: needs 1-3 answers, has {len(answers)}")
    shared = 0
    for answer in answers:
        if not 3 <= len(answer) <= 20:
            errors.append(f"{qid}: answer {answer!r} must be 3-20 characters")
        if normalise(answer) not in normalise(docs[gold]):
            errors.append(f"{qid}: answer {answer!r} not found in {gold}")
        others = [n for n, t in docs.items() if n != gold and normalise(answer) in normalise(t)]
        if others:
            shared += 1
            print(f"  note {qid}: {answer!r} also occurs in {len(others)} other doc(s)")
    return shared


def main() -> int:
    """Run all checks and report."""
    errors: list[str] = []
    docs = load_docs(errors)
    check_doc_styles(docs, errors)
    managers_doc = load_groups(docs, errors)
    rows = load_questions(errors)
    check_order_and_mix(rows, errors)
    shared = 0
    for row in rows:
        check_language(row, errors)
        shared += check_gold(row, docs, managers_doc, errors)
    print(f"questions: {len(rows)} parsed; answer strings also found in another doc: {shared}")
    if errors:
        for error in errors:
            print(f"ERROR {error}")
        print(f"FAILED: {len(errors)} problem(s)")
        return 1
    print("OK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
