#!/usr/bin/env python3
"""Validator for the kotonoha_shuppan evaluation set (standard library only).

Usage: python3 check_questions.py   (exit status 0 when every check passes)
"""

from __future__ import annotations

import ast
import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
DOCS = ROOT / "docs"
DOC_COUNT = 15
MIN_TOTAL, MAX_TOTAL = 60_000, 90_000
TINY_LIMIT = 500
MANAGER_MARK = "管理職限定"
MIN_NAME_CHARS = 15
FIELDS = {"qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split"}
KINDS_PER_HALF = {
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
ANSWERABLE = {"paraphrase", "lexical", "number", "kana", "english", "table"}
EXPECT = {
    **{k: "answer" for k in ANSWERABLE},
    "off_topic": "not_found",
    "too_short": "clarify",
    "restricted": "not_found",
}
MARKUP_CHARS = set("|*#<>`[]")
KANA_EXTRA = set("ー、。？！ 　")
COPY_WINDOW = 15
TOO_SHORT_MAX = 8
MAX_FUNC_LINES = 59
SPLITS = (("dev", 1, 30), ("held_out", 31, 60))

Errors = list[str]


def norm(text: str) -> str:
    """NFKC, lower case, all whitespace removed (the matching rule)."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def load_docs(errors: Errors) -> tuple[dict[str, str], dict[str, int]]:
    """Read every file in docs/ as strict UTF-8; return texts and byte sizes."""
    texts: dict[str, str] = {}
    sizes: dict[str, int] = {}
    if not DOCS.is_dir():
        errors.append("docs/ folder is missing")
        return texts, sizes
    for path in sorted(DOCS.iterdir()):
        if not path.is_file():
            errors.append(f"docs/ contains a non-file entry: {path.name}")
            continue
        raw = path.read_bytes()
        sizes[path.name] = len(raw)
        if raw.startswith(b"\xef\xbb\xbf"):
            errors.append(f"{path.name}: has a UTF-8 BOM")
        try:
            texts[path.name] = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            errors.append(f"{path.name}: not valid UTF-8 ({exc})")
    return texts, sizes


def check_doc_files(sizes: dict[str, int], errors: Errors) -> None:
    """File count, total bytes, tiny file, extensions, names, managers file."""
    if len(sizes) != DOC_COUNT:
        errors.append(f"docs/: expected {DOC_COUNT} files, found {len(sizes)}")
    total = sum(sizes.values())
    if not MIN_TOTAL <= total <= MAX_TOTAL:
        errors.append(f"docs/: total {total} bytes not in {MIN_TOTAL}-{MAX_TOTAL}")
    if not any(size < TINY_LIMIT for size in sizes.values()):
        errors.append(f"docs/: no nearly empty document under {TINY_LIMIT} bytes")
    exts = [Path(name).suffix for name in sizes]
    bad = sorted({e for e in exts if e not in {".md", ".txt", ".html"}})
    if bad:
        errors.append(f"docs/: unexpected extensions {bad}")
    if exts.count(".html") != 2:
        errors.append(f"docs/: expected exactly 2 .html files, found {exts.count('.html')}")
    if exts.count(".md") < 1 or exts.count(".txt") < 1:
        errors.append("docs/: need both .md and .txt files")
    for name in sizes:
        if len(Path(name).stem) < MIN_NAME_CHARS:
            errors.append(f"{name}: file name is not long and descriptive")
    managers = [n for n in sizes if MANAGER_MARK in n]
    if len(managers) != 1:
        errors.append(f"docs/: expected one file named with {MANAGER_MARK}, found {len(managers)}")


def has_front_matter_title(text: str) -> bool:
    """True when the text opens with YAML front matter holding a title: key."""
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    return bool(match and re.search(r"^title:\s*\S", match.group(1), re.M))


def has_pipe_table(text: str) -> bool:
    """True when the text holds a Markdown pipe table separator row."""
    return re.search(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$", text, re.M) is not None


def has_br_in_table_cell(text: str) -> bool:
    """True when an HTML <table> has a <td>/<th> cell containing <br>."""
    if "<table" not in text:
        return False
    cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", text, re.S)
    return any(re.search(r"<br\s*/?>", cell) for cell in cells)


def faq_pairs(text: str) -> int:
    """Number of Q:/A: pairs (lines starting with Q: and A:)."""
    qs = len(re.findall(r"^Q[:：]", text, re.M))
    ans = len(re.findall(r"^A[:：]", text, re.M))
    return min(qs, ans)


def check_doc_formats(texts: dict[str, str], errors: Errors) -> None:
    """Front matter, ■ headings, pipe tables, HTML table with <br>, FAQ, tiny doc."""
    md = {n: t for n, t in texts.items() if n.endswith(".md")}
    if sum(has_front_matter_title(t) for t in md.values()) < 2:
        errors.append("docs/: fewer than 2 .md files with YAML front matter title:")
    for name, text in texts.items():
        if name.endswith(".txt") and not re.search(r"^■", text, re.M):
            errors.append(f"{name}: .txt notice without ■ headings")
        if name.endswith(".html") and not re.search(r"<html[^>]*>.*</html>", text, re.S):
            errors.append(f"{name}: not a complete HTML page")
    if sum(has_pipe_table(t) for t in texts.values()) < 3:
        errors.append("docs/: fewer than 3 documents with pipe tables")
    if not any(has_br_in_table_cell(t) for t in texts.values()):
        errors.append("docs/: no HTML <table> with <br> inside a cell")
    if not any(faq_pairs(t) >= 5 for t in texts.values()):
        errors.append("docs/: no FAQ document with at least 5 Q:/A: pairs")
    tiny = [t for t in texts.values() if len(t.encode("utf-8")) < TINY_LIMIT]
    for text in tiny:
        links = re.findall(r"https?://\S+", text)
        if len(links) != 1 or not re.search(r"^#\s*\S", text, re.M):
            errors.append("nearly empty document must hold a title and one external link")


def check_groups(names: list[str], errors: Errors) -> str:
    """groups.json maps exactly the managers-only file to ["managers"]."""
    managers = [n for n in names if MANAGER_MARK in n]
    manager = managers[0] if managers else ""
    try:
        groups = json.loads((ROOT / "groups.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        errors.append(f"groups.json: cannot be read ({exc})")
        return manager
    if groups != {manager: ["managers"]}:
        errors.append(f"groups.json: expected {{{manager!r}: ['managers']}}, got {groups!r}")
    return manager


def load_questions(errors: Errors) -> list[dict[str, Any]]:
    """Read questions.jsonl: exactly 60 JSON objects, one per line."""
    path = ROOT / "questions.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        errors.append(f"questions.jsonl: cannot be read ({exc})")
        return []
    if len(lines) != 60:
        errors.append(f"questions.jsonl: expected 60 lines, found {len(lines)}")
    questions: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except ValueError as exc:
            errors.append(f"questions.jsonl line {number}: invalid JSON ({exc})")
            continue
        if not isinstance(obj, dict):
            errors.append(f"questions.jsonl line {number}: not a JSON object")
            continue
        questions.append(obj)
    return questions


def check_shape(q: dict[str, Any], index: int, errors: Errors) -> bool:
    """Exact field set, types, qid sequence and split per position."""
    qid = f"kn-{index:03d}"
    if set(q) != FIELDS:
        errors.append(f"{qid}: fields {sorted(q)} differ from {sorted(FIELDS)}")
        return False
    if q["qid"] != qid:
        errors.append(f"line {index}: qid {q['qid']!r}, expected {qid!r}")
    for key in FIELDS - {"answers"}:
        if not isinstance(q[key], str):
            errors.append(f"{qid}: field {key} must be a string")
            return False
    if not isinstance(q["answers"], list) or not all(isinstance(a, str) for a in q["answers"]):
        errors.append(f"{qid}: answers must be a list of strings")
        return False
    split = next(s for s, lo, hi in SPLITS if lo <= index <= hi) if index <= 60 else "?"
    if q["split"] != split:
        errors.append(f"{qid}: split {q['split']!r}, expected {split!r}")
    if q["kind"] not in KINDS_PER_HALF:
        errors.append(f"{qid}: unknown kind {q['kind']!r}")
        return False
    return True


def check_kind_counts(questions: list[dict[str, Any]], errors: Errors) -> None:
    """Each half (dev, held_out) holds the required number of each kind."""
    for split, _, _ in SPLITS:
        counts: dict[str, int] = {}
        for q in questions:
            if q.get("split") == split:
                counts[q.get("kind", "?")] = counts.get(q.get("kind", "?"), 0) + 1
        if counts != KINDS_PER_HALF:
            errors.append(f"{split}: kind counts {counts} differ from {KINDS_PER_HALF}")


def check_expect_lang(q: dict[str, Any], errors: Errors) -> None:
    """expect follows the kind; lang is en only for english."""
    kind = q["kind"]
    if q["expect"] != EXPECT[kind]:
        errors.append(f"{q['qid']}: expect {q['expect']!r}, kind {kind} needs {EXPECT[kind]!r}")
    lang = "en" if kind == "english" else "ja"
    if q["lang"] != lang:
        errors.append(f"{q['qid']}: lang {q['lang']!r}, kind {kind} needs {lang!r}")


def check_gold(q: dict[str, Any], texts: dict[str, str], manager: str, errors: Errors) -> None:
    """gold_doc_id and the number of answers follow the kind."""
    qid, kind, gold, answers = q["qid"], q["kind"], q["gold_doc_id"], q["answers"]
    if kind in ANSWERABLE:
        if gold not in texts:
            errors.append(f"{qid}: gold_doc_id {gold!r} is not a file in docs/")
        elif gold == manager:
            errors.append(f"{qid}: answerable question must not use the managers-only file")
        if not 1 <= len(answers) <= 3:
            errors.append(f"{qid}: needs 1-3 answers, has {len(answers)}")
    elif kind == "restricted":
        if gold != manager or answers:
            errors.append(f"{qid}: restricted needs gold = managers file and answers []")
    elif gold != "" or answers:
        errors.append(f"{qid}: {kind} needs gold_doc_id '' and answers []")


def check_answers(q: dict[str, Any], texts: dict[str, str], errors: Errors) -> None:
    """Answers: 3-20 chars, no markup, verbatim in gold, absent from question and other docs."""
    qid, gold = q["qid"], q["gold_doc_id"]
    if gold not in texts:
        return
    normed = {name: norm(text) for name, text in texts.items()}
    question = norm(q["question"])
    for answer in q["answers"]:
        key = norm(answer)
        if not 3 <= len(answer) <= 20 or answer != answer.strip():
            errors.append(f"{qid}: answer {answer!r} must be 3-20 characters, trimmed")
        if MARKUP_CHARS & set(answer) or "\n" in answer:
            errors.append(f"{qid}: answer {answer!r} contains markup")
        if gold.endswith(".html") and "br" in key:
            errors.append(f"{qid}: answer {answer!r} spans HTML markup")
        if key not in normed[gold]:
            errors.append(f"{qid}: answer {answer!r} not found in gold document")
        if key in question:
            errors.append(f"{qid}: answer {answer!r} is contained in the question")
        others = [n for n, t in normed.items() if n != gold and key in t]
        if others:
            errors.append(f"{qid}: answer {answer!r} also occurs in {others}")


def check_no_copy(q: dict[str, Any], texts: dict[str, str], errors: Errors) -> None:
    """The question must not copy a sentence (15+ characters) of its gold document."""
    gold = q["gold_doc_id"]
    if gold not in texts:
        return
    question, doc = norm(q["question"]), norm(texts[gold])
    for start in range(max(0, len(question) - COPY_WINDOW + 1)):
        piece = question[start : start + COPY_WINDOW]
        if piece in doc:
            errors.append(f"{q['qid']}: question copies the document: {piece!r}")
            return


def is_hiragana_only(text: str) -> bool:
    """True when text is hiragana (plus ー and light punctuation) only."""
    letters = [ch for ch in text if ch not in KANA_EXTRA]
    return len(letters) >= 5 and all("\u3041" <= ch <= "\u309f" for ch in letters)


def check_script(q: dict[str, Any], errors: Errors) -> None:
    """kana questions are hiragana only; english is ASCII; others are Japanese."""
    qid, kind, text = q["qid"], q["kind"], q["question"]
    if text != text.strip() or not text:
        errors.append(f"{qid}: question is empty or has surrounding spaces")
    if kind == "kana" and not is_hiragana_only(text):
        errors.append(f"{qid}: kana question must be all hiragana")
    if kind == "english":
        if not text.isascii() or not re.search(r"[A-Za-z]{3,}", text):
            errors.append(f"{qid}: english question must be plain ASCII English")
    elif not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", text):
        errors.append(f"{qid}: Japanese question has no Japanese characters")
    if kind == "too_short" and len(text) > TOO_SHORT_MAX:
        errors.append(f"{qid}: too_short question longer than {TOO_SHORT_MAX} characters")
    if kind != "too_short" and len(text) <= TOO_SHORT_MAX:
        errors.append(f"{qid}: question too short for kind {kind}")


def check_duplicates(questions: list[dict[str, Any]], errors: Errors) -> None:
    """No two questions are equal after normalisation."""
    seen: dict[str, str] = {}
    for q in questions:
        key = norm(str(q.get("question", "")))
        if key in seen:
            errors.append(f"{q.get('qid')}: duplicates the question of {seen[key]}")
        seen[key] = str(q.get("qid"))


def readme_rows(text: str) -> dict[str, str]:
    """Map first cell -> second cell for every pipe-table row of the README."""
    rows: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("|") and line.count("|") >= 3:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[1]
    return rows


def check_readme(sizes: dict[str, int], errors: Errors) -> None:
    """README.md is Japanese, names the rules and lists every file with its bytes."""
    try:
        text = (ROOT / "README.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        errors.append(f"README.md: cannot be read ({exc})")
        return
    for word in ("ことのは出版", "NFKC", "2026-12-06", "管理職限定", "小文字", "空白"):
        if word not in text:
            errors.append(f"README.md: does not mention {word!r}")
    if len(re.findall(r"[\u3040-\u30ff]", text)) < 300:
        errors.append("README.md: is not written in Japanese")
    rows = readme_rows(text)
    expected = dict(sizes, **{"合計": sum(sizes.values())})
    for name, size in expected.items():
        cell = rows.get(name)
        digits = re.sub(r"[^0-9]", "", cell or "")
        if digits != str(size):
            errors.append(f"README.md: row for {name!r} should show {size} bytes, has {cell!r}")


def check_self(errors: Errors) -> None:
    """Every function in this file is under 60 lines and fully type-annotated."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        length = (node.end_lineno or node.lineno) - node.lineno + 1
        if length > MAX_FUNC_LINES:
            errors.append(f"check_questions.py: {node.name} has {length} lines")
        args = node.args
        every = args.posonlyargs + args.args + args.kwonlyargs
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        if node.returns is None or any(a.annotation is None for a in every):
            errors.append(f"check_questions.py: {node.name} lacks type annotations")


def main() -> int:
    """Run every check, print the problems, return the exit status."""
    errors: Errors = []
    texts, sizes = load_docs(errors)
    check_doc_files(sizes, errors)
    check_doc_formats(texts, errors)
    manager = check_groups(sorted(sizes), errors)
    questions = load_questions(errors)
    valid = [q for i, q in enumerate(questions, 1) if check_shape(q, i, errors)]
    check_kind_counts(valid, errors)
    for q in valid:
        check_expect_lang(q, errors)
        check_gold(q, texts, manager, errors)
        check_answers(q, texts, errors)
        check_no_copy(q, texts, errors)
        check_script(q, errors)
    check_duplicates(valid, errors)
    check_readme(sizes, errors)
    check_self(errors)
    for problem in errors:
        print("NG:", problem)
    status = "FAILED" if errors else "PASSED"
    print(
        f"{status}: {len(sizes)} documents, {sum(sizes.values())} bytes, "
        f"{len(questions)} questions, {len(errors)} problem(s)"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
