#!/usr/bin/env python3
"""Consistency checker for the Sakura-kai evaluation set.

Standard library only. Reads only files inside this folder
(questions.jsonl, groups.json, docs/*.md). Exit code 0 when every check passes.
"""

import json
import os
import re
import sys
import unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "docs")
QFILE = os.path.join(HERE, "questions.jsonl")
GFILE = os.path.join(HERE, "groups.json")

FIELDS = {"qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split"}
MIX = {
    "paraphrase": 10,
    "lexical": 4,
    "number": 4,
    "kana": 2,
    "english": 3,
    "table": 2,
    "off_topic": 3,
    "too_short": 1,
    "restricted": 1,
}
EXPECT = {
    "paraphrase": "answer",
    "lexical": "answer",
    "number": "answer",
    "kana": "answer",
    "english": "answer",
    "table": "answer",
    "off_topic": "not_found",
    "too_short": "clarify",
    "restricted": "not_found",
}
ANSWERABLE = {k for k, v in EXPECT.items() if v == "answer"}
# characters allowed in a kana question besides hiragana
KANA_EXTRA = set("ー〜？?！!、。 　")

errors: list[str] = []


def err(msg: str) -> None:
    errors.append(msg)


def norm(s: str) -> str:
    s = unicodedata.normalize("NFKC", s).lower()
    return re.sub(r"\s+", "", s)


def is_hiragana(ch: str) -> bool:
    return "\u3041" <= ch <= "\u309f"


def has_japanese(s: str) -> bool:
    return any("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in s)


# ---------- documents ----------
doc_text = {}
if not os.path.isdir(DOCS):
    err("docs/ folder missing")
else:
    names = sorted(n for n in os.listdir(DOCS) if os.path.isfile(os.path.join(DOCS, n)))
    non_md = [n for n in names if not n.endswith(".md")]
    if non_md:
        err(f"non-Markdown files in docs/: {non_md}")
    md = [n for n in names if n.endswith(".md")]
    if len(md) != 15:
        err(f"expected exactly 15 .md files in docs/, found {len(md)}")
    total = 0
    for n in md:
        raw = open(os.path.join(DOCS, n), "rb").read()
        total += len(raw)
        try:
            doc_text[n] = raw.decode("utf-8")
        except UnicodeDecodeError:
            err(f"{n}: not valid UTF-8")
    if not 60000 <= total <= 90000:
        err(f"total docs size {total} bytes outside 60,000-90,000")
    print(f"docs: {len(md)} files, {total} bytes")

    # structural checks on the document styles the brief asks for
    alltext = "\n".join(doc_text.values())
    n_html_tables = len(re.findall(r"<table>", alltext))
    n_rowspan_tables = sum(1 for t in re.findall(r"<table>.*?</table>", alltext, re.S) if "rowspan" in t)
    n_full_html = sum(
        1 for t in re.findall(r"<table>.*?</table>", alltext, re.S) if "<thead>" in t and "<tbody>" in t and "<br>" in t
    )
    if n_html_tables < 4 or n_full_html < 4:
        err(f"need >=4 HTML tables with thead/tbody/br, found {n_full_html}")
    if n_rowspan_tables < 2:
        err(f"need >=2 HTML tables with rowspan, found {n_rowspan_tables}")
    if not any(
        t.startswith("---\ntitle:") and "{{% notice info %}}" in t and "{{% /notice %}}" in t for t in doc_text.values()
    ):
        err("no document with Hugo front matter and notice shortcode")
    if not any(
        t.startswith("---\n") and re.search(r"^layout:", t, re.M) and re.search(r"^permalink:", t, re.M)
        for t in doc_text.values()
    ):
        err("no document with Jekyll front matter (layout, permalink)")
    if not any("<details>" in t and "<summary>" in t for t in doc_text.values()):
        err("no <details><summary> block")
    tiny = [n for n, t in doc_text.items() if len(t.encode("utf-8")) < 300]
    if len(tiny) != 1:
        err(f"expected exactly one nearly empty document, found {tiny}")
    else:
        lines = [l for l in doc_text[tiny[0]].splitlines() if l.strip()]
        if not (len(lines) == 2 and lines[0].startswith("# ") and re.search(r"https?://", lines[1])):
            err(f"{tiny[0]}: should hold one heading and one external link only")

norm_docs = {n: norm(t) for n, t in doc_text.items()}

# ---------- groups.json ----------
restricted_docs = set()
try:
    groups = json.load(open(GFILE, encoding="utf-8"))
    if not isinstance(groups, dict) or not groups:
        err("groups.json must be a non-empty object")
    else:
        for k, v in groups.items():
            if k not in doc_text:
                err(f"groups.json names a missing file: {k}")
            if v != ["managers"]:
                err(f"groups.json value for {k} should be ['managers'], got {v}")
            restricted_docs.add(k)
except (OSError, ValueError) as e:
    err(f"groups.json unreadable: {e}")

# ---------- questions ----------
rows = []
try:
    with open(QFILE, encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n") if l.strip()]
except OSError as e:
    lines = []
    err(f"questions.jsonl unreadable: {e}")
if len(lines) != 60:
    err(f"expected 60 lines in questions.jsonl, found {len(lines)}")
for i, line in enumerate(lines, 1):
    try:
        rows.append(json.loads(line))
    except ValueError as e:
        err(f"line {i}: invalid JSON ({e})")
        rows.append({})

seen_q = set()
mix: dict[str, Counter[str]] = {"dev": Counter(), "held_out": Counter()}
for i, r in enumerate(rows, 1):
    qid = r.get("qid", f"line{i}")
    if set(r) != FIELDS:
        err(f"{qid}: fields {sorted(r)} != {sorted(FIELDS)}")
        continue
    if qid != f"sc-{i:03d}":
        err(f"line {i}: qid {qid} out of order (expected sc-{i:03d})")
    want_split = "dev" if i <= 30 else "held_out"
    if r["split"] != want_split:
        err(f"{qid}: split {r['split']} != {want_split}")
    kind = r["kind"]
    if kind not in MIX:
        err(f"{qid}: unknown kind {kind}")
        continue
    if r["split"] in mix:
        mix[r["split"]][kind] += 1
    if r["expect"] != EXPECT[kind]:
        err(f"{qid}: expect {r['expect']} != {EXPECT[kind]} for kind {kind}")
    q = r["question"]
    if not isinstance(q, str) or not q.strip():
        err(f"{qid}: empty question")
        continue
    if q in seen_q:
        err(f"{qid}: duplicate question")
    seen_q.add(q)
    want_lang = "en" if kind == "english" else "ja"
    if r["lang"] != want_lang:
        err(f"{qid}: lang {r['lang']} != {want_lang}")
    if kind == "english":
        if not q.isascii() or not re.search(r"[A-Za-z]", q):
            err(f"{qid}: english question must be ASCII")
    elif not has_japanese(q):
        err(f"{qid}: Japanese question without Japanese characters")
    if kind == "kana":
        bad = [c for c in q if not (is_hiragana(c) or c in KANA_EXTRA)]
        if bad:
            err(f"{qid}: kana question has non-hiragana characters {bad}")
    answers = r["answers"]
    gold = r["gold_doc_id"]
    if not isinstance(answers, list):
        err(f"{qid}: answers must be a list")
        continue
    if kind in ANSWERABLE:
        if gold not in doc_text:
            err(f"{qid}: gold_doc_id {gold!r} is not a file in docs/")
            continue
        if gold in restricted_docs:
            err(f"{qid}: answerable question points at a restricted document")
        if not 1 <= len(answers) <= 3:
            err(f"{qid}: needs 1-3 answers, has {len(answers)}")
        for a in answers:
            if not isinstance(a, str) or not 3 <= len(norm(a)) <= 20 or not 3 <= len(a) <= 20:
                err(f"{qid}: answer {a!r} must be 3-20 characters")
                continue
            if norm(a) not in norm_docs[gold]:
                err(f"{qid}: answer {a!r} not found in {gold}")
    else:
        if answers:
            err(f"{qid}: {kind} question must have answers []")
        if kind == "restricted":
            if gold not in restricted_docs:
                err(f"{qid}: restricted gold_doc_id must be the managers-only file")
        elif gold != "":
            err(f"{qid}: {kind} question must have gold_doc_id ''")
    if kind == "too_short" and len(q) > 10:
        err(f"{qid}: too_short question is not short ({len(q)} chars)")

for split, c in mix.items():
    if dict(c) != MIX:
        err(f"{split}: kind mix {dict(c)} != {MIX}")

if errors:
    print(f"FAILED: {len(errors)} problem(s)")
    for problem in errors:
        print("  -", problem)
    sys.exit(1)
print(f"questions: {len(rows)} lines; mix per half OK: {MIX}")
print("all checks passed")
sys.exit(0)
