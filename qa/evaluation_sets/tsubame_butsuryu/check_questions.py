#!/usr/bin/env python3
"""Validator for the つばめ物流 evaluation set (questions.jsonl, docs/, groups.json).

Standard library only. Prints one line per failed check and exits 1 on any
failure, 0 when every check passes.
"""

from __future__ import annotations

import json
import os
import sys
import unicodedata
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "docs")
QFILE = os.path.join(HERE, "questions.jsonl")
GFILE = os.path.join(HERE, "groups.json")

PFX = "tb"
N_QUESTIONS = 60
N_DOCS = 15
MIN_BYTES, MAX_BYTES = 60000, 90000
NEAR_EMPTY_BYTES = 300  # a document below this size is "nearly empty"
FIELDS = {
    "qid": str,
    "question": str,
    "gold_doc_id": str,
    "answers": list,
    "kind": str,
    "lang": str,
    "expect": str,
    "split": str,
}
# kind -> (count per half, expect, lang)
KINDS = {
    "paraphrase": (10, "answer", "ja"),
    "lexical": (4, "answer", "ja"),
    "number": (4, "answer", "ja"),
    "kana": (2, "answer", "ja"),
    "english": (4, "answer", "en"),
    "table": (1, "answer", "ja"),
    "off_topic": (3, "not_found", "ja"),
    "too_short": (1, "clarify", "ja"),
    "restricted": (1, "not_found", "ja"),
}
NO_GOLD_KINDS = {"off_topic", "too_short"}
KANA_EXTRA = set("ー、。？！?! 　")


def norm(text: str) -> str:
    """NFKC, lower-case, and remove all whitespace."""
    text = unicodedata.normalize("NFKC", text).lower()
    return "".join(ch for ch in text if not ch.isspace())


def load_questions(errors: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with open(QFILE, encoding="utf-8") as f:
        lines = [ln for ln in f.read().split("\n") if ln.strip()]
    if len(lines) != N_QUESTIONS:
        errors.append(f"questions.jsonl has {len(lines)} lines, expected {N_QUESTIONS}")
    for i, line in enumerate(lines, 1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            errors.append(f"line {i}: invalid JSON ({exc})")
    return rows


def list_docs() -> dict[str, str]:
    names = sorted(n for n in os.listdir(DOCS) if os.path.isfile(os.path.join(DOCS, n)))
    return {n: open(os.path.join(DOCS, n), encoding="utf-8").read() for n in names}


def check_docs(docs: dict[str, str], errors: list[str]) -> int:
    if len(docs) != N_DOCS:
        errors.append(f"docs/ has {len(docs)} files, expected {N_DOCS} (all extensions count)")
    total = sum(os.path.getsize(os.path.join(DOCS, n)) for n in docs)
    if not MIN_BYTES <= total <= MAX_BYTES:
        errors.append(f"docs/ total {total} bytes, expected {MIN_BYTES}-{MAX_BYTES}")
    small = [n for n in docs if os.path.getsize(os.path.join(DOCS, n)) < NEAR_EMPTY_BYTES]
    if len(small) != 1:
        errors.append(f"expected exactly 1 nearly empty document, found {small}")
    return total


def check_groups(docs: dict[str, str], errors: list[str]) -> str:
    with open(GFILE, encoding="utf-8") as f:
        groups: Any = json.load(f)
    if not isinstance(groups, dict) or len(groups) != 1:
        errors.append("groups.json must map exactly one document to its groups")
        return ""
    name: str
    name, grp = next(iter(groups.items()))
    if name not in docs:
        errors.append(f"groups.json names a missing document: {name}")
    if grp != ["managers"]:
        errors.append(f"groups.json groups must be ['managers'], got {grp}")
    if "管理職" not in name:
        errors.append("restricted document's file name should show it is for managers")
    return name


def check_fields(rows: list[dict[str, Any]], errors: list[str]) -> None:
    for r in rows:
        qid = r.get("qid", "?")
        if set(r) != set(FIELDS):
            errors.append(f"{qid}: fields {sorted(r)} != {sorted(FIELDS)}")
            continue
        for key, typ in FIELDS.items():
            if not isinstance(r[key], typ):
                errors.append(f"{qid}: field {key} must be {typ.__name__}")
        if isinstance(r["answers"], list) and not all(isinstance(a, str) for a in r["answers"]):
            errors.append(f"{qid}: answers must be strings")


def check_order_and_split(rows: list[dict[str, Any]], errors: list[str]) -> None:
    half = N_QUESTIONS // 2
    for i, r in enumerate(rows, 1):
        want_qid = f"{PFX}-{i:03d}"
        if r.get("qid") != want_qid:
            errors.append(f"row {i}: qid {r.get('qid')} != {want_qid}")
        want_split = "dev" if i <= half else "held_out"
        if r.get("split") != want_split:
            errors.append(f"{want_qid}: split {r.get('split')} != {want_split}")


def check_kind_mix(rows: list[dict[str, Any]], errors: list[str]) -> None:
    for split in ("dev", "held_out"):
        counts: dict[object, int] = {}
        for r in rows:
            if r.get("split") == split:
                counts[r.get("kind")] = counts.get(r.get("kind"), 0) + 1
        want = {k: v[0] for k, v in KINDS.items()}
        if counts != want:
            errors.append(f"{split}: kind mix {counts} != {want}")


def check_expect_lang(rows: list[dict[str, Any]], errors: list[str]) -> None:
    for r in rows:
        kind = r.get("kind")
        if kind not in KINDS:
            errors.append(f"{r.get('qid')}: unknown kind {kind}")
            continue
        _, expect, lang = KINDS[kind]
        if r.get("expect") != expect:
            errors.append(f"{r['qid']}: expect {r.get('expect')} != {expect} for {kind}")
        if r.get("lang") != lang:
            errors.append(f"{r['qid']}: lang {r.get('lang')} != {lang} for {kind}")


def check_gold(rows: list[dict[str, Any]], docs: dict[str, str], restricted: str, errors: list[str]) -> None:
    near_empty = {n for n in docs if len(docs[n].encode("utf-8")) < NEAR_EMPTY_BYTES}
    for r in rows:
        qid, kind, gold = r.get("qid"), r.get("kind"), r.get("gold_doc_id")
        if kind in NO_GOLD_KINDS:
            if gold != "":
                errors.append(f"{qid}: {kind} must have empty gold_doc_id")
        elif kind == "restricted":
            if gold != restricted:
                errors.append(f"{qid}: restricted gold must be {restricted}")
        elif kind in KINDS:
            if gold not in docs:
                errors.append(f"{qid}: gold_doc_id not in docs/: {gold}")
            elif gold == restricted or gold in near_empty:
                errors.append(f"{qid}: answerable question points at restricted/empty doc")


def check_answers(rows: list[dict[str, Any]], docs: dict[str, str], errors: list[str]) -> None:
    normed: dict[object, str] = {n: norm(t) for n, t in docs.items()}
    for r in rows:
        qid, kind, answers = r.get("qid"), r.get("kind"), r.get("answers", [])
        if kind not in KINDS:
            continue
        if KINDS[kind][1] != "answer":
            if answers:
                errors.append(f"{qid}: {kind} must have no answers")
            continue
        if not 1 <= len(answers) <= 3:
            errors.append(f"{qid}: needs 1-3 answers, has {len(answers)}")
        for a in answers:
            if not 3 <= len(a) <= 20:
                errors.append(f"{qid}: answer length {len(a)} out of 3-20: {a}")
            if "**" in a:
                errors.append(f"{qid}: answer contains Markdown markup: {a}")
            if norm(a) not in normed.get(r.get("gold_doc_id"), ""):
                errors.append(f"{qid}: answer not in gold document: {a}")


def check_table_answers(rows: list[dict[str, Any]], docs: dict[str, str], errors: list[str]) -> None:
    """A table question's answer must sit on a table row (pipe row or <td>)."""
    for r in rows:
        if r.get("kind") != "table" or r.get("gold_doc_id") not in docs:
            continue
        lines = [norm(ln) for ln in docs[r["gold_doc_id"]].splitlines()]
        rows_only = [ln for ln in lines if ln.startswith("|") or "<td" in ln]
        if not any(norm(a) in ln for a in r.get("answers", []) for ln in rows_only):
            errors.append(f"{r.get('qid')}: table answer not found in a table row")


def is_kana_only(text: str) -> bool:
    has_hira = any("\u3041" <= ch <= "\u3096" for ch in text)
    ok = all("\u3041" <= ch <= "\u3096" or ch in KANA_EXTRA for ch in text)
    return has_hira and ok


def check_scripts(rows: list[dict[str, Any]], errors: list[str]) -> None:
    for r in rows:
        q, qid, kind = r.get("question", ""), r.get("qid"), r.get("kind")
        if kind == "kana" and not is_kana_only(q):
            errors.append(f"{qid}: kana question must be hiragana only: {q}")
        if kind == "english" and not (q.isascii() and any(c.isalpha() for c in q)):
            errors.append(f"{qid}: english question must be ASCII only: {q}")
        if kind != "english" and q.isascii():
            errors.append(f"{qid}: Japanese question is pure ASCII: {q}")
        if not q.strip():
            errors.append(f"{qid}: empty question")


def check_duplicates(rows: list[dict[str, Any]], errors: list[str]) -> None:
    seen: dict[str, object] = {}
    for r in rows:
        key = norm(r.get("question", ""))
        if key in seen:
            errors.append(f"{r.get('qid')}: duplicate of {seen[key]}")
        seen[key] = r.get("qid")


def main() -> int:
    errors: list[str] = []
    docs = list_docs()
    total = check_docs(docs, errors)
    restricted = check_groups(docs, errors)
    rows = load_questions(errors)
    check_fields(rows, errors)
    check_order_and_split(rows, errors)
    check_kind_mix(rows, errors)
    check_expect_lang(rows, errors)
    check_gold(rows, docs, restricted, errors)
    check_answers(rows, docs, errors)
    check_table_answers(rows, docs, errors)
    check_scripts(rows, errors)
    check_duplicates(rows, errors)
    for e in errors:
        print("FAIL:", e)
    print(f"{len(rows)} questions, {len(docs)} documents, {total} bytes; {len(errors)} problem(s)")
    if not errors:
        print("OK: all checks passed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
