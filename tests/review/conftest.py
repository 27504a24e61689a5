"""Review-queue fixtures: answers built directly with the ORM (no answering pipeline)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from documents.models import Chunk, Document, DocumentVersion
from qa.models import Answer, Citation, Conversation, Feedback

ATTENDANCE_TEXT = "年次有給休暇は入社6ヶ月後に10日付与されます。申請は3日前までに行ってください。"


@pytest.fixture
def make_answer(employee: User) -> Callable[..., Answer]:
    """Create an answer by ``employee`` (or ``user=``); keyword arguments are Answer fields."""

    def _make(question: str = "有給休暇は何日もらえますか？", **fields: Any) -> Answer:
        user = fields.pop("user", employee)
        conversation = Conversation.objects.create(user=user, title=question[:40])
        defaults: dict[str, Any] = {
            "response_type": Answer.ResponseType.ANSWER,
            "answer_text": "入社6ヶ月後に10日付与されます。[1]",
            "provider": "extractive",
            "model_name": "extractive-v1",
            "confidence": Answer.Confidence.HIGH,
        }
        defaults.update(fields)
        return Answer.objects.create(conversation=conversation, user=user, question=question, **defaults)

    return _make


@pytest.fixture
def rate() -> Callable[..., Feedback]:
    def _rate(answer: Answer, user: User, rating: int, comment: str = "") -> Feedback:
        return Feedback.objects.create(answer=answer, user=user, rating=rating, comment=comment)

    return _rate


@pytest.fixture
def attendance(owner: User) -> Chunk:
    """A live document with one chunk, owned by ``owner``."""
    document = Document.objects.create(title="勤怠規程", filename="attendance.md", owner=owner, status="ready")
    version = DocumentVersion.objects.create(
        document=document,
        number=1,
        file="documents/x/attendance.md",
        original_name="attendance.md",
        sha256="0" * 64,
        text=ATTENDANCE_TEXT,
    )
    document.live_version = version
    document.save(update_fields=["live_version"])
    return Chunk.objects.create(
        version=version,
        document=document,
        ordinal=0,
        heading_path="勤怠規程 > 有給休暇",
        text=ATTENDANCE_TEXT,
        start=0,
        end=len(ATTENDANCE_TEXT),
    )


def cite(answer: Answer, chunk: Chunk, quote: str, *, n: int = 1, verified: bool = True) -> Citation:
    start = chunk.text.find(quote)
    return Citation.objects.create(
        answer=answer,
        n=n,
        chunk=chunk,
        document=chunk.document,
        filename=chunk.document.filename,
        section=chunk.heading_path,
        cited_text=quote,
        start=start if start >= 0 else None,
        end=start + len(quote) if start >= 0 else None,
        quote_verified=verified,
        context_before=chunk.text[: max(start, 0)],
        context_after=chunk.text[start + len(quote) :] if start >= 0 else "",
    )


def snapshot(chunk: Chunk, score: float = 0.031, similarity: float = 0.84) -> dict[str, Any]:
    return {
        "chunk_id": chunk.pk,
        "filename": chunk.document.filename,
        "section": chunk.heading_path,
        "text": chunk.text,
        "score": score,
        "similarity": similarity,
    }


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)  # Client.login has no request, which django-axes needs
    return client


@pytest.fixture
def reviewer_client(reviewer: User) -> Client:
    return client_for(reviewer)
