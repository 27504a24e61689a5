#!/usr/bin/env python3
"""Validator for the 株式会社あさぎりホテルズ evaluation set (standard library only).

Usage: python3 check_questions.py   (run from any directory)
Exits 0 when every check passes, 1 otherwise, printing one line per problem.
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
PFX = "ag"
N_QUESTIONS = 60
N_DOCS = 15
MIN_BYTES, MAX_BYTES = 60000, 90000
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
EXPECT = {"off_topic": "not_found", "too_short": "clarify", "restricted": "not_found"}
NO_ANSWER_KINDS = {"off_topic", "too_short", "restricted"}
NO_GOLD_KINDS = {"off_topic", "too_short"}
HIRAGANA_OK = re.compile(r"^[\u3041-\u309f\u30fc、。？！?!・ 　]+$")


def norm(text: str) -> str:
    """NFKC, lower-case, drop all whitespace."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def load_docs(errors: list[str]) -> tuple[dict[str, str], int]:
    """Read every file in docs/ (any extension); check count, encoding and total size."""
    names = sorted(n for n in os.listdir(DOCS) if os.path.isfile(os.path.join(DOCS, n)))
    if len(names) != N_DOCS:
        errors.append(f"docs/: expected {N_DOCS} files, found {len(names)}")
    texts: dict[str, str] = {}
    total = 0
    for name in names:
        raw = open(os.path.join(DOCS, name), "rb").read()
        total += len(raw)
        try:
            texts[name] = raw.decode("utf-8")
        except UnicodeDecodeError:
            errors.append(f"docs/{name}: not valid UTF-8")
            texts[name] = raw.decode("utf-8", "replace")
    if not MIN_BYTES <= total <= MAX_BYTES:
        errors.append(f"docs/: total {total} bytes outside {MIN_BYTES}-{MAX_BYTES}")
    return texts, total


def check_doc_styles(texts: dict[str, str], errors: list[str]) -> None:
    """Formats and styles the brief asks for: md/txt/html mix, HTML tables, articles, FAQ, stub."""
    exts = [os.path.splitext(n)[1] for n in texts]
    if exts.count(".txt") != 1 or exts.count(".html") != 1:
        errors.append("docs/: need exactly one .txt and one .html file")
    joined = "\n".join(texts.values())
    if joined.count("<table") < 2:
        errors.append("docs/: fewer than two HTML <table> blocks")
    if "rowspan" not in joined or "<br>" not in joined:
        errors.append("docs/: no HTML table with rowspan and <br>")
    if not re.search(r"第\d+条（", joined):
        errors.append("docs/: no 第N条（見出し） articles")
    if "Q:" not in joined or "A:" not in joined:
        errors.append("docs/: no FAQ with Q:/A: lines")
    if not any(len(t.encode("utf-8")) < 400 for t in texts.values()):
        errors.append("docs/: no nearly empty document")


def load_groups(texts: dict[str, str], errors: list[str]) -> str:
    """groups.json must name exactly one existing document, restricted to managers."""
    path = os.path.join(BASE, "groups.json")
    try:
        groups = json.load(open(path, encoding="utf-8"))
    except (OSError, ValueError) as exc:
        errors.append(f"groups.json: cannot read ({exc})")
        return ""
    if not isinstance(groups, dict) or len(groups) != 1:
        errors.append("groups.json: must map exactly one document")
        return ""
    name: str
    name, roles = next(iter(groups.items()))
    if name not in texts:
        errors.append(f"groups.json: {name} is not a file in docs/")
    if roles != ["managers"]:
        errors.append('groups.json: roles must be ["managers"]')
    if "管理職限定" not in name:
        errors.append("groups.json: restricted file name should show 管理職限定")
    return name


def load_questions(errors: list[str]) -> list[dict[str, Any]]:
    """Parse questions.jsonl; check line count, field set and field types."""
    path = os.path.join(BASE, "questions.jsonl")
    lines = open(path, encoding="utf-8").read().splitlines()
    if len(lines) != N_QUESTIONS:
        errors.append(f"questions.jsonl: expected {N_QUESTIONS} lines, found {len(lines)}")
    items: list[dict[str, Any]] = []
    for i, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except ValueError as exc:
            errors.append(f"line {i}: invalid JSON ({exc})")
            continue
        if not isinstance(obj, dict) or set(obj) != FIELDS:
            errors.append(f"line {i}: field set must be {sorted(FIELDS)}")
            continue
        for key in FIELDS - {"answers"}:
            if not isinstance(obj[key], str):
                errors.append(f"line {i}: {key} must be a string")
        if not isinstance(obj["answers"], list) or not all(isinstance(a, str) for a in obj["answers"]):
            errors.append(f"line {i}: answers must be a list of strings")
            obj["answers"] = []
        items.append(obj)
    return items


def check_order_and_mix(items: list[dict[str, Any]], errors: list[str]) -> None:
    """qid order, dev/held_out halves, and the per-half kind mix."""
    half = N_QUESTIONS // 2
    for i, obj in enumerate(items, 1):
        if obj["qid"] != f"{PFX}-{i:03d}":
            errors.append(f"line {i}: qid {obj['qid']} should be {PFX}-{i:03d}")
        split = "dev" if i <= half else "held_out"
        if obj["split"] != split:
            errors.append(f"{obj['qid']}: split should be {split}")
    for split in ("dev", "held_out"):
        counts: dict[str, int] = {}
        for obj in items:
            if obj["split"] == split:
                counts[obj["kind"]] = counts.get(obj["kind"], 0) + 1
        if counts != KIND_MIX:
            errors.append(f"{split}: kind mix {counts} != {KIND_MIX}")


def check_text_rules(obj: dict[str, Any], errors: list[str]) -> None:
    """expect and lang per kind; hiragana-only kana, ASCII-only English."""
    qid, kind, q = obj["qid"], obj["kind"], obj["question"]
    if obj["expect"] != EXPECT.get(kind, "answer"):
        errors.append(f"{qid}: expect should be {EXPECT.get(kind, 'answer')}")
    lang = "en" if kind == "english" else "ja"
    if obj["lang"] != lang:
        errors.append(f"{qid}: lang should be {lang}")
    if kind == "kana" and not HIRAGANA_OK.match(q):
        errors.append(f"{qid}: kana question must be hiragana only")
    if kind == "english" and not q.isascii():
        errors.append(f"{qid}: english question must be ASCII only")
    if kind != "english" and q.isascii():
        errors.append(f"{qid}: Japanese question is ASCII only")
    if kind == "too_short" and len(q) > 8:
        errors.append(f"{qid}: too_short question is too long")
    if not q.strip():
        errors.append(f"{qid}: empty question")


def check_gold(obj: dict[str, Any], texts: dict[str, str], restricted: str, errors: list[str]) -> None:
    """Gold document rules per kind."""
    qid, kind, gold = obj["qid"], obj["kind"], obj["gold_doc_id"]
    if kind in NO_GOLD_KINDS:
        if gold != "":
            errors.append(f"{qid}: {kind} must have empty gold_doc_id")
    elif kind == "restricted":
        if gold != restricted:
            errors.append(f"{qid}: restricted gold must be the managers-only document")
    else:
        if gold not in texts:
            errors.append(f"{qid}: gold_doc_id {gold!r} is not a file in docs/")
        elif gold == restricted:
            errors.append(f"{qid}: answerable question points at the restricted document")


def table_cells(text: str) -> str:
    """Normalised text of every table line (pipe tables and HTML <td>/<th> lines)."""
    rows = [ln for ln in text.splitlines() if ln.lstrip().startswith("|") or "<td" in ln]
    return norm("\n".join(rows))


def check_answers(obj: dict[str, Any], texts: dict[str, str], errors: list[str]) -> None:
    """Answer count, length, markup, presence in the normalised gold document."""
    qid, kind, answers = obj["qid"], obj["kind"], obj["answers"]
    if kind in NO_ANSWER_KINDS:
        if answers:
            errors.append(f"{qid}: {kind} must have no answers")
        return
    if not 1 <= len(answers) <= 3:
        errors.append(f"{qid}: needs 1-3 answers, has {len(answers)}")
    gold_text = texts.get(obj["gold_doc_id"], "")
    doc, cells, question = norm(gold_text), table_cells(gold_text), norm(obj["question"])
    for ans in answers:
        if not 3 <= len(ans) <= 20 or not 3 <= len(norm(ans)) <= 20:
            errors.append(f"{qid}: answer {ans!r} must be 3-20 characters")
        if "**" in ans or "|" in ans or "<" in ans:
            errors.append(f"{qid}: answer {ans!r} contains markup")
        if norm(ans) not in doc:
            errors.append(f"{qid}: answer {ans!r} not found in {obj['gold_doc_id']}")
        if kind == "table" and norm(ans) not in cells:
            errors.append(f"{qid}: table answer {ans!r} is not inside a table row")
        if kind in ("paraphrase", "kana", "english") and norm(ans) in question:
            errors.append(f"{qid}: question contains its own answer {ans!r}")


def check_duplicates(items: list[dict[str, Any]], errors: list[str]) -> None:
    """No two questions may be identical after normalisation."""
    seen: dict[str, str] = {}
    for obj in items:
        key = norm(obj["question"])
        if key in seen:
            errors.append(f"{obj['qid']}: duplicate of {seen[key]}")
        seen[key] = obj["qid"]


def main() -> int:
    errors: list[str] = []
    texts, total = load_docs(errors)
    check_doc_styles(texts, errors)
    restricted = load_groups(texts, errors)
    items = load_questions(errors)
    check_order_and_mix(items, errors)
    for obj in items:
        check_text_rules(obj, errors)
        check_gold(obj, texts, restricted, errors)
        check_answers(obj, texts, errors)
    check_duplicates(items, errors)
    for err in errors:
        print("FAIL:", err)
    if errors:
        print(f"{len(errors)} problem(s) found")
        return 1
    print(f"OK: {len(items)} questions, {len(texts)} documents, {total} bytes, restricted document: {restricted}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
