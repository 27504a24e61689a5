"""The evidence shown on an answer's review page, read from what was stored at answer time.

Only the stored snapshot is used (``Answer.retrieved``, ``Answer.verification``,
the citation rows' own copies of file name, section, quote and context), never the
live chunks: a re-index or a deleted document must not rewrite what a reviewer
sees. The verdict JSON is shown generically (known keys first, then everything
as formatted JSON), so a new key in the verdict is visible without a code change.
Values are returned as plain strings; the template escapes them.
"""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext as _

from qa.models import Answer
from verification.admin_filters import FLAG_LABELS

# Verdict keys rendered in their own sections; the rest appear in the key/value table.
_SECTIONED_KEYS = {"sentences", "quote_checks", "citation_presence", "flags", "warnings", "confidence"}


def _plain(value: Any) -> str:
    """A JSON value as short readable text."""
    if value is True:
        return "✓"
    if value is False:
        return "✗"
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list | tuple):
        return ", ".join(_plain(v) for v in value) or "-"
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _table(rows: list[Any]) -> dict[str, list]:
    """A list of dicts as ``{"columns": [...], "rows": [[...], ...]}`` over the union of their keys."""
    dict_rows = [row if isinstance(row, dict) else {"value": row} for row in rows]
    columns: list[str] = []
    for row in dict_rows:
        columns += [key for key in row if key not in columns]
    return {"columns": columns, "rows": [[_plain(row.get(key)) for key in columns] for row in dict_rows]}


def _sentences(items: list[Any]) -> list[dict[str, Any]]:
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        reason = _plain(item["reason"]) if item.get("reason") else ""
        missing = item.get("missing")
        if isinstance(missing, list) and missing:
            # The numbers/terms absent from the evidence are what a reviewer checks first.
            reason = f"{reason}（{_('根拠にない語')}: {', '.join(str(m) for m in missing)}）"
        out.append(
            {
                "text": str(item.get("sentence") or item.get("text") or ""),
                "supported": bool(item.get("supported")),
                "reason": reason,
            }
        )
    return out


def _retrieved(answer: Answer, cited_ids: set[int], cited_quotes: list[tuple[str, str]]) -> list[dict[str, Any]]:
    rows = []
    for rank, item in enumerate(answer.retrieved or [], start=1):
        if not isinstance(item, dict):
            continue
        text = str(item.get("text", ""))
        filename = str(item.get("filename", ""))
        cited = item.get("chunk_id") in cited_ids or any(
            name == filename and quote and quote in text for name, quote in cited_quotes
        )
        rows.append(
            {
                "rank": rank,
                "chunk_id": item.get("chunk_id"),
                "filename": filename,
                "section": str(item.get("section", "")),
                "text": text,
                "score": _plain(item.get("score")),
                "similarity": _plain(item.get("similarity")),
                "cited": cited,
            }
        )
    return rows


def answer_evidence(answer: Answer) -> dict[str, Any]:
    """Template data for the review page of ``answer`` (one query, for the citation keys)."""
    verdict = answer.verification if isinstance(answer.verification, dict) else {}
    citations = list(answer.citations.values_list("chunk_id", "filename", "cited_text"))
    cited_ids = {chunk_id for chunk_id, _f, _t in citations if chunk_id is not None}
    cited_quotes = [(filename, text) for _c, filename, text in citations]
    presence = verdict.get("citation_presence")
    quote_checks = verdict.get("quote_checks")
    grounded = verdict.get("grounded_ratio")
    return {
        "replaced": bool(answer.original_answer_text) and answer.original_answer_text != answer.answer_text,
        "flags": [(name, FLAG_LABELS[name]) for name in answer.flags],
        "warnings": [str(w) for w in (answer.warnings or verdict.get("warnings") or [])],
        "grounded_percent": f"{grounded * 100:.0f}%" if isinstance(grounded, int | float) else "",
        "retrieved": _retrieved(answer, cited_ids, cited_quotes),
        "sentences": _sentences(verdict.get("sentences") or []),
        "presence": [(key, _plain(value)) for key, value in presence.items()] if isinstance(presence, dict) else [],
        "quote_checks": _table(quote_checks) if isinstance(quote_checks, list) and quote_checks else None,
        "verdict_other": [(key, _plain(value)) for key, value in verdict.items() if key not in _SECTIONED_KEYS],
        "verdict_json": json.dumps(verdict, ensure_ascii=False, indent=2, sort_keys=True) if verdict else "",
    }
