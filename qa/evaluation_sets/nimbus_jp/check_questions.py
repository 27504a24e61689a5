"""Validate the Nimbus Analytics (JP) evaluation set.

Reads only files inside this folder: docs/*.md, groups.json and questions.jsonl.
Exits 0 when every check passes, 1 otherwise.  Standard library only.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent
DOCS_DIR = ROOT / "docs"
QUESTIONS_FILE = ROOT / "questions.jsonl"
GROUPS_FILE = ROOT / "groups.json"

EXPECTED_LINES = 60
EXPECTED_DOCS = 15
MIN_TOTAL_BYTES = 60_000
MAX_TOTAL_BYTES = 90_000
MIN_ANSWER_CHARS = 3
MAX_ANSWER_CHARS = 20
MAX_ANSWERS = 3
HIRAGANA_FIRST = 0x3041
HIRAGANA_LAST = 0x309F
ASCII_PRINTABLE_FIRST = 0x20
ASCII_PRINTABLE_END = 0x7F

FIELDS = ("qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split")
SPLITS = ("dev", "held_out")
KIND_COUNTS_PER_HALF: dict[str, int] = {
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
EXPECT_BY_KIND: dict[str, str] = {
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
NO_DOC_KINDS = frozenset({"off_topic", "too_short"})


@dataclass(frozen=True)
class Question:
    """One parsed line of questions.jsonl."""

    line_no: int
    qid: str
    question: str
    gold_doc_id: str
    answers: tuple[str, ...]
    kind: str
    lang: str
    expect: str
    split: str


def normalise(text: str) -> str:
    """NFKC-normalise, lower-case and remove all whitespace."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return "".join(folded.split())


def is_hiragana_only(text: str) -> bool:
    """Return True when every character is in the hiragana block."""
    return bool(text) and all(HIRAGANA_FIRST <= ord(ch) <= HIRAGANA_LAST for ch in text)


def is_ascii_only(text: str) -> bool:
    """Return True when every character is printable ASCII."""
    return bool(text) and all(ASCII_PRINTABLE_FIRST <= ord(ch) < ASCII_PRINTABLE_END for ch in text)


def load_docs(errors: list[str]) -> dict[str, str]:
    """Read docs/*.md and check the count and total size."""
    paths = sorted(p for p in DOCS_DIR.iterdir() if p.is_file()) if DOCS_DIR.is_dir() else []
    non_md = [p.name for p in paths if p.suffix != ".md"]
    if non_md:
        errors.append(f"docs/: non-Markdown files present: {non_md}")
    md_paths = [p for p in paths if p.suffix == ".md"]
    if len(md_paths) != EXPECTED_DOCS:
        errors.append(f"docs/: expected {EXPECTED_DOCS} .md files, found {len(md_paths)}")
    total = sum(p.stat().st_size for p in md_paths)
    if not MIN_TOTAL_BYTES <= total <= MAX_TOTAL_BYTES:
        errors.append(f"docs/: total size {total} bytes outside {MIN_TOTAL_BYTES}-{MAX_TOTAL_BYTES}")
    docs: dict[str, str] = {}
    for path in md_paths:
        try:
            docs[path.name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            errors.append(f"docs/{path.name}: not valid UTF-8")
    return docs


def load_groups(docs: dict[str, str], errors: list[str]) -> set[str]:
    """Read groups.json and return the set of restricted document names."""
    try:
        raw: object = json.loads(GROUPS_FILE.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        errors.append(f"groups.json: cannot read: {exc}")
        return set()
    if not isinstance(raw, dict) or not raw:
        errors.append("groups.json: must be a non-empty object")
        return set()
    restricted: set[str] = set()
    for name, groups in raw.items():
        if not isinstance(groups, list) or not groups or not all(isinstance(g, str) and g for g in groups):
            errors.append(f"groups.json: groups for {name!r} must be a non-empty list of strings")
        if name not in docs:
            errors.append(f"groups.json: {name!r} is not a file in docs/")
        restricted.add(str(name))
    return restricted


def parse_line(line_no: int, line: str, errors: list[str]) -> Question | None:
    """Parse one JSONL line into a Question, recording type errors."""
    where = f"questions.jsonl:{line_no}"
    try:
        raw: object = json.loads(line)
    except json.JSONDecodeError as exc:
        errors.append(f"{where}: invalid JSON: {exc}")
        return None
    if not isinstance(raw, dict):
        errors.append(f"{where}: not a JSON object")
        return None
    if tuple(sorted(raw)) != tuple(sorted(FIELDS)):
        errors.append(f"{where}: fields {sorted(raw)} != {sorted(FIELDS)}")
        return None
    strings = {key: raw[key] for key in FIELDS if key != "answers"}
    bad = [key for key, value in strings.items() if not isinstance(value, str)]
    answers = raw["answers"]
    if bad or not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        errors.append(f"{where}: wrong field types (bad strings: {bad}, answers must be a list of strings)")
        return None
    text = {key: str(value) for key, value in strings.items()}
    return Question(
        line_no=line_no,
        qid=text["qid"],
        question=text["question"],
        gold_doc_id=text["gold_doc_id"],
        answers=tuple(str(a) for a in answers),
        kind=text["kind"],
        lang=text["lang"],
        expect=text["expect"],
        split=text["split"],
    )


def load_questions(errors: list[str]) -> list[Question]:
    """Read questions.jsonl and check the line count."""
    try:
        lines = QUESTIONS_FILE.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        errors.append(f"questions.jsonl: cannot read: {exc}")
        return []
    if len(lines) != EXPECTED_LINES:
        errors.append(f"questions.jsonl: expected {EXPECTED_LINES} lines, found {len(lines)}")
    parsed = [parse_line(i, line, errors) for i, line in enumerate(lines, 1)]
    return [q for q in parsed if q is not None]


def check_order_and_splits(questions: list[Question], errors: list[str]) -> None:
    """Check qids nb-001..nb-060 in order, first half dev, second half held_out."""
    half = EXPECTED_LINES // 2
    for index, q in enumerate(questions):
        expected_qid = f"nb-{index + 1:03d}"
        if q.qid != expected_qid:
            errors.append(f"line {q.line_no}: qid {q.qid!r}, expected {expected_qid!r}")
        expected_split = SPLITS[0] if index < half else SPLITS[1]
        if q.split != expected_split:
            errors.append(f"{q.qid}: split {q.split!r}, expected {expected_split!r}")
    duplicates = [text for text, n in Counter(q.question for q in questions).items() if n > 1]
    if duplicates:
        errors.append(f"duplicate questions: {duplicates}")


def check_mix(questions: list[Question], errors: list[str]) -> None:
    """Check that each split holds exactly the required number of questions per kind."""
    for split in SPLITS:
        counts = Counter(q.kind for q in questions if q.split == split)
        if dict(counts) != KIND_COUNTS_PER_HALF:
            errors.append(f"split {split}: kind mix {dict(sorted(counts.items()))} != {KIND_COUNTS_PER_HALF}")


def check_gold(q: Question, docs: dict[str, str], restricted: set[str], errors: list[str]) -> None:
    """Check gold_doc_id against the kind: none, the restricted file, or an existing open file."""
    if q.kind in NO_DOC_KINDS:
        if q.gold_doc_id:
            errors.append(f"{q.qid}: {q.kind} must have an empty gold_doc_id")
    elif q.kind == "restricted":
        if q.gold_doc_id not in restricted:
            errors.append(f"{q.qid}: restricted gold_doc_id {q.gold_doc_id!r} is not in groups.json")
    elif q.gold_doc_id not in docs:
        errors.append(f"{q.qid}: gold_doc_id {q.gold_doc_id!r} not found in docs/")
    elif q.gold_doc_id in restricted:
        errors.append(f"{q.qid}: answerable question points at restricted file {q.gold_doc_id!r}")


def check_answers(q: Question, docs: dict[str, str], errors: list[str]) -> None:
    """Check answer count, length and presence in the normalised gold document."""
    if EXPECT_BY_KIND.get(q.kind) != "answer":
        if q.answers:
            errors.append(f"{q.qid}: {q.kind} must have answers []")
        return
    if not 1 <= len(q.answers) <= MAX_ANSWERS:
        errors.append(f"{q.qid}: needs 1-{MAX_ANSWERS} answers, has {len(q.answers)}")
    haystack = normalise(docs.get(q.gold_doc_id, ""))
    for answer in q.answers:
        if not MIN_ANSWER_CHARS <= len(answer) <= MAX_ANSWER_CHARS:
            errors.append(f"{q.qid}: answer {answer!r} has {len(answer)} chars")
        if normalise(answer) not in haystack:
            errors.append(f"{q.qid}: answer {answer!r} not found in {q.gold_doc_id}")


def check_text(q: Question, errors: list[str]) -> None:
    """Check kind, expect and lang agree, and kana and english questions use the right script."""
    if q.kind not in EXPECT_BY_KIND:
        errors.append(f"{q.qid}: unknown kind {q.kind!r}")
        return
    if q.expect != EXPECT_BY_KIND[q.kind]:
        errors.append(f"{q.qid}: expect {q.expect!r}, expected {EXPECT_BY_KIND[q.kind]!r}")
    expected_lang = "en" if q.kind == "english" else "ja"
    if q.lang != expected_lang:
        errors.append(f"{q.qid}: lang {q.lang!r}, expected {expected_lang!r}")
    if not q.question.strip():
        errors.append(f"{q.qid}: empty question")
    if q.kind == "kana" and not is_hiragana_only(q.question):
        errors.append(f"{q.qid}: kana question must be hiragana only")
    if q.kind == "english" and not is_ascii_only(q.question):
        errors.append(f"{q.qid}: english question must be ASCII only")


def run_checks() -> tuple[list[str], str]:
    """Run every check; return the errors and a one-line summary."""
    errors: list[str] = []
    docs = load_docs(errors)
    restricted = load_groups(docs, errors)
    questions = load_questions(errors)
    check_order_and_splits(questions, errors)
    check_mix(questions, errors)
    for q in questions:
        check_text(q, errors)
        check_gold(q, docs, restricted, errors)
        check_answers(q, docs, errors)
    total_bytes = sum(len(text.encode("utf-8")) for text in docs.values())
    answer_count = sum(len(q.answers) for q in questions)
    summary = (
        f"{len(docs)} docs, {total_bytes} bytes; {len(questions)} questions, "
        f"{answer_count} answer strings; restricted: {sorted(restricted)}"
    )
    return errors, summary


def main() -> int:
    """Entry point: print the result and return the exit status."""
    errors, summary = run_checks()
    if errors:
        for error in errors:
            print(f"FAIL: {error}")
        print(f"{len(errors)} problem(s); {summary}")
        return 1
    print(f"OK: all checks passed; {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
