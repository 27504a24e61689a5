#!/usr/bin/env python3
"""Validator for the Minori Foods evaluation set (Python standard library only).

Usage: python3 check_questions.py        (exit code 0 when every check passes)
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
DOCS_DIR = ROOT / "docs"
QUESTIONS = ROOT / "questions.jsonl"
GROUPS = ROOT / "groups.json"

FIELDS = {"qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split"}
STR_FIELDS = ("qid", "question", "gold_doc_id", "kind", "lang", "expect", "split")
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
N_QUESTIONS, N_DOCS = 60, 15
MIN_BYTES, MAX_BYTES = 60_000, 90_000
ANSWER_MIN, ANSWER_MAX = 3, 20
KANA_RE = re.compile(r"^[\u3041-\u309f\u30fc、。？！?!]+$")


def norm(text: str) -> str:
    """NFKC, lower-case, remove all whitespace (the answer-matching normalisation)."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def load_docs(errors: list[str]) -> dict[str, str]:
    """Read docs/, check count, encoding and total size; return {file name: text}."""
    docs: dict[str, str] = {}
    total = 0
    files = sorted(p for p in DOCS_DIR.iterdir() if p.is_file()) if DOCS_DIR.is_dir() else []
    if len(files) != N_DOCS:
        errors.append(f"docs/: expected {N_DOCS} files, found {len(files)}")
    for path in files:
        raw = path.read_bytes()
        total += len(raw)
        try:
            docs[path.name] = raw.decode("utf-8")
        except UnicodeDecodeError:
            errors.append(f"docs/{path.name}: not valid UTF-8")
    if not MIN_BYTES <= total <= MAX_BYTES:
        errors.append(f"docs/: total size {total} bytes outside {MIN_BYTES}-{MAX_BYTES}")
    if not any(len(t.encode("utf-8")) < 500 for t in docs.values()):
        errors.append("docs/: no nearly empty document (< 500 bytes)")
    return docs


def load_groups(docs: dict[str, str], errors: list[str]) -> str:
    """groups.json must name exactly one existing, managers-only document."""
    try:
        groups = json.loads(GROUPS.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        errors.append(f"groups.json: cannot read ({exc})")
        return ""
    if not isinstance(groups, dict) or len(groups) != 1:
        errors.append("groups.json: must be an object with exactly one entry")
        return ""
    name, roles = next(iter(groups.items()))
    if name not in docs:
        errors.append(f"groups.json: {name!r} is not a file in docs/")
    if roles != ["managers"]:
        errors.append(f"groups.json: roles for {name!r} must be ['managers']")
    if "管理職限定" not in name:
        errors.append(f"groups.json: file name {name!r} does not show it is managers-only")
    return name


def load_questions(errors: list[str]) -> list[dict[str, Any]]:
    """Parse questions.jsonl; every line must be a JSON object."""
    questions: list[dict[str, Any]] = []
    try:
        lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        errors.append(f"questions.jsonl: cannot read ({exc})")
        return questions
    if len(lines) != N_QUESTIONS:
        errors.append(f"questions.jsonl: expected {N_QUESTIONS} lines, found {len(lines)}")
    for no, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except ValueError as exc:
            errors.append(f"line {no}: invalid JSON ({exc})")
            continue
        if not isinstance(obj, dict):
            errors.append(f"line {no}: not a JSON object")
            continue
        questions.append(obj)
    return questions


def check_fields(q: dict[str, Any], no: int, errors: list[str]) -> bool:
    """Exact field set and types. Returns False when the record is unusable."""
    if set(q) != FIELDS:
        errors.append(f"line {no}: fields {sorted(q)} != {sorted(FIELDS)}")
        return False
    ok = True
    for key in STR_FIELDS:
        if not isinstance(q[key], str):
            errors.append(f"line {no}: {key} must be a string")
            ok = False
    if not isinstance(q["answers"], list) or not all(isinstance(a, str) for a in q["answers"]):
        errors.append(f"line {no}: answers must be a list of strings")
        ok = False
    return ok


def check_order_and_splits(questions: list[dict[str, Any]], errors: list[str]) -> None:
    """qid order mf-001..mf-060; first half dev, second half held_out; kind mix per half."""
    half = N_QUESTIONS // 2
    for i, q in enumerate(questions, 1):
        if q["qid"] != f"mf-{i:03d}":
            errors.append(f"line {i}: qid {q['qid']!r} should be 'mf-{i:03d}'")
        want = "dev" if i <= half else "held_out"
        if q["split"] != want:
            errors.append(f"{q['qid']}: split {q['split']!r} should be {want!r}")
    for name, part in (("dev", questions[:half]), ("held_out", questions[half:])):
        counts: dict[str, int] = {}
        for q in part:
            counts[q["kind"]] = counts.get(q["kind"], 0) + 1
        if counts != KIND_MIX:
            errors.append(f"{name}: kind mix {counts} != {KIND_MIX}")


def check_kind_rules(q: dict[str, Any], docs: dict[str, str], restricted: str, errors: list[str]) -> None:
    """expect, lang and gold document rules that depend on the kind."""
    qid, kind, gold = q["qid"], q["kind"], q["gold_doc_id"]
    if kind not in KIND_MIX:
        errors.append(f"{qid}: unknown kind {kind!r}")
        return
    want_expect = EXPECT.get(kind, "answer")
    if q["expect"] != want_expect:
        errors.append(f"{qid}: expect {q['expect']!r} should be {want_expect!r}")
    want_lang = "en" if kind == "english" else "ja"
    if q["lang"] != want_lang:
        errors.append(f"{qid}: lang {q['lang']!r} should be {want_lang!r}")
    if kind in ANSWER_KINDS:
        if gold not in docs:
            errors.append(f"{qid}: gold_doc_id {gold!r} is not a file in docs/")
        elif gold == restricted:
            errors.append(f"{qid}: answerable question must not use the managers-only document")
    elif kind == "restricted":
        if not restricted or gold != restricted:
            errors.append(f"{qid}: restricted question must point at {restricted!r}")
    elif gold != "":
        errors.append(f"{qid}: {kind} question must have an empty gold_doc_id")


def table_rows(text: str) -> list[str]:
    """Lines that are Markdown pipe-table rows or HTML table cells, normalised."""
    rows: list[str] = []
    for line in text.splitlines():
        s = line.strip()
        if (s.startswith("|") and not re.fullmatch(r"[|:\-\s]+", s)) or "<td" in s:
            rows.append(norm(s))
    return rows


def check_answers(q: dict[str, Any], docs: dict[str, str], errors: list[str]) -> None:
    """Count, length, markup and presence of the answers in the normalised gold document."""
    qid, kind, answers = q["qid"], q["kind"], q["answers"]
    if kind not in ANSWER_KINDS:
        if answers:
            errors.append(f"{qid}: {kind} question must have no answers")
        return
    if not 1 <= len(answers) <= 3:
        errors.append(f"{qid}: needs 1-3 answers, has {len(answers)}")
    doc = docs.get(q["gold_doc_id"])
    if doc is None:
        return
    doc_n, question_n = norm(doc), norm(q["question"])
    rows = table_rows(doc) if kind == "table" else []
    for ans in answers:
        a = norm(ans)
        if not ANSWER_MIN <= len(ans) <= ANSWER_MAX or len(a) < ANSWER_MIN:
            errors.append(f"{qid}: answer {ans!r} must be {ANSWER_MIN}-{ANSWER_MAX} characters")
        if "**" in ans or "|" in ans or "<" in ans:
            errors.append(f"{qid}: answer {ans!r} contains markup")
        if a not in doc_n:
            errors.append(f"{qid}: answer {ans!r} not found in {q['gold_doc_id']}")
        if a in question_n:
            errors.append(f"{qid}: answer {ans!r} is already written in the question")
        if kind == "table" and not any(a in row for row in rows):
            errors.append(f"{qid}: table answer {ans!r} is not inside a table row")


def check_text(q: dict[str, Any], errors: list[str]) -> None:
    """Question text: non-empty, hiragana-only for kana, ASCII-only for English."""
    qid, text = q["qid"], q["question"]
    if not text.strip():
        errors.append(f"{qid}: empty question")
    if q["kind"] == "kana" and not KANA_RE.match(text):
        errors.append(f"{qid}: kana question must be hiragana only: {text!r}")
    if q["kind"] == "english" and not text.isascii():
        errors.append(f"{qid}: English question must be ASCII only: {text!r}")
    if q["kind"] != "english" and text.isascii():
        errors.append(f"{qid}: Japanese question is plain ASCII: {text!r}")


def check_duplicates(questions: list[dict[str, Any]], errors: list[str]) -> None:
    """No two questions may be identical after normalisation."""
    seen: dict[str, str] = {}
    for q in questions:
        key = norm(q["question"])
        if key in seen:
            errors.append(f"{q['qid']}: duplicate of {seen[key]}")
        seen.setdefault(key, q["qid"])


def main() -> int:
    errors: list[str] = []
    docs = load_docs(errors)
    restricted = load_groups(docs, errors)
    raw = load_questions(errors)
    questions = [q for no, q in enumerate(raw, 1) if check_fields(q, no, errors)]
    if len(questions) == N_QUESTIONS:
        check_order_and_splits(questions, errors)
    for q in questions:
        check_kind_rules(q, docs, restricted, errors)
        check_answers(q, docs, errors)
        check_text(q, errors)
    check_duplicates(questions, errors)
    for err in errors:
        print("FAIL:", err)
    total = sum(len(t.encode("utf-8")) for t in docs.values())
    print(f"{len(docs)} documents, {total} bytes; {len(questions)} questions; restricted document: {restricted or '-'}")
    print("OK: all checks passed" if not errors else f"{len(errors)} problem(s) found")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
