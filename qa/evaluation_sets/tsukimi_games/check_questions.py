#!/usr/bin/env python3
"""Validator for the Tsukimi Games evaluation set (standard library only).

Usage: python3 check_questions.py   (exits 0 when every check passes)
"""

from __future__ import annotations

import json
import os
import re
import sys
import unicodedata
from typing import Any

BASE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(BASE, "docs")
FIELDS = {"qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split"}
KIND_MIX = {
    "paraphrase": 10,
    "lexical": 4,
    "number": 4,
    "kana": 2,
    "english": 4,
    "table": 1,
    "off_topic": 3,
    "too_short": 1,
    "restricted": 1,
}
NO_ANSWER_KINDS = {"off_topic": "not_found", "too_short": "clarify", "restricted": "not_found"}
KANA_EXTRA = set("ー、。？！")
N_QUESTIONS, N_DOCS = 60, 15
MIN_BYTES, MAX_BYTES = 60000, 90000


def norm(text: str) -> str:
    """NFKC, lower-case, and remove all whitespace."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def load_questions(errors: list[str]) -> list[dict[str, Any]]:
    path = os.path.join(BASE, "questions.jsonl")
    rows: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as f:
        lines = [ln for ln in f.read().split("\n") if ln.strip()]
    if len(lines) != N_QUESTIONS:
        errors.append(f"questions.jsonl has {len(lines)} lines, expected {N_QUESTIONS}")
    for i, line in enumerate(lines, 1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            errors.append(f"line {i}: invalid JSON ({e})")
    return rows


def load_docs(errors: list[str]) -> dict[str, str]:
    docs: dict[str, str] = {}
    names = sorted(os.listdir(DOCS)) if os.path.isdir(DOCS) else []
    for name in names:
        with open(os.path.join(DOCS, name), "rb") as f:
            raw = f.read()
        try:
            docs[name] = raw.decode("utf-8")
        except UnicodeDecodeError:
            errors.append(f"doc {name}: not valid UTF-8")
            docs[name] = ""
    return docs


def check_docs(docs: dict[str, str], errors: list[str]) -> int:
    if len(docs) != N_DOCS:
        errors.append(f"docs/ has {len(docs)} files, expected {N_DOCS}")
    total = sum(len(t.encode("utf-8")) for t in docs.values())
    if not MIN_BYTES <= total <= MAX_BYTES:
        errors.append(f"docs total {total} bytes, expected {MIN_BYTES}-{MAX_BYTES}")
    exts = {os.path.splitext(n)[1] for n in docs}
    for ext in (".md", ".txt", ".html"):
        if ext not in exts:
            errors.append(f"no {ext} document in docs/")
    joined = "\n".join(docs.values())
    if joined.count("<table") < 2:
        errors.append("fewer than two HTML <table> blocks in docs/")
    if "rowspan" not in joined or "<br>" not in joined:
        errors.append("no HTML table with rowspan and <br> in docs/")
    if not any(len(t.encode("utf-8")) < 300 for t in docs.values()):
        errors.append("no nearly empty document (< 300 bytes) in docs/")
    return total


def check_groups(docs: dict[str, str], errors: list[str]) -> str | None:
    path = os.path.join(BASE, "groups.json")
    try:
        with open(path, encoding="utf-8") as f:
            groups = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        errors.append(f"groups.json unreadable: {e}")
        return None
    if not isinstance(groups, dict) or len(groups) != 1:
        errors.append("groups.json must map exactly one document to its groups")
        return None
    name, value = next(iter(groups.items()))
    if name not in docs:
        errors.append(f"groups.json names a missing document: {name}")
    if value != ["managers"]:
        errors.append(f"groups.json groups must be ['managers'], got {value}")
    return name


def check_fields(row: dict[str, Any], i: int, errors: list[str]) -> bool:
    if set(row) != FIELDS:
        errors.append(f"line {i}: fields {sorted(row)} differ from {sorted(FIELDS)}")
        return False
    for key in FIELDS - {"answers"}:
        if not isinstance(row[key], str):
            errors.append(f"line {i}: field {key} must be a string")
            return False
    if not isinstance(row["answers"], list) or not all(isinstance(a, str) for a in row["answers"]):
        errors.append(f"line {i}: answers must be a list of strings")
        return False
    return True


def check_order_and_split(rows: list[dict[str, Any]], errors: list[str]) -> None:
    half = N_QUESTIONS // 2
    for i, row in enumerate(rows, 1):
        want_qid = f"tg-{i:03d}"
        if row.get("qid") != want_qid:
            errors.append(f"line {i}: qid {row.get('qid')!r}, expected {want_qid}")
        want_split = "dev" if i <= half else "held_out"
        if row.get("split") != want_split:
            errors.append(f"{want_qid}: split {row.get('split')!r}, expected {want_split}")


def check_kind_mix(rows: list[dict[str, Any]], errors: list[str]) -> None:
    for split in ("dev", "held_out"):
        counts: dict[str | None, int] = {}
        for row in rows:
            if row.get("split") == split:
                counts[row.get("kind")] = counts.get(row.get("kind"), 0) + 1
        if counts != KIND_MIX:
            errors.append(f"{split}: kind mix {counts} differs from {KIND_MIX}")


def check_expect_lang(row: dict[str, Any], errors: list[str]) -> None:
    qid, kind = row["qid"], row["kind"]
    want_expect = NO_ANSWER_KINDS.get(kind, "answer")
    if row["expect"] != want_expect:
        errors.append(f"{qid}: expect {row['expect']!r}, expected {want_expect!r}")
    want_lang = "en" if kind == "english" else "ja"
    if row["lang"] != want_lang:
        errors.append(f"{qid}: lang {row['lang']!r}, expected {want_lang!r}")


def check_gold(row: dict[str, Any], docs: dict[str, str], restricted: str | None, errors: list[str]) -> None:
    qid, kind, gold = row["qid"], row["kind"], row["gold_doc_id"]
    if kind in ("off_topic", "too_short"):
        if gold != "":
            errors.append(f"{qid}: {kind} must have an empty gold_doc_id")
    elif kind == "restricted":
        if gold != restricted:
            errors.append(f"{qid}: restricted gold must be the managers-only document")
    elif gold not in docs:
        errors.append(f"{qid}: gold_doc_id {gold!r} is not a file in docs/")
    elif gold == restricted:
        errors.append(f"{qid}: answerable question must not use the restricted document")


def check_answers(row: dict[str, Any], docs: dict[str, str], errors: list[str]) -> None:
    qid, kind, answers = row["qid"], row["kind"], row["answers"]
    if kind in NO_ANSWER_KINDS:
        if answers:
            errors.append(f"{qid}: {kind} must have no answers")
        return
    if not 1 <= len(answers) <= 3:
        errors.append(f"{qid}: {len(answers)} answers, expected 1-3")
    doc_norm = norm(docs.get(row["gold_doc_id"], ""))
    for ans in answers:
        if not 3 <= len(ans) <= 20:
            errors.append(f"{qid}: answer {ans!r} has {len(ans)} characters, expected 3-20")
        if "**" in ans:
            errors.append(f"{qid}: answer {ans!r} contains Markdown markup")
        if norm(ans) not in doc_norm:
            errors.append(f"{qid}: answer {ans!r} not found in normalised gold document")


def is_hiragana_only(text: str) -> bool:
    for ch in text:
        if "\u3041" <= ch <= "\u309f" or ch in KANA_EXTRA:
            continue
        return False
    return True


def check_script(row: dict[str, Any], errors: list[str]) -> None:
    qid, kind, q = row["qid"], row["kind"], row["question"]
    if not q.strip():
        errors.append(f"{qid}: empty question")
    if kind == "kana" and not is_hiragana_only(q):
        errors.append(f"{qid}: kana question must be hiragana only")
    if kind == "english" and not q.isascii():
        errors.append(f"{qid}: english question must be ASCII only")
    if kind != "english" and q.isascii():
        errors.append(f"{qid}: Japanese-kind question is pure ASCII")


def check_duplicates(rows: list[dict[str, Any]], errors: list[str]) -> None:
    seen: dict[str, str | None] = {}
    for row in rows:
        key = norm(row.get("question", ""))
        if key in seen:
            errors.append(f"{row.get('qid')}: duplicate of {seen[key]}")
        seen[key] = row.get("qid")


def main() -> int:
    errors: list[str] = []
    docs = load_docs(errors)
    total = check_docs(docs, errors)
    restricted = check_groups(docs, errors)
    rows = load_questions(errors)
    good = [r for i, r in enumerate(rows, 1) if check_fields(r, i, errors)]
    if len(good) == len(rows):
        check_order_and_split(rows, errors)
        check_kind_mix(rows, errors)
        check_duplicates(rows, errors)
        for row in rows:
            check_expect_lang(row, errors)
            check_gold(row, docs, restricted, errors)
            check_answers(row, docs, errors)
            check_script(row, errors)
    for e in errors:
        print("FAIL:", e)
    print(f"{len(rows)} questions, {len(docs)} documents, {total} bytes in docs/, restricted: {restricted}")
    print("OK: all checks passed" if not errors else f"{len(errors)} problem(s) found")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
