#!/usr/bin/env python3
"""Validator for the Kazami Systems evaluation set (standard library only).

Usage: python3 check_questions.py   (run from any directory)
Exits 0 when every check passes, 1 otherwise.
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
PFX = "kz"
N_QUESTIONS = 60
N_DOCS = 15
SIZE_MIN, SIZE_MAX = 60_000, 90_000
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
ANSWER_KINDS = {"paraphrase", "lexical", "number", "kana", "english", "table"}
EXPECT = {k: "answer" for k in ANSWER_KINDS}
EXPECT.update({"off_topic": "not_found", "restricted": "not_found", "too_short": "clarify"})
KANA_OK = re.compile(r"^[\u3041-\u3096\u30fc、。？！?!\s]+$")
HIRAGANA = re.compile(r"[\u3041-\u3096]")

errors: list[str] = []


def err(msg: str) -> None:
    errors.append(msg)


def norm(text: str) -> str:
    """NFKC, lower-case, and remove every whitespace character."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def load_questions() -> list[dict[str, Any]]:
    path = ROOT / "questions.jsonl"
    rows: list[dict[str, Any]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    if len(lines) != N_QUESTIONS:
        err(f"questions.jsonl has {len(lines)} lines, expected {N_QUESTIONS}")
    for no, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            err(f"line {no}: invalid JSON ({exc})")
            continue
        if not isinstance(obj, dict):
            err(f"line {no}: not a JSON object")
            continue
        rows.append(obj)
    return rows


def load_docs() -> tuple[dict[str, str], dict[str, int]]:
    files = sorted(p for p in DOCS.iterdir() if p.is_file())
    docs = {p.name: p.read_text(encoding="utf-8") for p in files}
    return docs, {p.name: p.stat().st_size for p in files}


def load_groups(docs: dict[str, str]) -> str:
    groups = json.loads((ROOT / "groups.json").read_text(encoding="utf-8"))
    if not isinstance(groups, dict) or len(groups) != 1:
        err("groups.json must map exactly one document to its groups")
        return ""
    name: str
    value: Any
    name, value = next(iter(groups.items()))
    if name not in docs:
        err(f"groups.json names a missing document: {name}")
    if value != ["managers"]:
        err(f'groups.json: groups for {name} must be ["managers"], got {value}')
    if "管理職" not in name:
        err(f"restricted document name does not show it is for managers: {name}")
    return name


def check_docs(docs: dict[str, str], sizes: dict[str, int]) -> int:
    if len(docs) != N_DOCS:
        err(f"docs/ holds {len(docs)} files, expected {N_DOCS}")
    total = sum(sizes.values())
    if not SIZE_MIN <= total <= SIZE_MAX:
        err(f"docs/ total size {total} bytes outside {SIZE_MIN}-{SIZE_MAX}")
    exts = {Path(n).suffix for n in docs}
    for ext in (".md", ".html", ".txt"):
        if ext not in exts:
            err(f"no document with extension {ext}")
    every = "\n".join(docs.values())
    if len(re.findall(r"<table", every)) < 2:
        err("fewer than two HTML <table> blocks in the documents")
    if "rowspan" not in every:
        err("no HTML table with rowspan")
    if not any(s < 500 for s in sizes.values()):
        err("no nearly empty document (under 500 bytes)")
    if not re.search(r"第\d+条（", every):
        err("no 第N条（見出し） style article")
    return total


def check_fields(row: dict[str, Any], idx: int) -> bool:
    qid = f"{PFX}-{idx:03d}"
    if set(row) != FIELDS:
        err(f"{qid}: fields {sorted(row)} differ from {sorted(FIELDS)}")
        return False
    for key in FIELDS - {"answers"}:
        if not isinstance(row[key], str):
            err(f"{qid}: field {key} must be a string")
            return False
    answers = row["answers"]
    if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        err(f"{qid}: answers must be a list of strings")
        return False
    if row["qid"] != qid:
        err(f"line {idx}: qid {row['qid']} out of order, expected {qid}")
    split = "dev" if idx <= N_QUESTIONS // 2 else "held_out"
    if row["split"] != split:
        err(f"{qid}: split {row['split']}, expected {split}")
    return True


def check_kind_rules(row: dict[str, Any]) -> None:
    qid, kind, q = row["qid"], row["kind"], row["question"]
    if kind not in HALF_MIX:
        err(f"{qid}: unknown kind {kind}")
        return
    if row["expect"] != EXPECT[kind]:
        err(f"{qid}: expect {row['expect']}, expected {EXPECT[kind]} for {kind}")
    lang = "en" if kind == "english" else "ja"
    if row["lang"] != lang:
        err(f"{qid}: lang {row['lang']}, expected {lang} for {kind}")
    if kind == "kana" and not (KANA_OK.match(q) and HIRAGANA.search(q)):
        err(f"{qid}: kana question is not hiragana only: {q}")
    if kind == "english" and not (q.isascii() and re.search(r"[A-Za-z]", q)):
        err(f"{qid}: english question is not ASCII-only English: {q}")
    if kind != "english" and not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", q):
        err(f"{qid}: Japanese question has no Japanese characters")
    if not q.strip():
        err(f"{qid}: empty question")


def table_text(doc: str) -> str:
    """Text of every pipe-table row and every HTML <table> block of a document."""
    rows = [ln for ln in doc.splitlines() if ln.strip().startswith("|")]
    blocks = re.findall(r"<table.*?</table>", doc, flags=re.S | re.I)
    return norm("\n".join(rows + blocks))


def check_gold(row: dict[str, Any], docs: dict[str, str], restricted: str) -> None:
    qid, kind, gold, answers = row["qid"], row["kind"], row["gold_doc_id"], row["answers"]
    if kind in ("off_topic", "too_short"):
        if gold != "" or answers:
            err(f"{qid}: {kind} must have empty gold_doc_id and no answers")
        return
    if kind == "restricted":
        if gold != restricted or answers:
            err(f"{qid}: restricted must name {restricted} and have no answers")
        return
    if gold not in docs:
        err(f"{qid}: gold_doc_id not in docs/: {gold}")
        return
    if gold == restricted:
        err(f"{qid}: an answerable question must not use the restricted document")
    if not 1 <= len(answers) <= 3:
        err(f"{qid}: {len(answers)} answers, expected 1-3")
    doc_n, q_n = norm(docs[gold]), norm(row["question"])
    tables = table_text(docs[gold]) if kind == "table" else ""
    for ans in answers:
        if not 3 <= len(ans) <= 20:
            err(f"{qid}: answer length {len(ans)} outside 3-20: {ans}")
        if "**" in ans or "`" in ans:
            err(f"{qid}: answer contains Markdown markup: {ans}")
        if norm(ans) not in doc_n:
            err(f"{qid}: answer not found in gold document: {ans}")
        if norm(ans) in q_n:
            err(f"{qid}: answer is given away by the question: {ans}")
        if kind == "table" and norm(ans) not in tables:
            err(f"{qid}: table answer not inside a table: {ans}")


def check_mix(rows: list[dict[str, Any]]) -> None:
    half = N_QUESTIONS // 2
    for name, part in (("dev", rows[:half]), ("held_out", rows[half:])):
        counts: dict[Any, int] = {}
        for row in part:
            counts[row.get("kind")] = counts.get(row.get("kind"), 0) + 1
        if counts != HALF_MIX:
            err(f"{name}: kind mix {counts} differs from {HALF_MIX}")
    seen: dict[str, Any] = {}
    for row in rows:
        key = norm(row.get("question", ""))
        if key in seen:
            err(f"{row.get('qid')}: duplicate of {seen[key]}")
        seen[key] = row.get("qid")


def main() -> int:
    docs, sizes = load_docs()
    total = check_docs(docs, sizes)
    restricted = load_groups(docs)
    rows = load_questions()
    good = [r for i, r in enumerate(rows, 1) if check_fields(r, i)]
    for row in good:
        check_kind_rules(row)
        check_gold(row, docs, restricted)
    if len(good) == len(rows) == N_QUESTIONS:
        check_mix(good)
    print(f"documents: {len(docs)} files, {total} bytes; restricted: {restricted}")
    print(f"questions: {len(rows)} lines, {len(good)} well-formed")
    for msg in errors:
        print("FAIL:", msg)
    if errors:
        print(f"{len(errors)} problem(s) found")
        return 1
    print("OK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
