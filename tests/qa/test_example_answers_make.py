"""make_example_answers: a recipe goes through the real Anthropic provider and SDK to the fake server, and leaves nothing behind."""

from __future__ import annotations

import pytest

from qa.evaluation.example_answers import RECIPES, Recipe, example_answers_make, misquoting
from qa.models import Answer

pytestmark = pytest.mark.django_db


def test_a_recipe_is_answered_on_the_claude_path_and_rolled_back(ingest, employee):
    ingest("attendance.md")
    fabricated = next(recipe for recipe in RECIPES if recipe.expect == "fabricated_source")
    [example] = example_answers_make(user=employee, recipes=(fabricated,))

    assert example["provider"] == "anthropic" and "fake" in example["model_name"]
    assert "fabricated_source" in example["verification"]["flags"]
    assert "leave_policy_2019.md" in example["answer_text"]
    # The quote is the document's own sentence, checked by the verifier like any Claude citation.
    [citation] = example["citations"]
    assert citation["quote_verified"] and citation["filename"] == "attendance.md"
    assert citation["ordinal"] is not None and all("chunk_id" not in item for item in example["retrieved"])
    assert not Answer.objects.exists()  # the answers asked to make it are rolled back


def test_a_recipe_whose_answer_misses_its_flag_fails_loudly(ingest, employee):
    ingest("attendance.md")
    wrong = Recipe("有給休暇は何日もらえますか？", "fabricated_source", misquoting("有給休暇は20日です。"))
    with pytest.raises(ValueError, match="expected fabricated_source"):
        example_answers_make(user=employee, recipes=(wrong,))
    assert not Answer.objects.exists()
