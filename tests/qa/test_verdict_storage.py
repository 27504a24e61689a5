"""The verdict is stored once: its conclusions in the answer's fields, the checks behind them in ``verification``."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import translation

from qa.models import Answer
from qa.presenters import answer_payload
from qa.services import answer_question
from tests.qa.conftest import ingest  # noqa: F401 - the fixture, used by name
from verification.flags import WARNING_UNSUPPORTED
from verification.verdict import CONCLUSION_KEYS

BEFORE = ("qa", "0012_edges_answer_is_example")
UNSUPPORTED_JA = "文書で確認できない記述が含まれています（2文）"
UNSUPPORTED_EN = "Contains statements that could not be verified in the documents (2 sentences)"


def test_a_stored_answer_reads_back_the_verdict_it_was_given_said_once(ingest, employee):
    ingest("attendance.md")
    made = answer_question(user=employee, text="有給休暇は何日もらえますか？")

    stored = Answer.objects.get(pk=made.answer.pk)
    assert stored.verdict == made.verdict  # every check, the answer's fit to the question too
    assert stored.verdict.fit is not None and stored.verdict.quote_checks
    assert not CONCLUSION_KEYS & set(stored.verification)  # confidence, flags, warnings: in their columns only


def _migrate(target: tuple[str, str] | None = None) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate([target] if target else executor.loader.graph.leaf_nodes())
    return executor


def _old_answers(executor: MigrationExecutor) -> tuple[int, int]:
    """Two answers as the portal stored them before: the whole verdict in the dict, plain-text warnings beside it."""
    apps = executor.loader.project_state(BEFORE).apps
    user = apps.get_model("auth", "User").objects.create(username="asker")
    conversation = apps.get_model("qa", "Conversation").objects.create(user=user, title="有給")
    Row = apps.get_model("qa", "Answer")
    checked = Row.objects.create(
        conversation=conversation,
        user=user,
        question="有給休暇は何日？",
        response_type="answer",
        answer_text="有給休暇は20日です。",
        confidence="medium",
        flag_unsupported_claim=True,
        warnings=[UNSUPPORTED_JA],
        verification={
            "confidence": "medium",
            "flags": ["unsupported_claim"],
            "warnings": [UNSUPPORTED_JA],
            "warning_templates": [{"template": WARNING_UNSUPPORTED, "params": {"count": 2}}],
            "needs_review": False,
            "grounded_ratio": 0.8,
            "quote_checks": [],
            "sentences": [],
        },
    )
    by_hand = Row.objects.create(
        conversation=conversation,
        user=user,
        question="経費は？",
        response_type="answer",
        answer_text="経費は月末までです。",
        confidence="low",
        flag_fabricated_quote=True,
        warnings=["引用が文書中に見つかりません"],
    )
    return checked.pk, by_hand.pk


@pytest.mark.django_db(transaction=True)
def test_upgrading_keeps_earlier_answers_showing_their_warnings_in_the_readers_language():
    executor = _migrate(BEFORE)
    try:
        checked, by_hand = _old_answers(executor)
        _migrate()

        answer = Answer.objects.get(pk=checked)
        assert not CONCLUSION_KEYS & set(answer.verification)
        with translation.override("en"):
            payload = answer_payload(answer)
        assert payload["verification"]["warnings"] == [UNSUPPORTED_EN]
        assert payload["verification"]["grounded_ratio"] == 0.8
        assert payload["flags"] == ["unsupported_claim"] and payload["confidence"] == "medium"
        with translation.override("ja"):
            assert answer_payload(Answer.objects.get(pk=by_hand))["verification"]["warnings"] == [
                "引用が文書中に見つかりません"
            ]

        old = _migrate(BEFORE).loader.project_state(BEFORE).apps.get_model("qa", "Answer").objects.get(pk=checked)
        assert old.warnings == [UNSUPPORTED_JA]  # going back restores the earlier form
        assert old.verification["flags"] == ["unsupported_claim"] and old.verification["grounded_ratio"] == 0.8
    finally:
        _migrate()
