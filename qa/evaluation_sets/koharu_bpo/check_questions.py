#!/usr/bin/env python3
"""Validator for the こはるBPOサービス evaluation set (standard library only).

Usage: python3 check_questions.py   (run from anywhere; paths are relative to this file)
Exits 0 when every check passes, 1 otherwise.
"""

from __future__ import annotations

import json
import os
import re
import sys
import unicodedata
from collections import Counter
from typing import Any

BASE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(BASE, "docs")
PFX = "kh"
N_DOCS = 15
MIN_BYTES, MAX_BYTES = 60_000, 90_000
FIELDS = {"qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split"}
HALF_MIX = {
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
EXPECT = {"off_topic": "not_found", "too_short": "clarify", "restricted": "not_found"}
NO_ANSWER_KINDS = {"off_topic", "too_short", "restricted"}
KANA_OK = re.compile(r"^[\u3041-\u309f\u30fc、。？！?!\s]+$")


def norm(text: str) -> str:
    """NFKC, lower-case, drop all whitespace."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def load_docs(errors: list[str]) -> dict[str, str]:
    """Read every file in docs/ (any extension); check count and total size."""
    if not os.path.isdir(DOCS):
        errors.append("docs/ folder is missing")
        return {}
    docs: dict[str, str] = {}
    total = 0
    for name in sorted(os.listdir(DOCS)):
        path = os.path.join(DOCS, name)
        if not os.path.isfile(path):
            continue
        raw = open(path, "rb").read()
        total += len(raw)
        try:
            docs[name] = raw.decode("utf-8")
        except UnicodeDecodeError:
            errors.append(f"{name}: not UTF-8")
    if len(docs) != N_DOCS:
        errors.append(f"expected {N_DOCS} documents, found {len(docs)}")
    if not MIN_BYTES <= total <= MAX_BYTES:
        errors.append(f"documents total {total} bytes, outside {MIN_BYTES}-{MAX_BYTES}")
    print(f"documents: {len(docs)} files, {total} bytes")
    return docs


def load_groups(docs: dict[str, str], errors: list[str]) -> set[str]:
    """groups.json must map exactly one existing document to ["managers"]."""
    path = os.path.join(BASE, "groups.json")
    try:
        groups = json.load(open(path, encoding="utf-8"))
    except (OSError, ValueError) as exc:
        errors.append(f"groups.json unreadable: {exc}")
        return set()
    if not isinstance(groups, dict) or len(groups) != 1:
        errors.append("groups.json must hold exactly one entry")
        return set()
    for name, grp in groups.items():
        if name not in docs:
            errors.append(f"groups.json names a missing document: {name}")
        if grp != ["managers"]:
            errors.append(f"groups.json: {name} should map to ['managers']")
    return set(groups)


def load_questions(errors: list[str]) -> list[dict[str, Any]]:
    """Parse questions.jsonl; check line count, field set and field types."""
    path = os.path.join(BASE, "questions.jsonl")
    try:
        lines = [ln for ln in open(path, encoding="utf-8").read().split("\n") if ln.strip()]
    except OSError as exc:
        errors.append(f"questions.jsonl unreadable: {exc}")
        return []
    if len(lines) != 60:
        errors.append(f"expected 60 lines, found {len(lines)}")
    rows: list[dict[str, Any]] = []
    for no, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
        except ValueError as exc:
            errors.append(f"line {no}: invalid JSON ({exc})")
            continue
        if not isinstance(row, dict) or set(row) != FIELDS:
            errors.append(f"line {no}: fields must be exactly {sorted(FIELDS)}")
            continue
        for key in FIELDS - {"answers"}:
            if not isinstance(row[key], str):
                errors.append(f"line {no}: {key} must be a string")
        if not isinstance(row["answers"], list) or not all(isinstance(a, str) for a in row["answers"]):
            errors.append(f"line {no}: answers must be a list of strings")
            continue
        if not row["question"].strip():
            errors.append(f"line {no}: empty question")
        rows.append(row)
    return rows


def check_order_and_mix(rows: list[dict[str, Any]], errors: list[str]) -> None:
    """qid order, split halves and the per-half kind mix."""
    for i, row in enumerate(rows, 1):
        want = f"{PFX}-{i:03d}"
        if row["qid"] != want:
            errors.append(f"{row['qid']}: expected qid {want}")
        split = "dev" if i <= 30 else "held_out"
        if row["split"] != split:
            errors.append(f"{row['qid']}: split should be {split}")
    for split in ("dev", "held_out"):
        mix = Counter(r["kind"] for r in rows if r["split"] == split)
        if dict(mix) != HALF_MIX:
            errors.append(f"{split}: kind mix {dict(mix)} != {HALF_MIX}")


def check_kind_rules(row: dict[str, Any], errors: list[str]) -> None:
    """expect and lang per kind; script rules for kana and english."""
    qid, kind, q = row["qid"], row["kind"], row["question"]
    if kind not in HALF_MIX:
        errors.append(f"{qid}: unknown kind {kind}")
        return
    if row["expect"] != EXPECT.get(kind, "answer"):
        errors.append(f"{qid}: expect should be {EXPECT.get(kind, 'answer')}")
    if row["lang"] != ("en" if kind == "english" else "ja"):
        errors.append(f"{qid}: wrong lang {row['lang']} for kind {kind}")
    if kind == "kana" and not KANA_OK.match(q):
        errors.append(f"{qid}: kana question must be hiragana only")
    if kind == "english" and not q.isascii():
        errors.append(f"{qid}: english question must be ASCII only")
    if kind != "english" and not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", q):
        errors.append(f"{qid}: Japanese question has no Japanese characters")


def table_cells(text: str) -> list[str]:
    """Normalised contents of Markdown table rows and HTML <td>/<th> cells."""
    cells: list[str] = []
    for line in text.split("\n"):
        if line.strip().startswith("|"):
            cells += [norm(c) for c in line.strip().strip("|").split("|")]
    for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", text, flags=re.S):
        cells.append(norm(re.sub(r"<br\s*/?>", "", cell)))
    return cells


def check_gold(row: dict[str, Any], docs: dict[str, str], restricted: set[str], errors: list[str]) -> None:
    """Gold document and answer rules per kind."""
    qid, kind, gold, answers = row["qid"], row["kind"], row["gold_doc_id"], row["answers"]
    if kind in ("off_topic", "too_short"):
        if gold or answers:
            errors.append(f"{qid}: {kind} must have empty gold_doc_id and answers")
        return
    if kind == "restricted":
        if gold not in restricted or answers:
            errors.append(f"{qid}: restricted must point at the managers-only document, no answers")
        return
    if gold not in docs:
        errors.append(f"{qid}: gold_doc_id {gold!r} is not a document")
        return
    if gold in restricted:
        errors.append(f"{qid}: answerable question points at the restricted document")
    if not 1 <= len(answers) <= 3:
        errors.append(f"{qid}: needs 1-3 answers, has {len(answers)}")
    body, qnorm = norm(docs[gold]), norm(row["question"])
    for ans in answers:
        if not 3 <= len(ans) <= 20:
            errors.append(f"{qid}: answer {ans!r} length {len(ans)} not in 3-20")
        if "**" in ans:
            errors.append(f"{qid}: answer {ans!r} contains Markdown markup")
        if norm(ans) not in body:
            errors.append(f"{qid}: answer {ans!r} not found in {gold}")
        if norm(ans) in qnorm:
            errors.append(f"{qid}: answer {ans!r} is copied in the question")
    if kind == "table":
        cells = table_cells(docs[gold])
        if not any(norm(a) in c for a in answers for c in cells):
            errors.append(f"{qid}: no answer sits inside a table cell of {gold}")


def check_duplicates(rows: list[dict[str, Any]], errors: list[str]) -> None:
    """No two questions may be identical after normalisation."""
    seen: dict[str, str] = {}
    for row in rows:
        key = norm(row["question"])
        if key in seen:
            errors.append(f"{row['qid']}: duplicate of {seen[key]}")
        seen[key] = row["qid"]


def main() -> int:
    errors: list[str] = []
    docs = load_docs(errors)
    restricted = load_groups(docs, errors)
    rows = load_questions(errors)
    check_order_and_mix(rows, errors)
    for row in rows:
        check_kind_rules(row, errors)
        check_gold(row, docs, restricted, errors)
    check_duplicates(rows, errors)
    print(f"questions: {len(rows)}; kinds: {dict(Counter(r['kind'] for r in rows))}")
    if errors:
        for err in errors:
            print("FAIL:", err)
        print(f"{len(errors)} problem(s) found")
        return 1
    print("OK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
