"""Validate questions.jsonl against the gitlab handbook in ../shared/data (read-only check).

Run from the project root: python qa/evaluation_sets/gitlab_handbook/check_questions.py
"""

import json, sys, unicodedata, collections
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4] / "shared/data/gitlab-handbook-ja/handbook"
PATH = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("questions.jsonl"))
KINDS = {"lexical", "paraphrase", "kana", "english", "number", "off_topic", "too_short"}


def norm(s: str) -> str:  # same folding as qa/evaluation/scoring.normalise: NFKC, lower case, spaces removed
    return unicodedata.normalize("NFKC", s).lower().replace(" ", "")


errors, rows, seen = [], [], set()
for i, line in enumerate(PATH.read_text(encoding="utf-8").splitlines(), 1):
    try:
        o = json.loads(line)
    except ValueError as e:
        errors.append(f"line {i}: not JSON: {e}")
        continue
    rows.append(o)
    q = o.get("qid")
    if q in seen:
        errors.append(f"{q}: duplicate qid")
    seen.add(q)
    for k in ("qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split"):
        if k not in o:
            errors.append(f"{q}: missing {k}")
    if o["kind"] not in KINDS:
        errors.append(f"{q}: bad kind {o['kind']}")
    if o["split"] not in ("dev", "held_out", "dev2", "probe"):
        errors.append(f"{q}: bad split")
    if o["lang"] not in ("ja", "en"):
        errors.append(f"{q}: bad lang")
    if o["kind"] in ("off_topic", "too_short"):
        want = "not_found" if o["kind"] == "off_topic" else "clarify"
        if o["expect"] != want or o["gold_doc_id"] or o["answers"]:
            errors.append(f"{q}: {o['kind']} must have expect={want}, empty gold and answers")
        continue
    if o["expect"] != "answer":
        errors.append(f"{q}: expect must be answer")
    f = ROOT / o["gold_doc_id"]
    if not f.is_file():
        errors.append(f"{q}: gold doc missing: {o['gold_doc_id']}")
        continue
    text = norm(f.read_text(encoding="utf-8"))
    keys = list(o["answers"]) + list(o.get("answers_all", []))
    if not keys:
        errors.append(f"{q}: no answer keys")
    for key in keys:
        if norm(key) not in text:
            errors.append(f"{q}: key {key!r} not in {o['gold_doc_id']}")

for error in errors:
    print("ERROR", error)
c = collections.Counter((o["split"], o["kind"]) for o in rows)
print(
    "total",
    len(rows),
    "| dev",
    sum(v for (s, _), v in c.items() if s == "dev"),
    "| held_out",
    sum(v for (s, _), v in c.items() if s == "held_out"),
)
for s in sorted({o["split"] for o in rows}):
    print(
        s, {k: c[(s, k)] for k in sorted(KINDS)}, "en:", sum(1 for o in rows if o["split"] == s and o["lang"] == "en")
    )
folders = collections.Counter((o["split"], o["gold_doc_id"].split("/")[0]) for o in rows if o["gold_doc_id"])
for s in sorted({o["split"] for o in rows}):
    print(s, "by folder", {k: v for (sp, k), v in sorted(folders.items()) if sp == s})
sys.exit(1 if errors else 0)
