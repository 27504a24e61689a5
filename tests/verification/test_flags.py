"""The flag registry is the one definition every consumer derives from."""

from __future__ import annotations

from qa.models import Answer
from qa.results import FLAG_LABELS as USER_LABELS
from verification.review.admin_filters import FLAG_LABELS as REVIEWER_LABELS
from verification.flags import FLAG_NAMES, FLAGS, REVIEW_FLAGS, VERIFIER_FLAG_NAMES
from verification.review.queue import QUEUE_FLAGS
from verification.verdict import FLAG_NAMES as VERDICT_FLAG_NAMES


def test_every_flag_has_its_model_column_and_labels() -> None:
    columns = {field.name for field in Answer._meta.get_fields()}
    for flag in FLAGS:
        assert f"flag_{flag.name}" in columns
        assert flag.reviewer_label
        assert str(REVIEWER_LABELS[flag.name]) == flag.reviewer_label
    assert len(set(FLAG_NAMES)) == len(FLAGS)


def test_consumers_agree_with_the_registry() -> None:
    assert (
        set(QUEUE_FLAGS)
        == set(REVIEW_FLAGS)
        == {"fabricated_source", "fabricated_quote", "low_grounding", "unsupported_claim", "provider_error"}
    )
    assert VERDICT_FLAG_NAMES == VERIFIER_FLAG_NAMES
    assert "provider_error" not in VERDICT_FLAG_NAMES
    assert set(USER_LABELS) == {flag.name for flag in FLAGS if flag.user_label}
    assert "not_found" not in USER_LABELS  # an abstention says so itself; no extra warning
