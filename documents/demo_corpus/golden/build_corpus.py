"""Build and validate the golden evaluation corpus of the demo documents.

Writes ``golden/corpus.jsonl`` with one line per *current* demo document
(``{"doc_id", "title", "text"}``, the format ``manage.py evaluate`` reads) and
checks ``golden/queries.jsonl`` against it. Pure Python plus BeautifulSoup: no
Django, so it runs before the project is set up and from tests without settings.

Usage (from the project root)::

    python documents/demo_corpus/golden/build_corpus.py          # write corpus.jsonl
    python documents/demo_corpus/golden/build_corpus.py --check  # verify only

Exit status is 0 when every query is valid (and, with ``--check``, when the
committed ``corpus.jsonl`` is up to date), 1 otherwise; problems go to stderr.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
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
QUERY_KINDS = frozenset({"lexical", "paraphrase"})

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

    Each query needs a unique ``qid``, a non-empty ``question``, a
    ``gold_doc_id`` naming a current, unrestricted document, a ``kind`` of
    lexical/paraphrase, and at least one answer; every answer must occur
    verbatim in the gold document's text.
    """
    texts = {doc.doc_id: doc.text for doc in documents}
    problems: list[str] = []
    seen: set[object] = set()
    for number, query in enumerate(queries, start=1):
        qid = query.get("qid")
        where = f"query {qid!r} (line {number})"
        if not qid or qid in seen:
            problems.append(f"{where}: missing or duplicate qid")
        seen.add(qid)
        if not str(query.get("question") or "").strip():
            problems.append(f"{where}: empty question")
        if query.get("kind") not in QUERY_KINDS:
            problems.append(f"{where}: kind must be one of {sorted(QUERY_KINDS)}")
        gold = query.get("gold_doc_id")
        if gold not in texts:
            problems.append(f"{where}: gold_doc_id {gold!r} is not a current document")
            continue
        if gold in restricted:
            problems.append(f"{where}: gold_doc_id {gold!r} is restricted to a group")
        answers = query.get("answers")
        if not isinstance(answers, list) or not answers:
            problems.append(f"{where}: answers must be a non-empty list")
            continue
        for answer in answers:
            if not isinstance(answer, str) or not answer or answer not in texts[str(gold)]:
                problems.append(f"{where}: answer {answer!r} does not occur verbatim in {gold}")
    return problems


def corpus_jsonl(documents: list[CorpusDocument]) -> str:
    """Serialise documents as JSON Lines (UTF-8 text, not ASCII escapes)."""
    return "".join(json.dumps(doc.as_json(), ensure_ascii=False) + "\n" for doc in documents)


def main(argv: list[str] | None = None) -> int:
    """Validate the golden set and write (or, with ``--check``, verify) corpus.jsonl."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="do not write; fail if corpus.jsonl is out of date"
    )
    args = parser.parse_args(argv)

    documents = build_documents()
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
