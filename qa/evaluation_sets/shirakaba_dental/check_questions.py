#!/usr/bin/env python3
"""Validator for the Shirakaba Dental evaluation set (standard library only).

Usage: python3 check_questions.py   (run from any directory)
Exit status 0 when every check passes, 1 otherwise.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
DOCS = ROOT / "docs"
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
ANSWER_KINDS = {"paraphrase", "lexical", "number", "kana", "english", "table"}
EXPECT = {"off_topic": "not_found", "too_short": "clarify", "restricted": "not_found"}
DOC_EXTS = {".md", ".txt", ".html"}
TOTAL_BYTES = (60000, 90000)
KANA_RE = re.compile(r"^[\u3041-\u309f\u30fc]+$")


def norm(text: str) -> str:
    """NFKC, lower-case, drop all whitespace (applied to answers and documents)."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def load_questions(errors: list[str]) -> list[dict[str, Any]]:
    path = ROOT / "questions.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    if len(lines) != 60:
        errors.append(f"questions.jsonl has {len(lines)} lines, expected 60")
    rows: list[dict[str, Any]] = []
    for n, line in enumerate(lines, 1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            errors.append(f"line {n}: invalid JSON ({exc})")
    return rows


def check_fields(rows: list[dict[str, Any]], errors: list[str]) -> None:
    for n, r in enumerate(rows, 1):
        if set(r) != FIELDS:
            errors.append(f"line {n}: fields {sorted(r)} != {sorted(FIELDS)}")
            continue
        for key in FIELDS - {"answers"}:
            if not isinstance(r[key], str):
                errors.append(f"{r['qid']}: field {key} is not a string")
        if not isinstance(r["answers"], list) or not all(isinstance(a, str) for a in r["answers"]):
            errors.append(f"{r['qid']}: answers is not a list of strings")
        if not r["question"].strip():
            errors.append(f"{r['qid']}: empty question")


def check_order_and_split(rows: list[dict[str, Any]], errors: list[str]) -> None:
    for n, r in enumerate(rows, 1):
        if r.get("qid") != f"sd-{n:03d}":
            errors.append(f"line {n}: qid {r.get('qid')!r}, expected sd-{n:03d}")
        want = "dev" if n <= 30 else "held_out"
        if r.get("split") != want:
            errors.append(f"{r.get('qid')}: split {r.get('split')!r}, expected {want}")


def check_kind_mix(rows: list[dict[str, Any]], errors: list[str]) -> None:
    for split in ("dev", "held_out"):
        counts: dict[str | None, int] = {}
        for r in rows:
            if r.get("split") == split:
                counts[r.get("kind")] = counts.get(r.get("kind"), 0) + 1
        if counts != KIND_MIX:
            errors.append(f"{split}: kind mix {counts} != {KIND_MIX}")


def check_expect_lang(rows: list[dict[str, Any]], errors: list[str]) -> None:
    for r in rows:
        kind = r.get("kind")
        if kind not in KIND_MIX:
            errors.append(f"{r.get('qid')}: unknown kind {kind!r}")
            continue
        want_expect = EXPECT.get(kind, "answer")
        if r.get("expect") != want_expect:
            errors.append(f"{r['qid']}: expect {r.get('expect')!r}, expected {want_expect}")
        want_lang = "en" if kind == "english" else "ja"
        if r.get("lang") != want_lang:
            errors.append(f"{r['qid']}: lang {r.get('lang')!r}, expected {want_lang}")


def check_question_text(rows: list[dict[str, Any]], errors: list[str]) -> None:
    seen: dict[str, str | None] = {}
    for r in rows:
        q, qid = r.get("question", ""), r.get("qid")
        if r.get("kind") == "kana" and not KANA_RE.match(q):
            errors.append(f"{qid}: kana question is not hiragana only: {q}")
        if r.get("kind") == "english" and not q.isascii():
            errors.append(f"{qid}: english question is not ASCII only")
        if r.get("kind") != "english" and q.isascii():
            errors.append(f"{qid}: non-English question is pure ASCII")
        key = norm(q)
        if key in seen:
            errors.append(f"{qid}: duplicate of {seen[key]}")
        seen[key] = qid


def check_gold(rows: list[dict[str, Any]], docs: dict[str, str], restricted: set[str], errors: list[str]) -> None:
    for r in rows:
        kind, gold, qid = r.get("kind"), r.get("gold_doc_id"), r.get("qid")
        if kind in ANSWER_KINDS:
            if gold not in docs:
                errors.append(f"{qid}: gold_doc_id {gold!r} is not a file in docs/")
            elif gold in restricted:
                errors.append(f"{qid}: answerable question points at the restricted document")
        elif kind == "restricted":
            if gold not in restricted:
                errors.append(f"{qid}: restricted question must point at the restricted document")
        elif gold != "":
            errors.append(f"{qid}: {kind} question must have an empty gold_doc_id")


def check_answers(rows: list[dict[str, Any]], docs: dict[str, str], errors: list[str]) -> None:
    for r in rows:
        kind, qid, answers = r.get("kind"), r.get("qid"), r.get("answers", [])
        if kind not in ANSWER_KINDS:
            if answers:
                errors.append(f"{qid}: {kind} question must have no answers")
            continue
        if not 1 <= len(answers) <= 3:
            errors.append(f"{qid}: {len(answers)} answers, expected 1-3")
        text = docs.get(r["gold_doc_id"])
        for a in answers:
            if not 3 <= len(a) <= 20:
                errors.append(f"{qid}: answer {a!r} has {len(a)} characters (3-20)")
            if "**" in a:
                errors.append(f"{qid}: answer {a!r} contains Markdown markup")
            if text is not None and norm(a) not in text:
                errors.append(f"{qid}: answer {a!r} not found in {r.get('gold_doc_id')}")


def load_docs(errors: list[str]) -> dict[str, str]:
    files = sorted(p for p in DOCS.iterdir() if p.is_file())
    if len(files) != 15:
        errors.append(f"docs/ has {len(files)} files, expected 15")
    total = 0
    docs: dict[str, str] = {}
    for p in files:
        raw = p.read_bytes()
        total += len(raw)
        if p.suffix not in DOC_EXTS:
            errors.append(f"docs/{p.name}: unexpected extension")
        try:
            docs[p.name] = norm(raw.decode("utf-8"))
        except UnicodeDecodeError:
            errors.append(f"docs/{p.name}: not valid UTF-8")
    if not TOTAL_BYTES[0] <= total <= TOTAL_BYTES[1]:
        errors.append(f"docs/ total {total} bytes, outside {TOTAL_BYTES}")
    print(f"docs: {len(files)} files, {total} bytes")
    return docs


def load_groups(docs: dict[str, str], errors: list[str]) -> set[str]:
    groups = json.loads((ROOT / "groups.json").read_text(encoding="utf-8"))
    if not isinstance(groups, dict) or len(groups) != 1:
        errors.append("groups.json must map exactly one document to its groups")
        return set()
    for name, members in groups.items():
        if name not in docs:
            errors.append(f"groups.json names {name!r}, which is not in docs/")
        if members != ["managers"]:
            errors.append(f"groups.json: {name!r} groups {members} != ['managers']")
    return set(groups)


def main() -> int:
    errors: list[str] = []
    docs = load_docs(errors)
    restricted = load_groups(docs, errors)
    rows = load_questions(errors)
    check_fields(rows, errors)
    if not errors:
        check_order_and_split(rows, errors)
        check_kind_mix(rows, errors)
        check_expect_lang(rows, errors)
        check_question_text(rows, errors)
        check_gold(rows, docs, restricted, errors)
        check_answers(rows, docs, errors)
    for e in errors:
        print("FAIL:", e)
    print(f"questions: {len(rows)}; {'OK' if not errors else str(len(errors)) + ' problem(s)'}")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
