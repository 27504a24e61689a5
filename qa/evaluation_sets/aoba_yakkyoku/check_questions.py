#!/usr/bin/env python3
"""Validator for the aoba_yakkyoku evaluation set (Python standard library only).

Usage: python3 check_questions.py   (run from any directory)
Exit code 0 when every check passes, 1 otherwise.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent
DOCS = ROOT / "docs"
QFILE = ROOT / "questions.jsonl"
GROUPS = ROOT / "groups.json"

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
EXPECT = {"off_topic": "not_found", "restricted": "not_found", "too_short": "clarify"}
N_DOCS, MIN_BYTES, MAX_BYTES = 15, 60_000, 90_000
KANA_RE = re.compile(r"^[\u3041-\u309f\u30fc、。？！\s]+$")
MARKUP = ("**", "|", "<", ">", "#", "`")
COPY_LEN = 12  # longest substring a non-lexical question may share with its gold document


def norm(text: str) -> str:
    """NFKC, lower-case, all whitespace removed (used on both sides of matching)."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def load_questions(errors: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    lines = QFILE.read_text(encoding="utf-8").splitlines()
    if len(lines) != 60:
        errors.append(f"questions.jsonl has {len(lines)} lines, expected 60")
    for n, line in enumerate(lines, 1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            errors.append(f"line {n}: invalid JSON ({exc})")
    return rows


def load_docs(errors: list[str]) -> dict[str, str]:
    files = sorted(p for p in DOCS.iterdir() if p.is_file())
    if len(files) != N_DOCS:
        errors.append(f"docs/ has {len(files)} files, expected {N_DOCS}")
    total = sum(p.stat().st_size for p in files)
    if not MIN_BYTES <= total <= MAX_BYTES:
        errors.append(f"docs/ total {total} bytes, expected {MIN_BYTES}-{MAX_BYTES}")
    texts: dict[str, str] = {}
    for p in files:
        try:
            texts[p.name] = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            errors.append(f"{p.name}: not valid UTF-8")
    return texts


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
        if isinstance(r["question"], str) and not r["question"].strip():
            errors.append(f"{qid}: empty question")


def check_order_and_split(rows: list[dict[str, Any]], errors: list[str]) -> None:
    for i, r in enumerate(rows, 1):
        want_qid = f"ay-{i:03d}"
        if r.get("qid") != want_qid:
            errors.append(f"row {i}: qid {r.get('qid')!r}, expected {want_qid}")
        want_split = "dev" if i <= 30 else "held_out"
        if r.get("split") != want_split:
            errors.append(f"{want_qid}: split {r.get('split')!r}, expected {want_split}")


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
        qid, kind = r.get("qid"), r.get("kind")
        want_expect = EXPECT.get(cast(str, kind), "answer")
        if r.get("expect") != want_expect:
            errors.append(f"{qid}: expect {r.get('expect')!r}, expected {want_expect!r}")
        want_lang = "en" if kind == "english" else "ja"
        if r.get("lang") != want_lang:
            errors.append(f"{qid}: lang {r.get('lang')!r}, expected {want_lang!r}")


def check_gold(rows: list[dict[str, Any]], docs: dict[str, str], restricted: set[str], errors: list[str]) -> None:
    for r in rows:
        qid, kind, gold = r.get("qid"), r.get("kind"), r.get("gold_doc_id")
        if kind in ("off_topic", "too_short"):
            if gold != "":
                errors.append(f"{qid}: {kind} must have empty gold_doc_id")
        elif kind == "restricted":
            if gold not in restricted:
                errors.append(f"{qid}: restricted gold must be a document named in groups.json")
        elif gold not in docs:
            errors.append(f"{qid}: gold_doc_id {gold!r} is not a file in docs/")
        elif gold in restricted:
            errors.append(f"{qid}: answerable question must not point to the restricted document")


def check_answers(rows: list[dict[str, Any]], docs: dict[str, str], errors: list[str]) -> None:
    for r in rows:
        qid, kind, answers = r.get("qid"), r.get("kind"), r.get("answers", [])
        if kind not in ANSWER_KINDS:
            if answers:
                errors.append(f"{qid}: {kind} must have no answers")
            continue
        if not 1 <= len(answers) <= 3:
            errors.append(f"{qid}: {len(answers)} answers, expected 1-3")
        gold_text = norm(docs.get(cast(str, r.get("gold_doc_id")), ""))
        for a in answers:
            if not 3 <= len(a) <= 20 or not 3 <= len(norm(a)) <= 20:
                errors.append(f"{qid}: answer {a!r} must be 3-20 characters")
            if any(m in a for m in MARKUP):
                errors.append(f"{qid}: answer {a!r} contains markup")
            if norm(a) not in gold_text:
                errors.append(f"{qid}: answer {a!r} not found in normalised gold document")
            if kind == "paraphrase" and norm(a) in norm(r.get("question", "")):
                errors.append(f"{qid}: paraphrase question contains its own answer {a!r}")


def table_cells(text: str) -> list[str]:
    """Normalised contents of pipe-table cells and HTML <td>/<th> cells."""
    cells: list[str] = []
    for line in text.splitlines():
        if line.strip().startswith("|"):
            cells += [norm(c) for c in line.strip().strip("|").split("|")]
    for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", text, flags=re.S):
        cells.append(norm(re.sub(r"<br\s*/?>", "", cell)))
    return cells


def check_table_kind(rows: list[dict[str, Any]], docs: dict[str, str], errors: list[str]) -> None:
    for r in rows:
        if r.get("kind") != "table":
            continue
        cells = table_cells(docs.get(cast(str, r.get("gold_doc_id")), ""))
        if not any(norm(a) in c for a in r.get("answers", []) for c in cells):
            errors.append(f"{r.get('qid')}: no answer lies inside one table cell of the gold document")


def check_scripts(rows: list[dict[str, Any]], errors: list[str]) -> None:
    for r in rows:
        qid, kind, q = r.get("qid"), r.get("kind"), r.get("question", "")
        if kind == "kana" and not KANA_RE.match(q):
            errors.append(f"{qid}: kana question must be hiragana only: {q!r}")
        if kind == "english" and not q.isascii():
            errors.append(f"{qid}: english question must be ASCII only")
        if kind != "english" and not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", q):
            errors.append(f"{qid}: Japanese question contains no Japanese characters")
        if kind == "too_short" and len(q) > 10:
            errors.append(f"{qid}: too_short question is {len(q)} characters (max 10)")


def longest_shared(a: str, b: str) -> int:
    """Length of the longest substring of a that also occurs in b."""
    best = 0
    for i in range(len(a)):
        j = i + best + 1
        while j <= len(a) and a[i:j] in b:
            best = j - i
            j += 1
    return best


def check_no_copy(rows: list[dict[str, Any]], docs: dict[str, str], errors: list[str]) -> None:
    seen: dict[str, str | None] = {}
    for r in rows:
        qid, q = r.get("qid"), norm(r.get("question", ""))
        if q in seen:
            errors.append(f"{qid}: duplicate of {seen[q]}")
        seen.setdefault(q, qid)
        gold = docs.get(cast(str, r.get("gold_doc_id")))
        if gold is None or r.get("kind") == "lexical":
            continue
        shared = longest_shared(q, norm(gold))
        if shared >= COPY_LEN:
            errors.append(f"{qid}: question shares {shared} characters with its gold document")


def check_groups(docs: dict[str, str], errors: list[str]) -> set[str]:
    try:
        groups = json.loads(GROUPS.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        errors.append(f"groups.json unreadable ({exc})")
        return set()
    if not isinstance(groups, dict) or len(groups) != 1:
        errors.append("groups.json must map exactly one document to its groups")
        return set()
    for name, members in groups.items():
        if name not in docs:
            errors.append(f"groups.json names {name!r}, which is not in docs/")
        if members != ["managers"]:
            errors.append(f"groups.json: {name!r} must be restricted to ['managers']")
    return set(groups)


def main() -> int:
    errors: list[str] = []
    docs = load_docs(errors)
    restricted = check_groups(docs, errors)
    rows = load_questions(errors)
    check_fields(rows, errors)
    if errors:
        return report(errors, rows, docs)
    for check in (check_order_and_split, check_kind_mix, check_expect_lang, check_scripts):
        check(rows, errors)
    check_gold(rows, docs, restricted, errors)
    for doc_check in (check_answers, check_table_kind, check_no_copy):
        doc_check(rows, docs, errors)
    return report(errors, rows, docs)


def report(errors: list[str], rows: list[dict[str, Any]], docs: dict[str, str]) -> int:
    total = sum(len(t.encode("utf-8")) for t in docs.values())
    print(f"documents: {len(docs)} files, {total} bytes; questions: {len(rows)}")
    for e in errors:
        print("FAIL:", e)
    print("OK: all checks passed" if not errors else f"{len(errors)} problem(s) found")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
