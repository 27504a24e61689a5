"""Example answers the demo ships: stored answers marked ``is_example``, so the queue shows every kind of flag.

The offline provider quotes the documents verbatim and never produces some
flags (a fabricated citation, a quote not in the document). The demo therefore
ships answers made on the Claude path against the fake Anthropic server
(``manage.py make_example_answers`` writes them to
``documents/demo_corpus/example_answers.json``) and ``load_demo`` stores them
(``qa.services.example_answers_load``).

One example is a JSON object: the answer's own fields as stored at answer time
(question, answer text, blocks, verdict, provider, ...), its citations and the
retrieved snapshot without database ids (each chunk named by file name and
ordinal, matched again when loaded), and its 👎 feedback, if any.
"""

from __future__ import annotations

from typing import Any

from documents.models import Chunk, Document
from documents.selectors import document_named
from qa.models import Answer, Citation

# The answer fields copied as they are, in both directions.
ANSWER_FIELDS = (
    "question",
    "search_query",
    "expanded_query",
    "added_keywords",
    "response_type",
    "answer_text",
    "original_answer_text",
    "blocks",
    "clarification",
    "provider",
    "model_name",
    "verification",
    "error",
    "usage",
    "latency_ms",
)
CITATION_FIELDS = (
    "n",
    "block_index",
    "filename",
    "section",
    "cited_text",
    "start",
    "end",
    "quote_verified",
    "context_before",
    "context_after",
)
# Database ids in the retrieved snapshot: not stored, found again by file name and ordinal.
_SNAPSHOT_IDS = ("chunk_id", "document_id", "version_id")
# The demo user the examples are stored under; never signs in.
EXAMPLE_USERNAME = "example"
# Conversation titles start with this, so an example reads as one wherever its title shows.
EXAMPLE_TITLE_PREFIX = "例: "


def example_from_answer(answer: Answer) -> dict[str, Any]:
    """``answer`` (saved, with its citations and feedback) as an example."""
    ordinals = dict(Chunk.objects.filter(pk__in=_chunk_ids(answer)).values_list("pk", "ordinal"))
    return {
        **{name: getattr(answer, name) for name in ANSWER_FIELDS},
        # The whole verdict (conclusions and checks), read through its one reader.
        "verification": answer.verdict.to_dict(),
        "retrieved": [
            {**{k: v for k, v in item.items() if k not in _SNAPSHOT_IDS}, "ordinal": ordinals.get(item.get("chunk_id"))}
            for item in answer.retrieved
        ],
        "citations": [
            {
                **{name: getattr(c, name) for name in CITATION_FIELDS},
                "ordinal": ordinals.get(c.chunk_id) if c.chunk_id is not None else None,
            }
            for c in answer.citations.order_by("n")
        ],
        "feedback": [{"rating": f.rating, "reason": f.reason, "comment": f.comment} for f in answer.feedback.all()],
    }


def _chunk_ids(answer: Answer) -> set[int]:
    ids = {item.get("chunk_id") for item in answer.retrieved} | set(answer.citations.values_list("chunk_id", flat=True))
    return {pk for pk in ids if pk is not None}


class ChunkFinder:
    """A demo document's live chunk by file name and ordinal, when it still holds the text the example stored."""

    def __init__(self) -> None:
        self._documents: dict[str, Document | None] = {}

    def document(self, filename: str) -> Document | None:
        if filename not in self._documents:
            self._documents[filename] = document_named(filename)
        return self._documents[filename]

    def ids(self, filename: str, ordinal: int | None, text: str | None = None) -> dict[str, int | None]:
        """``chunk_id``, ``document_id`` and ``version_id`` for the snapshot (None where nothing matches)."""
        document = self.document(filename)
        version_id = document.live_version_id if document else None
        chunk = (
            Chunk.objects.filter(version_id=version_id, ordinal=ordinal).first()
            if version_id and ordinal is not None
            else None
        )
        if chunk is not None and text is not None and chunk.text != text:
            chunk = None  # the document changed since the example was made
        return {
            "chunk_id": chunk.pk if chunk else None,
            "document_id": document.pk if document else None,
            "version_id": version_id,
        }


def example_answer_row(example: dict[str, Any], finder: ChunkFinder) -> tuple[Answer, list[Citation]]:
    """The unsaved answer (fields and snapshot) and citation rows of ``example``."""
    answer = Answer(**{name: example[name] for name in ANSWER_FIELDS}, is_example=True)
    answer.retrieved = [
        {
            **{k: v for k, v in item.items() if k != "ordinal"},
            **finder.ids(item["filename"], item.get("ordinal"), item.get("text")),
        }
        for item in example["retrieved"]
    ]
    citations = []
    for item in example["citations"]:
        ids = finder.ids(item["filename"], item.get("ordinal")) if item["filename"] else {}
        citations.append(Citation(**{name: item[name] for name in CITATION_FIELDS}, **ids))
    return answer, citations
