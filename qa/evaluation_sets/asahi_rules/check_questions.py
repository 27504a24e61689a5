#!/usr/bin/env python3
"""Validate the Asahi Logistics (株式会社あさひ物流) evaluation set.

Standard library only. Reads only files inside this folder:
  questions.jsonl, groups.json, docs/*.md

Exit code 0 when every check passes, 1 otherwise.
Run:  python3 check_questions.py [-v]
"""

import json
import os
import re
import sys
import unicodedata
from typing import Any, cast

ROOT = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(ROOT, "docs")
QFILE = os.path.join(ROOT, "questions.jsonl")
GROUPS = os.path.join(ROOT, "groups.json")

FIELDS = ["qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split"]
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
ANSWERABLE = {"paraphrase", "lexical", "number", "kana", "english", "table"}
EXPECT = {k: "answer" for k in ANSWERABLE}
EXPECT.update({"off_topic": "not_found", "restricted": "not_found", "too_short": "clarify"})

N_DOCS = 15
MIN_BYTES, MAX_BYTES = 60_000, 90_000
KEY_MIN, KEY_MAX = 3, 20

JA_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
KANA_ONLY = re.compile(r"^[\u3041-\u3096ー、。？！?!\s]+$")

errors: list[str] = []
infos: list[str] = []


def err(msg: str) -> None:
    errors.append(msg)


def norm(s: str) -> str:
    """Scoring normalisation: NFKC, lower-case, all whitespace removed."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", s).lower())


def split_front_matter(text: str) -> tuple[str | None, str]:
    """Return (front_matter_or_None, rest) for '---' (YAML) or '+++' (TOML) front matter."""
    lines = text.split("\n")
    if lines and lines[0].strip() in ("---", "+++"):
        delim = lines[0].strip()
        for i in range(1, len(lines)):
            if lines[i].strip() == delim:
                return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :])
    return None, text


def body_of(text: str) -> str:
    """Body text used for key checks: no front matter, no '#' heading lines."""
    _, rest = split_front_matter(text)
    return "\n".join(l for l in rest.split("\n") if not l.lstrip().startswith("#"))


# ---------------------------------------------------------------- documents
def read_docs() -> dict[str, str]:
    """Read docs/*, checking the file count, encoding and total size."""
    names = sorted(os.listdir(DOCS))
    files = [n for n in names if os.path.isfile(os.path.join(DOCS, n))]
    if len(files) != N_DOCS:
        err(f"docs/ must hold {N_DOCS} files, found {len(files)}")
    docs = {}
    total = 0
    for n in files:
        if not n.endswith(".md"):
            err(f"docs/{n}: not a .md file")
        raw = open(os.path.join(DOCS, n), "rb").read()
        total += len(raw)
        try:
            docs[n] = raw.decode("utf-8")
        except UnicodeDecodeError:
            err(f"docs/{n}: not UTF-8")
    if not (MIN_BYTES <= total <= MAX_BYTES):
        err(f"docs total size {total} bytes outside {MIN_BYTES}-{MAX_BYTES}")
    infos.append(f"docs: {len(files)} files, {total} bytes")
    return docs


def check_article_styles(alltext: str) -> None:
    """Every article / paragraph numbering style appears somewhere."""
    if not re.search(r"^###\s*第\d+条（", alltext, re.M):
        err("style: no '### 第N条（…）' heading articles")
    if not re.search(r"^第\d+条（", alltext, re.M):
        err("style: no plain-line '第N条（…）' articles")
    if not re.search(r"^\*\*第\d+条（", alltext, re.M):
        err("style: no bold '**第N条（…）**' articles")
    if not re.search(r"^[２-９]\u3000", alltext, re.M):
        err("style: no full-width numbered paragraphs (２　…)")
    if not re.search(r"^（[１-９]）", alltext, re.M):
        err("style: no （１） items")


def check_pipe_tables(docs: dict[str, str]) -> int:
    """Count pipe tables (header row followed by a separator row); return the count."""
    pipe = 0
    for text in docs.values():
        lines = text.split("\n")
        for i in range(len(lines) - 1):
            if re.match(r"^\|.*\|\s*$", lines[i]) and re.match(r"^\|\s*:?-{3,}", lines[i + 1]):
                pipe += 1
    if pipe < 4:
        err(f"style: {pipe} pipe tables, need >= 4")
    return pipe


def check_html_tables(alltext: str, pipe: int) -> None:
    """HTML tables with <th>/<td>, a <br> in a cell and a rowspan."""
    tables = re.findall(r"<table\b.*?</table>", alltext, re.S)
    good = [t for t in tables if "<th" in t and "<td" in t]
    if len(good) < 3:
        err(f"style: {len(good)} HTML <table> blocks with <th>/<td>, need >= 3")
    if not any(re.search(r"<td[^>]*>[^<]*(?:<(?!/td)[^>]*>[^<]*)*<br\s*/?>", t) for t in good):
        err("style: no <br> inside an HTML table cell")
    if not any("rowspan=" in t for t in good):
        err("style: no HTML table with rowspan")
    infos.append(f"style: {pipe} pipe tables, {len(good)} HTML tables")


def check_front_matter(docs: dict[str, str]) -> None:
    """One Hugo page (title: + notice shortcode) and one Jekyll page (layout: + permalink:)."""
    hugo = jekyll = False
    for text in docs.values():
        fm, _ = split_front_matter(text)
        if fm is None:
            continue
        if re.search(r"^title:", fm, re.M) and "{{% notice" in text and "{{% /notice %}}" in text:
            hugo = True
        if re.search(r"^layout:", fm, re.M) and re.search(r"^permalink:", fm, re.M):
            jekyll = True
    if not hugo:
        err("style: no Hugo page (front matter with title: and a {{% notice %}} shortcode)")
    if not jekyll:
        err("style: no Jekyll page (front matter with layout: and permalink:)")


def check_faq_details(docs: dict[str, str], alltext: str) -> None:
    """A FAQ page with matching Q:/A: lines and a <details><summary> block."""
    faq = [
        n
        for n, t in docs.items()
        if len(re.findall(r"^Q: ", t, re.M)) >= 5
        and len(re.findall(r"^Q: ", t, re.M)) == len(re.findall(r"^A: ", t, re.M))
    ]
    if not faq:
        err("style: no FAQ page with >= 5 'Q: ' lines and matching 'A: ' lines")
    if not re.search(r"<details>\s*<summary>.*?</summary>.*?</details>", alltext, re.S):
        err("style: no <details><summary>…</summary>…</details> block")


def check_file_names(docs: dict[str, str]) -> None:
    """At least one long file name."""
    if not any(len(n[:-3]) >= 20 for n in docs):
        err("style: no long file name (>= 20 characters)")


def check_nearly_empty(docs: dict[str, str]) -> None:
    """Exactly one nearly empty file: heading + one link only."""
    tiny = []
    for n, text in docs.items():
        nonblank = [l for l in text.split("\n") if l.strip()]
        if (
            len(text.encode("utf-8")) < 300
            and len(nonblank) == 2
            and nonblank[0].startswith("# ")
            and re.search(r"https?://", nonblank[1])
        ):
            tiny.append(n)
    if len(tiny) != 1:
        err(f"style: need exactly one nearly empty file (heading + link), found {tiny}")


def check_docs() -> dict[str, str]:
    if not os.path.isdir(DOCS):
        err("docs/ folder missing")
        return {}
    docs = read_docs()
    alltext = "\n".join(docs.values())
    check_article_styles(alltext)
    pipe = check_pipe_tables(docs)
    check_html_tables(alltext, pipe)
    check_front_matter(docs)
    check_faq_details(docs, alltext)
    check_file_names(docs)
    check_nearly_empty(docs)
    return docs


def check_groups(docs: dict[str, str]) -> set[str]:
    try:
        groups = json.load(open(GROUPS, encoding="utf-8"))
    except Exception as e:  # noqa: BLE001
        err(f"groups.json unreadable: {e}")
        return set()
    restricted: set[str] = set()
    if not isinstance(groups, dict) or not groups:
        err("groups.json must be a non-empty object")
        return restricted
    for name, grp in groups.items():
        if name not in docs:
            err(f"groups.json names missing file {name}")
        if grp != ["managers"]:
            err(f'groups.json: {name} must map to ["managers"]')
        restricted.add(name)
    return restricted


# ---------------------------------------------------------------- questions
def parse_row(i: int, line: str) -> dict[str, Any] | None:
    """Parse one questions.jsonl line; None (after reporting) when unusable."""
    where = f"line {i}"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as e:
        err(f"{where}: bad JSON ({e})")
        return None
    if list(row.keys()) != FIELDS:
        err(f"{where}: fields {list(row.keys())} != {FIELDS}")
        return None
    return cast("dict[str, Any]", row)


def check_row_fields(i: int, row: dict[str, Any], seen_q: dict[str, str], mix: dict[str, dict[str, int]]) -> bool:
    """qid, split, kind, question, expect and answers type; False when the row stops here."""
    qid, q, ans = row["qid"], row["question"], row["answers"]
    kind, expect, split = row["kind"], row["expect"], row["split"]
    where = f"{qid}"
    if qid != f"as-{i:03d}":
        err(f"line {i}: qid {qid} != as-{i:03d}")
    want_split = "dev" if i <= 30 else "held_out"
    if split != want_split:
        err(f"{where}: split {split} != {want_split}")
    if kind not in MIX:
        err(f"{where}: unknown kind {kind}")
        return False
    if split in mix:
        mix[split][kind] = mix[split].get(kind, 0) + 1
    if not isinstance(q, str) or not q.strip():
        err(f"{where}: empty question")
        return False
    nq = norm(q)
    if nq in seen_q:
        err(f"{where}: duplicate of {seen_q[nq]}")
    seen_q[nq] = qid
    if expect != EXPECT[kind]:
        err(f"{where}: expect {expect} != {EXPECT[kind]} for kind {kind}")
    if not isinstance(ans, list) or not all(isinstance(a, str) for a in ans):
        err(f"{where}: answers must be a list of strings")
        return False
    return True


def check_language(where: str, kind: str, lang: str, q: str) -> None:
    """lang field and script of the question match the kind."""
    if kind == "english":
        if lang != "en":
            err(f"{where}: english question must have lang en")
        if JA_CHAR.search(q):
            err(f"{where}: english question contains Japanese characters")
    else:
        if lang != "ja":
            err(f"{where}: lang must be ja")
        if not JA_CHAR.search(q):
            err(f"{where}: Japanese question has no Japanese characters")
    if kind == "kana" and not KANA_ONLY.match(q):
        err(f"{where}: kana question must be hiragana (plus ー and punctuation) only")


def check_keys(where: str, qid: str, ans: list[str], gold: str, bodies: dict[str, str]) -> None:
    """Each key has a sane length, occurs in the gold body; note other bodies holding it."""
    body = bodies[gold]
    for a in ans:
        na = norm(a)
        if not (KEY_MIN <= len(na) <= KEY_MAX):
            err(f"{where}: key {a!r} length {len(na)} outside {KEY_MIN}-{KEY_MAX}")
        if na not in body:
            err(f"{where}: key {a!r} not found in body of {gold}")
        others = [n for n, b in bodies.items() if n != gold and na in b]
        if others:
            infos.append(f"loose key {qid} {a!r} also in: {', '.join(others)}")


def check_english_keys(where: str, ans: list[str]) -> None:
    """English rows: a Japanese key span, and a digits-only key for every number run."""
    if not any(not a.isascii() for a in ans):
        err(f"{where}: english row needs at least one Japanese key span")
    runs = {r for a in ans if not a.isdigit() for r in re.findall(r"\d{3,}", norm(a))}
    digit_keys = {a for a in ans if a.isdigit()}
    for r in runs:
        if r not in digit_keys:
            err(f"{where}: key contains number {r} but no digits-only key {r!r}")


def check_answerable(row: dict[str, Any], docs: dict[str, str], bodies: dict[str, str], restricted: set[str]) -> None:
    """Gold file and answer keys of an answerable row."""
    qid, gold, ans, kind = row["qid"], row["gold_doc_id"], row["answers"], row["kind"]
    where = f"{qid}"
    if not (1 <= len(ans) <= 3):
        err(f"{where}: answerable row needs 1-3 keys, has {len(ans)}")
    if gold not in docs:
        err(f"{where}: gold file not found: {gold!r}")
        return
    if gold in restricted:
        err(f"{where}: answerable row points to restricted file {gold}")
    check_keys(where, qid, ans, gold, bodies)
    if kind == "english":
        check_english_keys(where, ans)


def check_unanswerable(row: dict[str, Any], restricted: set[str]) -> None:
    """off_topic / too_short / restricted rows: empty answers and the right gold."""
    where = f"{row['qid']}"
    kind, gold, ans = row["kind"], row["gold_doc_id"], row["answers"]
    if kind in ("off_topic", "too_short"):
        if ans != [] or gold != "":
            err(f'{where}: {kind} needs answers [] and gold_doc_id ""')
    elif kind == "restricted":
        if ans != []:
            err(f"{where}: restricted needs answers []")
        if gold not in restricted:
            err(f"{where}: restricted gold must be a file listed in groups.json")


def check_mix(mix: dict[str, dict[str, int]]) -> None:
    for split, counts in mix.items():
        if counts != MIX:
            err(f"kind mix for {split}: {dict(sorted(counts.items()))} != {MIX}")


def check_questions(docs: dict[str, str], restricted: set[str]) -> None:
    try:
        lines = open(QFILE, encoding="utf-8").read().splitlines()
    except OSError as e:
        err(f"questions.jsonl unreadable: {e}")
        return
    if len(lines) != 60:
        err(f"questions.jsonl has {len(lines)} lines, need 60")
    bodies = {n: norm(body_of(t)) for n, t in docs.items()}
    seen_q: dict[str, str] = {}
    mix: dict[str, dict[str, int]] = {"dev": {}, "held_out": {}}
    for i, line in enumerate(lines, 1):
        row = parse_row(i, line)
        if row is None or not check_row_fields(i, row, seen_q, mix):
            continue
        check_language(f"{row['qid']}", row["kind"], row["lang"], row["question"])
        if row["kind"] in ANSWERABLE:
            check_answerable(row, docs, bodies, restricted)
        else:
            check_unanswerable(row, restricted)
    check_mix(mix)


def main() -> int:
    verbose = "-v" in sys.argv
    docs = check_docs()
    restricted = check_groups(docs)
    check_questions(docs, restricted)
    loose = [m for m in infos if m.startswith("loose key")]
    for m in infos:
        if verbose or not m.startswith("loose key"):
            print("info:", m)
    if not verbose and loose:
        print(f"info: {len(loose)} keys also occur in another document (run with -v to list)")
    if errors:
        for e in errors:
            print("FAIL:", e)
        print(f"{len(errors)} problem(s)")
        return 1
    print("OK: all checks passed (60 questions, 15 documents)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
