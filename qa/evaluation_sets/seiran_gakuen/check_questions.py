#!/usr/bin/env python3
"""Validator for the 学校法人青嵐学園 evaluation set (standard library only).

Usage: python3 check_questions.py   (run from any directory)
Exit status 0 when every check passes, 1 otherwise.
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
PFX = "sg"
N_DOCS = 15
SIZE_MIN, SIZE_MAX = 60000, 90000
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
EXPECT = {"off_topic": "not_found", "restricted": "not_found", "too_short": "clarify"}
NO_ANSWER_KINDS = {"off_topic", "too_short", "restricted"}
PARAPHRASE_MAX_OVERLAP = 5  # longest run a paraphrase may share with its gold doc

errors: list[str] = []


def fail(msg: str) -> None:
    errors.append(msg)


def norm(text: str) -> str:
    """NFKC, lower-case, remove all whitespace."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def read_doc(name: str) -> str:
    with open(os.path.join(DOCS, name), encoding="utf-8") as f:
        return f.read()


def check_docs() -> list[str]:
    """Exactly 15 documents of any extension, total size in range, styles present."""
    if not os.path.isdir(DOCS):
        fail("docs/ folder missing")
        return []
    names = sorted(n for n in os.listdir(DOCS) if os.path.isfile(os.path.join(DOCS, n)))
    if len(names) != N_DOCS:
        fail(f"expected {N_DOCS} documents, found {len(names)}")
    total = sum(os.path.getsize(os.path.join(DOCS, n)) for n in names)
    if not SIZE_MIN <= total <= SIZE_MAX:
        fail(f"documents total {total} bytes, outside {SIZE_MIN}-{SIZE_MAX}")
    for n in names:
        try:
            read_doc(n)
        except UnicodeDecodeError:
            fail(f"{n}: not valid UTF-8")
    exts = [os.path.splitext(n)[1] for n in names]
    for ext, want in ((".md", 1), (".txt", 1), (".html", 2)):
        if exts.count(ext) < want:
            fail(f"need at least {want} {ext} document(s), found {exts.count(ext)}")
    html = "".join(read_doc(n) for n in names if n.endswith(".html"))
    if html.count("<table") < 2 or "rowspan" not in html or "<br>" not in html:
        fail("HTML pages need two <table> blocks, a rowspan and <br> in cells")
    if not any(os.path.getsize(os.path.join(DOCS, n)) < 500 for n in names):
        fail("no nearly empty document (< 500 bytes)")
    print(f"documents: {len(names)} files, {total} bytes")
    return names


def check_groups(names: list[str]) -> str:
    """groups.json names exactly one existing document, restricted to managers."""
    try:
        with open(os.path.join(BASE, "groups.json"), encoding="utf-8") as f:
            groups: Any = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"groups.json unreadable: {e}")
        return ""
    if not isinstance(groups, dict) or len(groups) != 1:
        fail("groups.json must map exactly one document")
        return ""
    name: str
    name, roles = next(iter(groups.items()))
    if name not in names:
        fail(f"groups.json names a missing document: {name}")
    if roles != ["managers"]:
        fail(f"groups.json roles must be ['managers'], got {roles}")
    if "管理職" not in name:
        fail("restricted document's file name should show it is for managers")
    return name


def load_questions() -> list[dict[str, Any]]:
    path = os.path.join(BASE, "questions.jsonl")
    with open(path, encoding="utf-8") as f:
        lines = [ln for ln in f.read().split("\n") if ln.strip()]
    if len(lines) != 60:
        fail(f"questions.jsonl has {len(lines)} lines, expected 60")
    rows: list[dict[str, Any]] = []
    for i, ln in enumerate(lines, 1):
        try:
            rows.append(json.loads(ln))
        except ValueError as e:
            fail(f"line {i}: invalid JSON ({e})")
    return rows


def check_fields(rows: list[dict[str, Any]]) -> None:
    """Field set, types, qid order and split halves."""
    for i, r in enumerate(rows, 1):
        if set(r) != set(FIELDS):
            fail(f"line {i}: fields {sorted(r)} != {sorted(FIELDS)}")
            continue
        for k, t in FIELDS.items():
            if not isinstance(r[k], t):
                fail(f"{r['qid']}: field {k} should be {t.__name__}")
        if not all(isinstance(a, str) for a in r["answers"]):
            fail(f"{r['qid']}: answers must be strings")
        want_qid = f"{PFX}-{i:03d}"
        if r["qid"] != want_qid:
            fail(f"line {i}: qid {r['qid']} != {want_qid}")
        want_split = "dev" if i <= 30 else "held_out"
        if r["split"] != want_split:
            fail(f"{r['qid']}: split {r['split']} != {want_split}")


def check_mix(rows: list[dict[str, Any]]) -> None:
    """Each half has the required number of each kind."""
    for split in ("dev", "held_out"):
        counts: dict[object, int] = {}
        for r in rows:
            if r.get("split") == split:
                counts[r.get("kind")] = counts.get(r.get("kind"), 0) + 1
        if counts != KIND_MIX:
            fail(f"{split}: kind mix {counts} != {KIND_MIX}")


def check_expect_lang(r: dict[str, Any]) -> None:
    kind = r["kind"]
    if r["expect"] != EXPECT.get(kind, "answer"):
        fail(f"{r['qid']}: expect {r['expect']} wrong for kind {kind}")
    want_lang = "en" if kind == "english" else "ja"
    if r["lang"] != want_lang:
        fail(f"{r['qid']}: lang {r['lang']} wrong for kind {kind}")
    q = r["question"]
    if kind == "english" and not (q.isascii() and re.search(r"[A-Za-z]", q)):
        fail(f"{r['qid']}: English question must be ASCII only")
    if kind != "english" and q.isascii():
        fail(f"{r['qid']}: Japanese question is pure ASCII")
    if kind == "kana" and not re.fullmatch(r"[\u3041-\u309fー]+", q):
        fail(f"{r['qid']}: kana question must be hiragana only")


def check_gold(r: dict[str, Any], names: list[str], restricted: str) -> None:
    """Gold document rules per kind."""
    kind, gold = r["kind"], r["gold_doc_id"]
    if kind in ("off_topic", "too_short"):
        if gold != "":
            fail(f"{r['qid']}: {kind} must have empty gold_doc_id")
    elif kind == "restricted":
        if gold != restricted:
            fail(f"{r['qid']}: restricted gold must be the managers-only document")
    else:
        if gold not in names:
            fail(f"{r['qid']}: gold_doc_id not in docs/: {gold!r}")
        elif gold == restricted:
            fail(f"{r['qid']}: ordinary question answered by the restricted document")


def table_cells(text: str) -> str:
    """Normalised text of Markdown table rows and HTML <td>/<th> cells."""
    rows = [ln for ln in text.split("\n") if ln.strip().startswith("|")]
    cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", text, flags=re.S)
    return norm("\n".join(rows + cells))


def check_answers(r: dict[str, Any], names: list[str]) -> None:
    """Answer count, length, markup and presence in the normalised gold document."""
    kind, answers = r["kind"], r["answers"]
    if kind in NO_ANSWER_KINDS:
        if answers:
            fail(f"{r['qid']}: {kind} must have no answers")
        return
    if not 1 <= len(answers) <= 3:
        fail(f"{r['qid']}: needs 1-3 answers, has {len(answers)}")
    if r["gold_doc_id"] not in names:
        return
    doc = read_doc(r["gold_doc_id"])
    ndoc = norm(doc)
    for a in answers:
        if not 3 <= len(a) <= 20:
            fail(f"{r['qid']}: answer {a!r} length {len(a)} not in 3-20")
        if "**" in a or "|" in a or "<" in a:
            fail(f"{r['qid']}: answer {a!r} contains markup")
        if norm(a) not in ndoc:
            fail(f"{r['qid']}: answer {a!r} not found in gold document")
    if kind == "table" and not any(norm(a) in table_cells(doc) for a in answers):
        fail(f"{r['qid']}: table answer is not inside a table cell")


def longest_common(a: str, b: str) -> int:
    """Length of the longest common substring of a and b."""
    best = 0
    for i in range(len(a)):
        for j in range(i + best + 1, len(a) + 1):
            if a[i:j] in b:
                best = j - i
            else:
                break
    return best


def check_paraphrase(r: dict[str, Any], names: list[str]) -> None:
    """Paraphrase questions must not reuse long runs of the documents' wording."""
    if r["kind"] != "paraphrase" or r["gold_doc_id"] not in names:
        return
    n = longest_common(norm(r["question"]), norm(read_doc(r["gold_doc_id"])))
    if n > PARAPHRASE_MAX_OVERLAP:
        fail(f"{r['qid']}: paraphrase shares {n} characters in a row with its gold document")


def check_duplicates(rows: list[dict[str, Any]]) -> None:
    seen: dict[str, object] = {}
    for r in rows:
        key = norm(r.get("question", ""))
        if key in seen:
            fail(f"{r.get('qid')}: duplicate of {seen[key]}")
        seen[key] = r.get("qid")


def main() -> int:
    names = check_docs()
    restricted = check_groups(names)
    rows = load_questions()
    check_fields(rows)
    if errors:
        return report()
    check_mix(rows)
    check_duplicates(rows)
    for r in rows:
        check_expect_lang(r)
        check_gold(r, names, restricted)
        check_answers(r, names)
        check_paraphrase(r, names)
    return report()


def report() -> int:
    if errors:
        for e in errors:
            print("FAIL:", e)
        print(f"{len(errors)} problem(s)")
        return 1
    print("questions: 60 lines, 30 dev + 30 held_out, kind mix per half OK")
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
