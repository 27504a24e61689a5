"""Validate questions.jsonl against docs/ of this set (read-only check; reads only files in this folder).

Run: python3 qa/evaluation_sets/kotobuki_rules/check_questions.py
"""

import collections, hashlib, json, sys, unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
PATH = HERE / "questions.jsonl"
KINDS = {
    "paraphrase": 20,
    "lexical": 8,
    "number": 8,
    "kana": 5,
    "english": 6,
    "table": 4,
    "off_topic": 5,
    "too_short": 2,
    "restricted": 2,
}
FIELDS = ["qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split"]


def norm(s: str) -> str:  # NFKC, lower case, spaces removed
    return unicodedata.normalize("NFKC", s).lower().replace(" ", "")


texts = {p.name: norm(p.read_text(encoding="utf-8")) for p in DOCS.glob("*.md")}
groups = json.loads((HERE / "groups.json").read_text(encoding="utf-8"))
errors, rows, seen = [], [], set()
lines = PATH.read_text(encoding="utf-8").splitlines(keepends=True)
for i, line in enumerate(lines, 1):
    o = json.loads(line)
    rows.append(o)
    q = o["qid"]
    if list(o) != FIELDS:
        errors.append(f"{q}: fields {list(o)}")
    if q in seen:
        errors.append(f"{q}: duplicate qid")
    seen.add(q)
    if o["split"] != ("dev" if i <= 30 else "held_out"):
        errors.append(f"{q}: wrong split")
    if o["kind"] not in KINDS:
        errors.append(f"{q}: bad kind")
    if (o["lang"] == "en") != (o["kind"] == "english" or all(ord(c) < 128 for c in o["question"])):
        errors.append(f"{q}: lang")
    k = o["kind"]
    if k in ("off_topic", "too_short"):
        want = "not_found" if k == "off_topic" else "clarify"
        if o["expect"] != want or o["gold_doc_id"] or o["answers"]:
            errors.append(f"{q}: {k} must have expect={want}, empty gold and answers")
        continue
    if k == "restricted":
        if o["expect"] != "not_found" or o["answers"] or o["gold_doc_id"] not in groups:
            errors.append(f"{q}: restricted row malformed")
        continue
    if o["expect"] != "answer":
        errors.append(f"{q}: expect must be answer")
    if o["gold_doc_id"] not in texts:
        errors.append(f"{q}: gold doc missing {o['gold_doc_id']}")
        continue
    if o["gold_doc_id"] in groups:
        errors.append(f"{q}: answerable question on a restricted doc")
    if not 1 <= len(o["answers"]) <= 3:
        errors.append(f"{q}: need 1-3 keys")
    for key in o["answers"]:
        if norm(key) not in texts[o["gold_doc_id"]]:
            errors.append(f"{q}: key {key!r} not in {o['gold_doc_id']}")
        others = [n for n, t in texts.items() if n != o["gold_doc_id"] and norm(key) in t]
        if others:
            print(f"note {q}: key {key!r} also occurs in {len(others)} other doc(s): {', '.join(others)}")

c = collections.Counter(o["kind"] for o in rows)
for k, n in KINDS.items():
    if c[k] != n:
        errors.append(f"kind {k}: {c[k]} != {n}")
for e in errors:
    print("ERROR", e)
cs = collections.Counter((o["split"], o["kind"]) for o in rows)
for s in ("dev", "held_out"):
    print(s, sum(v for (sp, _), v in cs.items() if sp == s), {k: cs[(s, k)] for k in KINDS})
held = "".join(l for l in lines if json.loads(l)["split"] == "held_out")
print("held_out sha256", hashlib.sha256(held.encode("utf-8")).hexdigest())
sys.exit(1 if errors else 0)
