#!/usr/bin/env python3
"""Checker for the minato_rules evaluation set (stdlib only).

Reads only files inside this folder: questions.jsonl, groups.json, docs/*.md.
Exit code 0 when every check passes, 1 otherwise.
"""

import json
import os
import re
import sys
import unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "docs")
QUESTIONS = os.path.join(HERE, "questions.jsonl")
GROUPS = os.path.join(HERE, "groups.json")

FIELDS = ["qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split"]
KIND_MIX = {
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
EXPECT_BY_KIND = {"off_topic": "not_found", "too_short": "clarify", "restricted": "not_found"}

errors: list[str] = []


def err(msg: str) -> None:
    errors.append(msg)


def norm(text: str) -> str:
    """NFKC, then remove all whitespace."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def body_text(raw: str) -> str:
    """Document text without front matter and without Markdown heading lines."""
    if raw.startswith("---\n"):
        end = raw.find("\n---", 4)
        if end != -1:
            raw = raw[end + 4 :]
    lines = [ln for ln in raw.splitlines() if not ln.lstrip().startswith("#")]
    return "\n".join(lines)


# ---------- documents ----------
doc_files = sorted(f for f in os.listdir(DOCS) if f.endswith(".md"))
docs_raw = {}
for f in doc_files:
    with open(os.path.join(DOCS, f), encoding="utf-8") as fh:
        docs_raw[f] = fh.read()
total_bytes = sum(os.path.getsize(os.path.join(DOCS, f)) for f in doc_files)
if not 13 <= len(doc_files) <= 15:
    err(f"docs: expected 13-15 Markdown files, found {len(doc_files)}")
if not 60_000 <= total_bytes <= 90_000:
    err(f"docs: total size {total_bytes} bytes outside 60-90 KB")
all_raw = "\n".join(docs_raw.values())
n_tables = sum(len(re.findall(r"<table\b", t)) for t in docs_raw.values())
if n_tables < 3:
    err(f"docs: need >=3 HTML <table> blocks, found {n_tables}")
if "<br>" not in all_raw or "<th" not in all_raw or "<td" not in all_raw:
    err("docs: HTML tables must use <th>/<td> and some <br>")
if "<details>" not in all_raw or "<summary>" not in all_raw:
    err("docs: no <details><summary> block")
if "<ul>" not in all_raw or "<li>" not in all_raw:
    err("docs: no <ul><li> HTML list")
n_front = sum(1 for t in docs_raw.values() if re.match(r"---\ntitle:|---\n(?:.*\n)*?title:", t))
if n_front != 2:
    err(f"docs: expected front matter in exactly 2 files, found {n_front}")
if not re.search(r"\{\{% *alert.*?%\}\}.*?\{\{% */alert *%\}\}", all_raw, re.S):
    err("docs: no Hugo {{% alert %}} shortcode")
if not re.search(r"^Q: .+\n^A: ", all_raw, re.M):
    err("docs: no Q:/A: FAQ page")

# ---------- groups ----------
with open(GROUPS, encoding="utf-8") as fh:
    groups = json.load(fh)
restricted_docs = set(groups)
for d in restricted_docs:
    if d not in docs_raw:
        err(f"groups.json: {d} not in docs/")
if groups.get("評価・昇給規程.md") != ["managers"]:
    err("groups.json: 評価・昇給規程.md must map to ['managers']")

# ---------- questions ----------
with open(QUESTIONS, encoding="utf-8") as fh:
    lines = fh.read().splitlines()
if len(lines) != 60:
    err(f"questions.jsonl: expected 60 lines, found {len(lines)}")

rows = []
for i, line in enumerate(lines, 1):
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        err(f"line {i}: invalid JSON ({e})")
        continue
    missing = [k for k in FIELDS if k not in obj]
    extra = [k for k in obj if k not in FIELDS]
    if missing:
        err(f"line {i}: missing fields {missing}")
        continue
    if extra:
        err(f"line {i}: unexpected fields {extra}")
    rows.append((i, obj))

seen_q = Counter(norm(o["question"]) for _, o in rows)
for q, c in seen_q.items():
    if c > 1:
        err(f"duplicate question: {q}")

counts: dict[str, Counter[str]] = {"dev": Counter(), "held_out": Counter()}
for i, o in rows:
    qid, kind, split = o["qid"], o["kind"], o["split"]
    tag = f"line {i} ({qid})"
    if qid != f"mt-{i:03d}":
        err(f"{tag}: qid should be mt-{i:03d}")
    want_split = "dev" if i <= 30 else "held_out"
    if split != want_split:
        err(f"{tag}: split {split!r}, expected {want_split!r}")
    if kind not in KIND_MIX:
        err(f"{tag}: unknown kind {kind!r}")
        continue
    if split in counts:
        counts[split][kind] += 1
    if not isinstance(o["question"], str) or not o["question"].strip():
        err(f"{tag}: empty question")
    want_lang = "en" if kind == "english" else "ja"
    if o["lang"] != want_lang:
        err(f"{tag}: lang {o['lang']!r}, expected {want_lang!r}")
    want_expect = EXPECT_BY_KIND.get(kind, "answer")
    if o["expect"] != want_expect:
        err(f"{tag}: expect {o['expect']!r}, expected {want_expect!r}")
    answers, gold = o["answers"], o["gold_doc_id"]
    if not isinstance(answers, list):
        err(f"{tag}: answers must be a list")
        continue
    if kind == "kana":
        q = re.sub(r"[\s、。？！?!・ー〜]", "", o["question"])
        if not re.fullmatch(r"[\u3041-\u309f]+", q):
            err(f"{tag}: kana question must be hiragana only")
    if kind in ("off_topic", "too_short"):
        if answers or gold != "":
            err(f"{tag}: {kind} must have answers [] and gold_doc_id ''")
        continue
    if kind == "restricted":
        if answers:
            err(f"{tag}: restricted must have answers []")
        if gold not in restricted_docs:
            err(f"{tag}: restricted gold {gold!r} is not a restricted doc")
        continue
    # answerable rows
    if gold not in docs_raw:
        err(f"{tag}: gold file {gold!r} does not exist in docs/")
        continue
    if gold in restricted_docs:
        err(f"{tag}: answerable row points to restricted doc {gold!r}")
    if not 1 <= len(answers) <= 3:
        err(f"{tag}: need 1-3 answer keys, got {len(answers)}")
    full = norm(docs_raw[gold])
    body = norm(body_text(docs_raw[gold]))
    for a in answers:
        if not isinstance(a, str) or not 3 <= len(a) <= 20:
            err(f"{tag}: answer key {a!r} must be a 3-20 character string")
            continue
        na = norm(a)
        if na not in full:
            err(f"{tag}: answer key {a!r} not found in {gold}")
        elif na not in body:
            err(f"{tag}: answer key {a!r} only found in a heading/front matter of {gold}")

for split, kinds in counts.items():
    for kind, n in KIND_MIX.items():
        if kinds[kind] != n:
            err(f"split {split}: kind {kind} has {kinds[kind]} rows, expected {n}")

# ---------- report ----------
print(f"docs: {len(doc_files)} files, {total_bytes} bytes, {n_tables} HTML tables")
for f in doc_files:
    print(f"  {os.path.getsize(os.path.join(DOCS, f)):6d}  {f}")
print(f"questions: {len(rows)} rows")
print(f"{'kind':<12}{'dev':>5}{'held_out':>10}")
for kind in KIND_MIX:
    print(f"{kind:<12}{counts['dev'][kind]:>5}{counts['held_out'][kind]:>10}")
print(f"{'total':<12}{sum(counts['dev'].values()):>5}{sum(counts['held_out'].values()):>10}")
if errors:
    print(f"\nFAILED: {len(errors)} problem(s)")
    for problem in errors:
        print("  - " + problem)
    sys.exit(1)
print("\nOK: all checks passed")
