#!/usr/bin/env python3
"""Validator for the ひので信用金庫 evaluation set (standard library only).

Usage: python3 check_questions.py   (run from any directory)
Exits 0 when every check passes, 1 otherwise.
"""

from __future__ import annotations

import json
import os
import re
import sys
import unicodedata
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "docs")
PFX = "hs"
N_DOCS = 15
SIZE_MIN, SIZE_MAX = 60_000, 90_000
STUB_MAX = 500  # the nearly empty document (title + one link)

FIELDS: dict[str, type[Any]] = {
    "qid": str,
    "question": str,
    "gold_doc_id": str,
    "answers": list,
    "kind": str,
    "lang": str,
    "expect": str,
    "split": str,
}
MIX = {
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
EXPECT = {"off_topic": "not_found", "restricted": "not_found", "too_short": "clarify"}
KANA_EXTRA = set("、。？！?!")

errors: list[str] = []


def err(msg: str) -> None:
    errors.append(msg)


def norm(text: str) -> str:
    """NFKC, lower-case, remove all whitespace."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def load_docs() -> dict[str, str]:
    """Return {file name: text} for every file in docs/, whatever the extension."""
    docs: dict[str, str] = {}
    total = 0
    names = sorted(n for n in os.listdir(DOCS) if os.path.isfile(os.path.join(DOCS, n)))
    for name in names:
        raw = open(os.path.join(DOCS, name), "rb").read()
        total += len(raw)
        try:
            docs[name] = raw.decode("utf-8")
        except UnicodeDecodeError:
            err(f"docs/{name}: not UTF-8")
            docs[name] = raw.decode("utf-8", "replace")
    if len(docs) != N_DOCS:
        err(f"docs/: expected {N_DOCS} files, found {len(docs)}")
    if not SIZE_MIN <= total <= SIZE_MAX:
        err(f"docs/: total size {total} bytes outside {SIZE_MIN}-{SIZE_MAX}")
    print(f"documents: {len(docs)} files, {total} bytes")
    return docs


def check_doc_styles(docs: dict[str, str]) -> None:
    """Style mix required by the brief: HTML tables, rowspan, <br>, FAQ, articles, stub."""
    allt = "\n".join(docs.values())
    n_tables = len(re.findall(r"<table\b", allt))
    if n_tables < 2:
        err(f"docs: need at least 2 HTML <table> blocks, found {n_tables}")
    if "rowspan" not in allt:
        err("docs: no HTML table with rowspan")
    if not any("<br>" in t for t in re.findall(r"<table\b.*?</table>", allt, re.S)):
        err("docs: no <br> inside an HTML table cell")
    if not re.search(r"^Q: .+\nA: ", allt, re.M):
        err("docs: no FAQ with Q:/A: lines")
    if not re.search(r"第\d+条（", allt):
        err("docs: no 第N条（見出し） articles")
    if not any(len(t.encode("utf-8")) < STUB_MAX for t in docs.values()):
        err(f"docs: no nearly empty document (< {STUB_MAX} bytes)")
    if not any(re.search(r"^\|.*\|\s*$", t, re.M) for t in docs.values()):
        err("docs: no Markdown pipe table")


def load_groups(docs: dict[str, str]) -> str | None:
    """groups.json must name exactly one existing, managers-only document."""
    path = os.path.join(HERE, "groups.json")
    try:
        groups = json.load(open(path, encoding="utf-8"))
    except (OSError, ValueError) as e:
        err(f"groups.json: cannot read ({e})")
        return None
    if not isinstance(groups, dict) or len(groups) != 1:
        err("groups.json: must be an object with exactly one document")
        return None
    name: str
    grp: Any
    name, grp = next(iter(groups.items()))
    if name not in docs:
        err(f"groups.json: {name} is not a file in docs/")
    if grp != ["managers"]:
        err(f'groups.json: {name} must map to ["managers"]')
    if "管理職" not in name:
        err(f"groups.json: file name {name} does not show it is for managers")
    return name


def load_questions() -> list[dict[str, Any]]:
    """Read questions.jsonl; check line count, field set and field types."""
    rows: list[dict[str, Any]] = []
    with open(os.path.join(HERE, "questions.jsonl"), encoding="utf-8") as f:
        lines = [ln for ln in f.read().split("\n") if ln.strip()]
    if len(lines) != 60:
        err(f"questions.jsonl: expected 60 lines, found {len(lines)}")
    for i, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except ValueError as e:
            err(f"line {i}: invalid JSON ({e})")
            continue
        if set(obj) != set(FIELDS):
            err(f"line {i}: fields {sorted(obj)} != {sorted(FIELDS)}")
            continue
        for key, typ in FIELDS.items():
            if not isinstance(obj[key], typ):
                err(f"line {i}: field {key} must be {typ.__name__}")
        if isinstance(obj["answers"], list) and not all(isinstance(a, str) for a in obj["answers"]):
            err(f"line {i}: answers must be strings")
        rows.append(obj)
    return rows


def check_order_and_mix(rows: list[dict[str, Any]]) -> None:
    """qid order, split halves, per-half kind mix, no duplicate questions."""
    for i, r in enumerate(rows, 1):
        if r["qid"] != f"{PFX}-{i:03d}":
            err(f"line {i}: qid {r['qid']} != {PFX}-{i:03d}")
        want = "dev" if i <= 30 else "held_out"
        if r["split"] != want:
            err(f"{r['qid']}: split {r['split']} != {want}")
    for split in ("dev", "held_out"):
        counts: dict[Any, int] = {}
        for r in rows:
            if r["split"] == split:
                counts[r["kind"]] = counts.get(r["kind"], 0) + 1
        if counts != MIX:
            err(f"{split}: kind mix {counts} != {MIX}")
    seen: dict[str, Any] = {}
    for r in rows:
        key = norm(r["question"])
        if key in seen:
            err(f"{r['qid']}: duplicate of {seen[key]}")
        seen[key] = r["qid"]


def check_text_rules(r: dict[str, Any]) -> None:
    """expect and lang per kind; hiragana-only kana; ASCII-only English."""
    kind, q = r["kind"], r["question"]
    if kind not in MIX:
        err(f"{r['qid']}: unknown kind {kind}")
        return
    if r["expect"] != EXPECT.get(kind, "answer"):
        err(f"{r['qid']}: expect {r['expect']} wrong for kind {kind}")
    if r["lang"] != ("en" if kind == "english" else "ja"):
        err(f"{r['qid']}: lang {r['lang']} wrong for kind {kind}")
    if kind == "kana":
        bad = [c for c in q if not ("\u3041" <= c <= "\u309f" or c in KANA_EXTRA)]
        if bad:
            err(f"{r['qid']}: kana question has non-hiragana {''.join(bad)!r}")
    if kind == "english" and (not q.isascii() or not re.search(r"[A-Za-z]", q)):
        err(f"{r['qid']}: English question must be ASCII-only")
    if kind != "english" and q.isascii():
        err(f"{r['qid']}: Japanese question is ASCII-only")
    if kind == "too_short" and len(q) > 8:
        err(f"{r['qid']}: too_short question is {len(q)} characters")


def table_text(text: str) -> str:
    """Normalised text of all table rows: pipe-table lines and HTML <table> blocks."""
    parts = [ln for ln in text.split("\n") if ln.lstrip().startswith("|")]
    parts += re.findall(r"<table\b.*?</table>", text, re.S)
    return norm("\n".join(parts))


def check_gold(r: dict[str, Any], docs: dict[str, str], restricted: str | None) -> None:
    """Gold document and answer rules per kind."""
    qid, kind, gold, answers = r["qid"], r["kind"], r["gold_doc_id"], r["answers"]
    if kind in ("off_topic", "too_short"):
        if gold != "" or answers:
            err(f'{qid}: {kind} needs gold_doc_id "" and no answers')
        return
    if kind == "restricted":
        if gold != restricted or answers:
            err(f"{qid}: restricted needs gold {restricted} and no answers")
        return
    if gold not in docs:
        err(f"{qid}: gold_doc_id {gold!r} is not a file in docs/")
        return
    if gold == restricted or len(docs[gold].encode("utf-8")) < STUB_MAX:
        err(f"{qid}: gold must not be the restricted or the nearly empty document")
    if not 1 <= len(answers) <= 3:
        err(f"{qid}: needs 1-3 answers, has {len(answers)}")
    body, qn = norm(docs[gold]), norm(r["question"])
    for a in answers:
        if not 3 <= len(a) <= 20 or "**" in a:
            err(f"{qid}: answer {a!r} must be 3-20 characters without **")
        if norm(a) not in body:
            err(f"{qid}: answer {a!r} not found in {gold}")
        if norm(a) in qn:
            err(f"{qid}: answer {a!r} is given away by the question")
    if kind == "table" and not any(norm(a) in table_text(docs[gold]) for a in answers):
        err(f"{qid}: no table answer is inside a table of {gold}")


def main() -> int:
    docs = load_docs()
    check_doc_styles(docs)
    restricted = load_groups(docs)
    rows = load_questions()
    check_order_and_mix(rows)
    for r in rows:
        if set(r) == set(FIELDS):
            check_text_rules(r)
            check_gold(r, docs, restricted)
    print(f"questions: {len(rows)} lines checked")
    if errors:
        for e in errors:
            print("FAIL:", e)
        print(f"{len(errors)} problem(s)")
        return 1
    print("OK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
