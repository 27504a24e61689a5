"""Build and validate the golden evaluation corpus of the demo documents.

Writes ``golden/corpus.jsonl`` with one line per *current* demo document
(``{"doc_id", "title", "text"}``, the format ``manage.py evaluate`` reads) and
checks ``golden/queries.jsonl`` against it. Pure Python plus BeautifulSoup: no
Django, so it runs before the project is set up and from tests without settings.

A query is ``{"qid", "question", "gold_doc_id", "answers", "kind", "lang",
"expect", "split"}`` and, for two-fact questions, ``"answers_all"``:

- ``expect``: what the employee (no groups) must get: ``answer``, ``not_found``
  (off-topic questions, and facts only a restricted document holds) or
  ``clarify`` (several documents answer it in different senses; those are
  listed in ``candidate_doc_ids``). It follows from ``kind`` (:data:`EXPECT_BY_KIND`).
- ``answers``: answer keys, one of which a correct answer contains;
  ``answers_all``: keys that must all appear. Every key occurs verbatim in the
  gold document. A restricted query's keys are the facts a manager would get:
  they occur in its restricted gold document and in no visible one.
- ``split``: ``dev`` (tune on it) or ``held_out`` (report on it), about 30 %
  of each kind held out. ``--assign-splits`` gives new queries theirs
  (:func:`assign_splits`); a query never changes sides.

Usage (from the project root)::

    python documents/demo_corpus/golden/build_corpus.py          # write corpus.jsonl
    python documents/demo_corpus/golden/build_corpus.py --check  # verify only
    python documents/demo_corpus/golden/build_corpus.py --assign-splits  # split new queries, then write

Exit status is 0 when every query is valid (and, with ``--check``, when the
committed ``corpus.jsonl`` is up to date), 1 otherwise; problems go to stderr.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from hashlib import sha256
from pathlib import Path

from bs4 import BeautifulSoup

GOLDEN_DIR = Path(__file__).resolve().parent
CORPUS_DIR = GOLDEN_DIR.parent
QUERIES_PATH = GOLDEN_DIR / "queries.jsonl"
CORPUS_PATH = GOLDEN_DIR / "corpus.jsonl"
GROUPS_PATH = CORPUS_DIR / "groups.json"

DOCUMENT_SUFFIXES = frozenset({".md", ".txt", ".html"})
# Files that sit next to the documents but describe the corpus rather than
# belong to it; the demo loader must skip them too.
NOT_DOCUMENTS = frozenset({"ATTRIBUTION.md"})
# What the employee must get for each kind of question.
EXPECT_BY_KIND = {
    "lexical": "answer",
    "paraphrase": "answer",
    "table": "answer",
    "english": "answer",
    "two_fact": "answer",
    "off_topic": "not_found",
    "restricted": "not_found",
    "ambiguous": "clarify",
}
QUERY_KINDS = frozenset(EXPECT_BY_KIND)
LANGS = frozenset({"ja", "en"})
SPLITS = ("dev", "held_out")
HELD_OUT_SHARE = 0.3

_MD_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")


@dataclass(frozen=True)
class CorpusDocument:
    """One current demo document as the evaluation sees it."""

    doc_id: str
    title: str
    text: str

    def as_json(self) -> dict[str, str]:
        return {"doc_id": self.doc_id, "title": self.title, "text": self.text}


def current_document_paths(corpus_dir: Path = CORPUS_DIR) -> list[Path]:
    """Return the current (live) documents, sorted by file name.

    Only files directly inside ``corpus_dir`` count: ``history/`` holds older
    versions and ``golden/`` the evaluation set.
    """
    return sorted(
        p
        for p in corpus_dir.iterdir()
        if p.is_file() and p.suffix.lower() in DOCUMENT_SUFFIXES and p.name not in NOT_DOCUMENTS
    )


def html_visible_text(raw: str) -> str:
    """Return the text a reader sees in an HTML page, one block per line.

    Markup, ``<head>``, scripts and styles are dropped; blank lines are removed
    so that the text does not depend on the source's indentation.
    """
    soup = BeautifulSoup(raw, "html.parser")
    for tag in soup(["head", "script", "style", "template"]):
        tag.decompose()
    lines = (line.strip() for line in soup.get_text("\n").splitlines())
    return "\n".join(line for line in lines if line)


def document_text(path: Path) -> str:
    """Return the full text of a demo document (visible text for ``.html``).

    Files are UTF-8; a BOM is tolerated and removed.
    """
    raw = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() == ".html":
        return html_visible_text(raw)
    return raw


def document_title(path: Path) -> str:
    """Return the first heading of a document, or its file name when it has none.

    Markdown: the first ``#`` heading. HTML: the first ``h1``–``h3``, else
    ``<title>``. Plain text has no markup, so its first non-empty line serves as
    the heading (the demo ``.txt`` files start with their title).
    """
    raw = path.read_text(encoding="utf-8-sig")
    suffix = path.suffix.lower()
    if suffix == ".md":
        for line in raw.splitlines():
            match = _MD_HEADING.match(line)
            if match:
                return match.group(1)
    elif suffix == ".html":
        soup = BeautifulSoup(raw, "html.parser")
        tag = soup.find(["h1", "h2", "h3"]) or soup.find("title")
        if tag is not None and tag.get_text(strip=True):
            return tag.get_text(" ", strip=True)
    else:
        for line in raw.splitlines():
            if line.strip():
                return line.strip()
    return path.name


def build_documents(corpus_dir: Path = CORPUS_DIR) -> list[CorpusDocument]:
    """Return every current document of ``corpus_dir`` as a ``CorpusDocument``."""
    return [
        CorpusDocument(doc_id=p.name, title=document_title(p), text=document_text(p))
        for p in current_document_paths(corpus_dir)
    ]


def _hash_order(qid: object) -> str:
    return sha256(str(qid).encode("utf-8")).hexdigest()


def assign_splits(queries: list[dict[str, object]]) -> dict[str, str]:
    """The split of every query (qid -> ``"dev"`` | ``"held_out"``).

    A query that has a split keeps it, so one tuned on never moves to the
    held-out side. Queries without one are taken per kind in the order of a
    hash of their qid and held out while fewer than :data:`HELD_OUT_SHARE` of
    the kind's queries are: every kind keeps about that share held out, and
    the result depends only on the queries, not on who runs it.
    """
    splits = {str(q["qid"]): str(q["split"]) for q in queries if q.get("split") in SPLITS}
    kinds: dict[object, list[dict[str, object]]] = {}
    for query in queries:
        kinds.setdefault(query.get("kind"), []).append(query)
    for members in kinds.values():
        target = round(len(members) * HELD_OUT_SHARE)
        held = sum(splits.get(str(q["qid"])) == "held_out" for q in members)
        for query in sorted((q for q in members if str(q["qid"]) not in splits), key=lambda q: _hash_order(q["qid"])):
            splits[str(query["qid"])] = "held_out" if held < target else "dev"
            held += splits[str(query["qid"])] == "held_out"
    return splits


def write_splits(path: Path = QUERIES_PATH) -> None:
    """Give every query of ``path`` without a split the one :func:`assign_splits` chooses (other lines unchanged)."""
    queries = load_queries(path)
    splits = assign_splits(queries)
    for query in queries:
        query.setdefault("split", splits[str(query["qid"])])
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries), encoding="utf-8")


def _split_problems(queries: list[dict[str, object]]) -> list[str]:
    """Queries without a split, and kinds whose held-out share is off :data:`HELD_OUT_SHARE` by more than one query."""
    problems = [f"query {q.get('qid')!r}: split must be one of {list(SPLITS)}" for q in queries if q.get("split") not in SPLITS]
    kinds: dict[object, list[object]] = {}
    for query in queries:
        kinds.setdefault(query.get("kind"), []).append(query.get("split"))
    for kind, splits in sorted(kinds.items(), key=lambda item: str(item[0])):
        held, target = splits.count("held_out"), round(len(splits) * HELD_OUT_SHARE)
        if abs(held - target) > 1:
            problems.append(f"kind {kind!r}: {held} of {len(splits)} queries held out, want about {target}")
    return problems


def load_queries(path: Path = QUERIES_PATH) -> list[dict[str, object]]:
    """Read the golden queries (one JSON object per non-empty line)."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_groups(path: Path = GROUPS_PATH) -> dict[str, list[str]]:
    """Read the access groups of restricted documents (file name -> group names)."""
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def validate_queries(
    documents: list[CorpusDocument],
    queries: list[dict[str, object]],
    restricted: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """Return a list of problems with ``queries``; an empty list means valid.

    Every query needs a unique ``qid``, a non-empty ``question``, a known
    ``kind`` with its ``expect`` (:data:`EXPECT_BY_KIND`), a ``lang`` (``en``
    exactly for ASCII questions) and a ``split``; each kind keeps about
    :data:`HELD_OUT_SHARE` held out (:func:`assign_splits`). Then, by what is
    expected:

    - ``answer``: a ``gold_doc_id`` naming a current, unrestricted document and
      at least one key (``answers`` or ``answers_all``), each verbatim in it;
      a ``table`` query's keys on table rows (``|`` lines) of it;
    - ``not_found``: no keys and no gold document, except ``restricted``
      queries, whose gold document is restricted and whose keys occur in it and
      in no unrestricted document;
    - ``clarify``: no keys, no gold document, and ``candidate_doc_ids`` naming
      at least two current, unrestricted documents.
    """
    texts = {doc.doc_id: doc.text for doc in documents}
    visible = [text for doc_id, text in texts.items() if doc_id not in restricted]
    problems: list[str] = []
    seen: set[object] = set()
    for number, query in enumerate(queries, start=1):
        qid = query.get("qid")
        where = f"query {qid!r} (line {number})"
        if not qid or qid in seen:
            problems.append(f"{where}: missing or duplicate qid")
        seen.add(qid)
        question = str(query.get("question") or "").strip()
        if not question:
            problems.append(f"{where}: empty question")
        kind = query.get("kind")
        if kind not in QUERY_KINDS:
            problems.append(f"{where}: kind must be one of {sorted(QUERY_KINDS)}")
            continue
        expect = EXPECT_BY_KIND[str(kind)]
        if query.get("expect") != expect:
            problems.append(f"{where}: expect must be {expect!r} for a {kind} query")
        if query.get("lang") != ("en" if question.isascii() else "ja"):
            problems.append(f"{where}: lang must be 'en' for an ASCII question, else 'ja'")
        problems.extend(f"{where}: {p}" for p in _expectation_problems(query, str(kind), expect, texts, visible, restricted))
    return problems + _split_problems(queries)


def _expectation_problems(
    query: dict[str, object],
    kind: str,
    expect: str,
    texts: dict[str, str],
    visible: list[str],
    restricted: set[str] | frozenset[str],
) -> list[str]:
    """What is wrong with the gold document and keys of one query, given what it expects."""
    gold = query.get("gold_doc_id")
    keys = _listed(query, "answers") + _listed(query, "answers_all")
    if expect == "answer" or kind == "restricted":
        if gold not in texts:
            return [f"gold_doc_id {gold!r} is not a current document"]
        if (gold in restricted) != (kind == "restricted"):
            return [f"gold_doc_id {gold!r} is {'' if gold in restricted else 'not '}restricted to a group"]
        if not keys:
            return ["answers must be a non-empty list"]
        text = texts[str(gold)]
        problems = [
            f"answer {key!r} does not occur verbatim in {gold}"
            for key in keys
            if not isinstance(key, str) or not key or key not in text
        ]
        if kind == "table":
            rows = [line for line in text.splitlines() if line.lstrip().startswith("|")]
            problems += [f"answer {key!r} is on no table row of {gold}" for key in keys if not any(key in r for r in rows)]
        if kind == "restricted":
            problems += [f"answer {key!r} occurs in a visible document" for key in keys if any(key in t for t in visible)]
        return problems
    problems = []
    if gold is not None or keys:
        problems.append(f"a query that expects {expect!r} must have no gold_doc_id and no answers")
    if expect == "clarify":
        candidates = _listed(query, "candidate_doc_ids")
        if len(candidates) < 2 or any(c not in texts or c in restricted for c in candidates):
            problems.append("candidate_doc_ids must name at least two visible documents")
    return problems


def _listed(query: dict[str, object], field: str) -> list[object]:
    """The list in ``query[field]`` (empty when absent; a non-list is one bad item, reported as such)."""
    value = query.get(field)
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def corpus_jsonl(documents: list[CorpusDocument]) -> str:
    """Serialise documents as JSON Lines (UTF-8 text, not ASCII escapes)."""
    return "".join(json.dumps(doc.as_json(), ensure_ascii=False) + "\n" for doc in documents)


def main(argv: list[str] | None = None) -> int:
    """Validate the golden set and write (or, with ``--check``, verify) corpus.jsonl."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="do not write; fail if corpus.jsonl is out of date")
    mode.add_argument(
        "--assign-splits", action="store_true", help="first give queries without a split theirs (rewrites queries.jsonl)"
    )
    args = parser.parse_args(argv)

    documents = build_documents()
    if args.assign_splits:
        write_splits(QUERIES_PATH)
    problems = validate_queries(documents, load_queries(), set(load_groups()))
    content = corpus_jsonl(documents)
    if args.check:
        existing = CORPUS_PATH.read_text(encoding="utf-8") if CORPUS_PATH.exists() else ""
        if existing != content:
            problems.append(f"{CORPUS_PATH.name} is out of date: run {Path(__file__).name}")
    elif not problems:
        CORPUS_PATH.write_text(content, encoding="utf-8")

    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f"{len(documents)} documents, {len(load_queries())} queries: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
