"""Stored answers built directly (no retrieval or provider), for view, API, presenter and browser tests."""

from __future__ import annotations

from typing import Any

from documents.models import Document, DocumentVersion
from qa.models import Answer, Citation, Conversation

LEAVE_TEXT = "有給休暇は入社6ヶ月後に10日付与されます。"
LEAVE_CHUNK = "## 有給休暇\n" + LEAVE_TEXT + "\n申請は取得日の3日前までに行ってください。"


def make_answer(
    user: Any,
    *,
    conversation: Conversation | None = None,
    question: str = "有給休暇は何日もらえますか？",
    blocks: list[dict[str, Any]] | None = None,
    citations: list[dict[str, Any]] | None = None,
    answer_text: str | None = None,
    response_type: str = Answer.ResponseType.ANSWER,
    confidence: str = Answer.Confidence.HIGH,
    **fields: Any,
) -> Answer:
    """An answer with one cited sentence by default: "有給休暇は…付与されます。[1]" citing attendance.md."""
    if conversation is None:
        conversation = Conversation.objects.create(user=user, title=question[:60])
    if blocks is None:
        blocks = [{"text": LEAVE_TEXT, "citations": [1]}]
    if citations is None:
        citations = [
            {
                "n": 1,
                "filename": "attendance.md",
                "section": "有給休暇",
                "cited_text": "入社6ヶ月後に10日付与されます。",
                "start": 12,
                "end": 28,
                "quote_verified": True,
                "context_before": "## 有給休暇\n有給休暇は",
                "context_after": "\n申請は取得日の3日前までに行ってください。",
            }
        ]
    fields.setdefault(
        "retrieved",
        [
            {
                "chunk_id": 1,
                "document_id": 1,
                "filename": "attendance.md",
                "title": "勤怠規程",
                "section": "有給休暇",
                "score": 0.03,
                "similarity": 0.91,
                "text": LEAVE_CHUNK,
            }
        ],
    )
    answer = Answer.objects.create(
        conversation=conversation,
        user=user,
        question=question,
        search_query=fields.pop("search_query", question),
        response_type=response_type,
        confidence=confidence,
        answer_text=answer_text if answer_text is not None else "".join(b["text"] for b in blocks),
        blocks=blocks,
        **fields,
    )
    for row in citations:
        if row.get("quote_verified") and "document" not in row and row.get("filename"):
            # A verified quote comes from a live version of a real document (else the answer reads as stale).
            row = {**row, **_live_document(row["filename"], owner=user)}
        Citation.objects.create(answer=answer, **row)
    return answer


def _live_document(filename: str, *, owner: Any) -> dict[str, Any]:
    """``document`` and ``version`` of a live document named ``filename`` (created if missing)."""
    document, created = Document.objects.get_or_create(
        filename=filename, defaults={"title": filename, "owner": owner, "status": Document.Status.READY}
    )
    if document.live_version_id is None:
        version = DocumentVersion.objects.create(
            document=document,
            number=1,
            file=f"documents/x/{filename}",
            original_name=filename,
            sha256="0" * 64,
            text=LEAVE_CHUNK,
        )
        document.live_version = version
        document.save(update_fields=["live_version"])
    return {"document": document, "version_id": document.live_version_id}


def ingest_demo(owner: Any, *names: str) -> list[Any]:
    """Ingest demo-corpus files (documents/demo_corpus/<name>) through the real pipeline; returns the documents."""
    from pathlib import Path

    from documents.services import document_ingest

    corpus = Path(__file__).resolve().parents[2] / "documents" / "demo_corpus"
    return [document_ingest(owner=owner, filename=name, data=(corpus / name).read_bytes()) for name in names]


def answer_reads_after_it_was_stored(queries: list[dict[str, Any]]) -> list[str]:
    """The reads of answer or citation rows (``CaptureQueriesContext.captured_queries``) after the answer's insert.

    A page or API that shows the answer it was handed makes none: reading it back
    costs the reader a round trip per question for nothing new.
    """
    statements = [query["sql"] for query in queries]
    stored = next(i for i, sql in enumerate(statements) if sql.startswith('INSERT INTO "qa_answer"'))
    return [sql for sql in statements[stored:] if sql.startswith(('SELECT "qa_answer".', 'SELECT "qa_citation".'))]
