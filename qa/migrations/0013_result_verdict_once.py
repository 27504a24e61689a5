"""The verdict stored once: conclusions in the answer's fields, the checks behind them in ``verification``.

Before, ``verification`` held the whole verdict and the row repeated its
confidence, flags, needs_review and warnings (as plain text) in columns. Now
``warnings`` holds the warnings as {"template", "params"} (translated when
shown) and ``verification`` drops the keys the columns hold. The columns were
already what the review queue filtered on, so they are kept as they are.
Reversible: going back rebuilds the whole dict and the plain-text warnings.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

# Frozen here: the app's lists may change after this migration.
CONCLUSION_KEYS = ("confidence", "flags", "needs_review", "warnings", "warning_templates")
FLAG_NAMES = (
    "no_citation",
    "weak_citation",
    "fabricated_source",
    "fabricated_quote",
    "low_grounding",
    "unsupported_claim",
    "answer_mismatch",
    "not_found",
    "low_retrieval",
    "provider_error",
)
BATCH = 500


def _template(item: Any) -> dict[str, Any] | None:
    if isinstance(item, dict):
        template = item.get("template") or item.get("message") or item.get("text")
        params = item.get("params") if isinstance(item.get("params"), dict) else {}
        return {"template": str(template), "params": params} if template else None
    return {"template": str(item), "params": {}} if item else None


def _text(template: dict[str, Any]) -> str:
    try:
        return str(template["template"]).format(**template["params"])
    except (KeyError, IndexError, ValueError):
        return str(template["template"])


def _rewrite(apps: Any, change: Any) -> None:
    Answer = apps.get_model("qa", "Answer")
    rows = Answer.objects.only("pk", "warnings", "verification", "confidence", "needs_review", *_flag_fields())
    changed = []
    for answer in rows.iterator(chunk_size=BATCH):
        change(answer)
        changed.append(answer)
        if len(changed) >= BATCH:
            Answer.objects.bulk_update(changed, ["warnings", "verification"])
            changed = []
    if changed:
        Answer.objects.bulk_update(changed, ["warnings", "verification"])


def _flag_fields() -> list[str]:
    return [f"flag_{name}" for name in FLAG_NAMES]


def store_once(answer: Any) -> None:
    """Warnings as templates in their column (what the page showed first wins); the checks alone in the dict."""
    verdict = answer.verification if isinstance(answer.verification, dict) else {}
    shown = verdict.get("warning_templates") or verdict.get("warnings") or answer.warnings or []
    answer.warnings = [t for t in (_template(item) for item in shown) if t is not None]
    answer.verification = {key: value for key, value in verdict.items() if key not in CONCLUSION_KEYS}


def store_whole(answer: Any) -> None:
    """The earlier form: the whole verdict in the dict, plain-text warnings in their column."""
    templates = [t for t in (_template(item) for item in answer.warnings or []) if t is not None]
    checks = answer.verification if isinstance(answer.verification, dict) else {}
    answer.warnings = [_text(t) for t in templates]
    answer.verification = {
        **checks,
        "confidence": answer.confidence or "low",
        "flags": [name for name in FLAG_NAMES if getattr(answer, f"flag_{name}")],
        "needs_review": answer.needs_review,
        "warnings": answer.warnings,
        "warning_templates": templates,
    }


def forwards(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, store_once)


def backwards(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, store_whole)


class Migration(migrations.Migration):
    dependencies = [
        ("qa", "0012_edges_answer_is_example"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
    ]
