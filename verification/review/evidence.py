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

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from qa.models import Answer
from verification.review.admin_filters import FLAG_LABELS

# Verdict keys rendered in their own sections; the rest appear in the key/value table.
# ``warning_templates`` repeats the warnings shown at the top of the page (the JSON keeps it).
_SECTIONED_KEYS = {
    "sentences", "quote_checks", "citation_presence", "flags", "warnings", "confidence", "warning_templates",
}  # fmt: skip

# The verdict's keys in the reader's words. A key not listed here (a new one) is shown as it is.
KEY_LABELS: dict[str, Promise] = {
    # citation presence (verification.citations.verify_citation_presence)
    "has_citation": gettext_lazy("出典の記載"),
    "citation_quality": gettext_lazy("出典の明示の強さ"),
    "mentioned_sources": gettext_lazy("回答が挙げた出典"),
    "expected_sources": gettext_lazy("検索された文書"),
    "mentioned_files": gettext_lazy("回答中のファイル名"),
    "unexpected_sources": gettext_lazy("検索結果にないファイル名"),
    "warning": gettext_lazy("警告"),
    # quote checks (verification.verdict.QuoteCheck)
    "block": gettext_lazy("回答の段落"),
    "citation": gettext_lazy("段落内の引用"),
    "chunk_index": gettext_lazy("引用元の検索順位"),
    "verified": gettext_lazy("原文と一致"),
    "start": gettext_lazy("開始位置"),
    "end": gettext_lazy("終了位置"),
    "reason": gettext_lazy("判定"),
    "found_in_chunk": gettext_lazy("実際に見つかった検索順位"),
    "cited_text": gettext_lazy("引用文"),
    # the rest of the verdict (verification.verdict.Verdict)
    "needs_review": gettext_lazy("レビューが必要"),
    "grounded_ratio": gettext_lazy("根拠で覆われた割合"),
    "replaced_text": gettext_lazy("置き換え後の回答"),
    "retrieval_confidence": gettext_lazy("検索の信頼度"),
    "fit": gettext_lazy("質問への適合"),
}

# Coded values of the keys that hold a code, in the reader's words (unknown codes are shown as they are).
VALUE_LABELS: dict[str, Promise] = {
    "strong": gettext_lazy("ファイル名で明示"),
    "weak": gettext_lazy("名前の一部のみ"),
    "none": gettext_lazy("なし"),
    "exact": gettext_lazy("位置も一致"),
    "relocated": gettext_lazy("別の位置で一致"),
    "not_found": gettext_lazy("原文に見つからない"),
    "empty_quote": gettext_lazy("引用が空"),
    "unknown_document": gettext_lazy("存在しない文書片"),
    "supported": gettext_lazy("根拠あり"),
    "abstention": gettext_lazy("回答の差し控え"),
    "connective": gettext_lazy("つなぎの文"),
    "no_evidence": gettext_lazy("根拠となる文書片がない"),
    "number_not_in_evidence": gettext_lazy("数値が根拠にない"),
    "number_out_of_context": gettext_lazy("数値の文脈が根拠と違う"),
    "quoted_term_not_in_evidence": gettext_lazy("引用された語が根拠にない"),
    "unknown_term": gettext_lazy("根拠にない語がある"),
    "low_overlap": gettext_lazy("根拠との重なりが少ない"),
    "contradiction": gettext_lazy("根拠の記述と食い違う"),
    "meaning_not_in_evidence": gettext_lazy("意味の近い根拠の文がない"),
    "high": gettext_lazy("高"),
    "medium": gettext_lazy("中"),
    "low": gettext_lazy("低"),
}
_CODED_KEYS = {"citation_quality", "reason", "retrieval_confidence"}


def key_label(key: str) -> str:
    """A verdict key in the reader's language (the key itself when it has no label)."""
    return str(KEY_LABELS.get(key, key))


def _value(key: str, value: Any) -> str:
    if key == "grounded_ratio" and isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value * 100:.0f}%"
    if key in _CODED_KEYS and isinstance(value, str) and value in VALUE_LABELS:
        return str(VALUE_LABELS[value])
    return _plain(value)


def _plain(value: Any) -> str:
    """A JSON value as short readable text."""
    if value is True:
        return "✓ " + _("はい")
    if value is False:
        return "✗ " + _("いいえ")
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
    return {
        "columns": [key_label(key) for key in columns],
        "rows": [[_value(key, row.get(key)) for key in columns] for row in dict_rows],
    }


def _sentences(items: list[Any]) -> list[dict[str, Any]]:
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        reason = _value("reason", item["reason"]) if item.get("reason") else ""
        missing = item.get("missing")
        if isinstance(missing, list) and missing:
            # The numbers/terms absent from the evidence are what a reviewer checks first.
            reason = f"{reason}（{_('根拠にない語')}: {', '.join(str(m) for m in missing)}）"
        out.append(
            {
                "text": str(item.get("sentence") or item.get("text") or ""),
                "supported": bool(item.get("supported")),
                "reason": reason,
                # The evidence sentence it is closest to: what the reviewer compares it with.
                "closest": str(item.get("closest") or ""),
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
        "warnings": answer.verdict.warnings,
        "grounded_percent": f"{grounded * 100:.0f}%" if isinstance(grounded, int | float) else "",
        "retrieved": _retrieved(answer, cited_ids, cited_quotes),
        "sentences": _sentences(verdict.get("sentences") or []),
        "presence": [(key_label(k), _value(k, v)) for k, v in presence.items()] if isinstance(presence, dict) else [],
        "quote_checks": _table(quote_checks) if isinstance(quote_checks, list) and quote_checks else None,
        "verdict_other": [(key_label(k), _value(k, v)) for k, v in verdict.items() if k not in _SECTIONED_KEYS],
        "verdict_json": json.dumps(verdict, ensure_ascii=False, indent=2, sort_keys=True) if verdict else "",
    }
