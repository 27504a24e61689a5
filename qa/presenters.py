"""Turn an answer (``qa.results.AnswerResult``) into the structured data the chat template and the API show.

Each takes the result ``qa.services.answer_question`` handed over, or a stored
``Answer`` (read through ``AnswerResult.from_answer``). Two consumers, one source of truth:

- ``answer_payload(answer)`` is the JSON shape of ``POST /api/v1/ask`` (and of
  ``manage.py ask --json``, the answer list/detail endpoints and the conversation
  detail endpoint).
- ``answer_view(answer)`` is what ``templates/qa/partials/_answer.html`` renders:
  the answer as sanitised HTML with footnote markers after the sentences they
  support and unsupported sentences marked, the footnotes, confidence, warnings,
  abstention and clarification options.

Everything the provider or a document says is untrusted. The only HTML this
module produces from such text comes out of ``render_markdown``: markdown-it-py
with raw HTML disabled, then nh3 with an allow-list. Footnote markers and the
"unsupported" marks are inserted as private-use placeholder characters before
rendering (after removing any such characters from the input), so they survive
Markdown parsing without ever letting the input choose markup.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

import nh3
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from markdown_it import MarkdownIt

from documents.chunking import HEADING_SEPARATOR
from qa.models import Answer, Citation
from qa.quote_context import STORED_CHARS, context_is_whole, quote_in_context
from qa.results import AnswerResult, SourceSection
from qa.results import verdict_warnings
from qa.selectors import WITHHELD_MESSAGE
from verification.flags import sentence_reason
from verification.verdict import Verdict

API_VERSION = "ragportal-1"

# How much of the chunk around a quote a footnote shows, on each side.
CONTEXT_CHARS = 160

# Private-use characters: never produced by our own code paths except here,
# and stripped from all input first, so input cannot forge them.
_MARK_OPEN = "\ue000"
_MARK_CLOSE = "\ue001"
_REF_OPEN = "\ue002"
_REF_CLOSE = "\ue003"
_PLACEHOLDERS = re.compile("[\ue000-\ue003]")
_REF = re.compile(f"{_REF_OPEN}(\\d+){_REF_CLOSE}")

# Leading Markdown block syntax (list item, heading, quote) an unsupported mark
# must go after, or the opening placeholder would stop it being recognised.
_BLOCK_PREFIX = re.compile(r"^(?:\s*(?:[-*+]|\d{1,9}[.)]|#{1,6}|>)\s+)*\s*")

_ALLOWED_TAGS = {
    "p", "br", "strong", "em", "b", "i", "s", "del", "code", "pre", "blockquote", "hr",
    "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td",
    "h1", "h2", "h3", "h4", "h5", "h6", "a", "sup", "mark",
}  # fmt: skip

_markdown = MarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": False}).enable(
    ["table", "strikethrough"]
)

CONFIDENCE_LABELS = {
    "high": _("信頼度: 高"),
    "medium": _("信頼度: 中"),
    "low": _("信頼度: 低"),
}


# --------------------------------------------------------------------------
# Markdown


def _clean_placeholders(text: str) -> str:
    return _PLACEHOLDERS.sub("", text or "")


# A link that leads somewhere from the portal: a full address, a mail address, or a footnote of the answer.
_FOLLOWABLE = re.compile(r"(?:https?://|mailto:|#fn-)", re.IGNORECASE)


def _followable_href(tag: str, attribute: str, value: str) -> str | None:
    """An ``<a>``'s ``href`` only when it can be followed from the portal's pages.

    A document's relative link (「[休業ポリシー](/handbook/people-policies/)」, ``../x.md``,
    ``#section``) points into the site the document came from; on the portal it
    would open one of the portal's own addresses, a page not found. Its words stay, as text.
    """
    if tag == "a" and attribute == "href" and not _FOLLOWABLE.match(value):
        return None
    return value


def _sanitise(html: str) -> str:
    return nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes={"a": {"href"}},
        attribute_filter=_followable_href,
        allowed_classes={"mark": {"unsupported"}, "sup": {"fnref"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


def render_markdown(text: str) -> SafeString:
    """Render untrusted Markdown to safe HTML: raw HTML disabled, output allow-listed.

    Formatting (lists, bold, tables, code) survives; tags, event handlers,
    ``javascript:`` links and images do not.
    """
    return mark_safe(_sanitise(_markdown.render(_clean_placeholders(text))))  # noqa: S308 - sanitised by nh3


# --------------------------------------------------------------------------
# Answer text with footnote markers and unsupported marks


@dataclass(frozen=True)
class _Span:
    start: int
    end: int


def _block_spans(answer: Answer, text: str) -> list[tuple[_Span, list[int]]]:
    """(span of answer text, citation numbers) per block; one uncited block if blocks do not match the text."""
    blocks = answer.blocks or []
    if blocks and "".join(str(b.get("text", "")) for b in blocks) == text:
        spans, pos = [], 0
        for block in blocks:
            length = len(str(block.get("text", "")))
            numbers = [int(n) for n in block.get("citations") or [] if str(n).isdigit()]
            spans.append((_Span(pos, pos + length), numbers))
            pos += length
        return spans
    return [(_Span(0, len(text)), [])]


def _unsupported_spans(verdict: Verdict, text: str) -> list[_Span]:
    """Spans of the answer text the verifier found unsupported, at the offsets it stored.

    The verifier located each sentence in this very text when the answer was
    made; offsets that no longer fit it (a replaced answer) mark nothing.
    """
    spans = []
    for sentence in verdict.sentences:
        if sentence.supported:
            continue
        body, start, end = str(sentence.text or ""), sentence.start, sentence.end
        if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text):
            if not body or text[start:end].strip() == body.strip():
                spans.append(_Span(start, end))
    return spans


# Markdown table syntax: cells are split at unescaped pipes; a delimiter row is made of dashes.
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")


def _is_table_line(line: str) -> bool:
    """Whether ``line`` is (part of) a table row: placeholders must go inside its cells, not around it.

    Rows are recognised by a pipe at either end (as the providers write them), so
    prose or a list item that merely contains a pipe keeps its marks whole.
    """
    text = line.strip()
    return text.startswith("|") or (text.endswith("|") and not text.endswith("\\|"))


def _wrap_cells(line: str) -> str:
    """Wrap each non-blank cell of a table row in unsupported-mark placeholders (a delimiter row stays)."""
    if _TABLE_DELIMITER.match(line):
        return line
    parts = _CELL_SPLIT.split(line)
    for i, part in enumerate(parts):
        if part.strip():
            lead = part[: len(part) - len(part.lstrip())]
            trail = part[len(part.rstrip()) :]
            parts[i] = f"{lead}{_MARK_OPEN}{part.strip()}{_MARK_CLOSE}{trail}"
    return "|".join(parts)


def _wrap_lines(piece: str) -> str:
    """Wrap each non-blank line of ``piece`` in unsupported-mark placeholders, after any block syntax.

    A table row is wrapped cell by cell: a mark around the whole row would add a
    cell and stop Markdown reading the lines as a table.
    """
    out = []
    for line in piece.splitlines(keepends=True):
        body = line.rstrip()
        if not body.strip():
            out.append(line)
            continue
        if _is_table_line(body):
            out.append(f"{_wrap_cells(body)}{line[len(body) :]}")
            continue
        block = _BLOCK_PREFIX.match(body)
        prefix = block.group(0) if block else ""
        out.append(f"{prefix}{_MARK_OPEN}{body[len(prefix) :]}{_MARK_CLOSE}{line[len(body) :]}")
    return "".join(out)


def _with_refs(piece: str, refs: str) -> str:
    """``piece`` with footnote markers after its last sentence, before the line break that ends it.

    When the piece ends in a table, the markers go into the last cell of its last
    row (above the delimiter row when the piece ends with the header): after the
    row's closing pipe they would add a cell and break the table.
    """
    body = piece.rstrip()
    tail = piece[len(body) :]
    lines = body.split("\n")
    if not _is_table_line(lines[-1]):
        return f"{body}{refs}{tail}"
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i]
        if not _is_table_line(line):
            break
        if _TABLE_DELIMITER.match(line):
            continue
        row = line.rstrip()
        closed = row.endswith("|") and not row.endswith("\\|")
        lines[i] = f"{row[:-1].rstrip()}{refs} |" if closed else f"{row}{refs}"
        return "\n".join(lines) + tail
    return f"{body}{refs}{tail}"


def _annotated_source(answer: Answer, verdict: Verdict, text: str) -> str:
    """The answer text with placeholders: marks around unsupported spans, markers after cited blocks."""
    blocks = _block_spans(answer, text)
    unsupported = _unsupported_spans(verdict, text)
    cuts = {0, len(text)}
    for span, _numbers in blocks:
        cuts.update((span.start, span.end))
    for span in unsupported:
        cuts.update((span.start, span.end))
    points = sorted(c for c in cuts if 0 <= c <= len(text))
    markers_at = {span.end: numbers for span, numbers in blocks if numbers}
    out = []
    for a, b in zip(points, points[1:]):
        piece = text[a:b]
        if any(s.start <= a and b <= s.end for s in unsupported):
            piece = _wrap_lines(piece)
        numbers = markers_at.get(b)
        if numbers:
            piece = _with_refs(piece, "".join(f"{_REF_OPEN}{n}{_REF_CLOSE}" for n in numbers))
        out.append(piece)
    return "".join(out)


def render_answer_html(answer: Answer, verdict: Verdict | None = None) -> SafeString:
    """The answer text as safe HTML, with ``[n]`` links after cited blocks and unsupported sentences in <mark>.

    ``verdict``: the answer's, when the caller holds it (else read from the row).
    """
    text = _clean_placeholders(answer.answer_text)
    html = _markdown.render(_annotated_source(answer, verdict or answer.verdict, text))
    html = html.replace(_MARK_OPEN, '<mark class="unsupported">').replace(_MARK_CLOSE, "</mark>")
    html = _REF.sub(
        lambda m: f'<sup class="fnref"><a href="#fn-{answer.pk}-{m.group(1)}">[{m.group(1)}]</a></sup>',
        html,
    )
    return mark_safe(_sanitise(html))  # noqa: S308 - nh3 allow-list is the last step


# --------------------------------------------------------------------------
# Template view


@dataclass(frozen=True)
class Footnote:
    """One footnote: the quote (plain text) between its context, cut at sentence boundaries."""

    n: int
    anchor: str
    filename: str
    section: str
    section_path: list[str]
    cited_text: str
    context_before: str
    context_after: str
    quote_verified: bool
    # The cited document's title, shown with its path ("" when the document is gone).
    title: str = ""


@dataclass(frozen=True)
class UnsupportedSentence:
    """A sentence marked unsupported in the answer, with the reason in the reader's words."""

    text: str
    reason: str


@dataclass(frozen=True)
class ClarificationOption:
    document_id: int
    filename: str
    title: str
    section: str


@dataclass
class AnswerView:
    """Everything ``_answer.html`` needs; text fields are plain strings (auto-escaped by the template)."""

    answer: Answer
    html: SafeString
    response_type: str
    confidence: str
    confidence_label: str
    footnotes: list[Footnote]
    warnings: list[str]
    is_abstention: bool
    is_error: bool
    clarification_message: str = ""
    clarification_options: list[ClarificationOption] = field(default_factory=list)
    search_query: str = ""
    stale: bool = False
    unsupported: list[UnsupportedSentence] = field(default_factory=list)
    withheld: bool = False
    withheld_message: str = ""


def _footnote(answer: Answer, citation: Citation) -> Footnote:
    before = _clean_placeholders(citation.context_before)
    after = _clean_placeholders(citation.context_after)
    shown = quote_in_context(
        before,
        _clean_placeholders(citation.cited_text),
        after,
        before_is_whole=context_is_whole(
            citation.context_before, reaches_chunk_edge=citation.start is not None and citation.start <= len(before)
        ),
        after_is_whole=context_is_whole(citation.context_after, reaches_chunk_edge=len(after) < STORED_CHARS),
        limit=CONTEXT_CHARS,
    )
    return Footnote(
        n=citation.n,
        anchor=f"fn-{answer.pk}-{citation.n}",
        filename=citation.filename,
        section=citation.section,
        section_path=[part.strip() for part in citation.section.split(HEADING_SEPARATOR) if part.strip()],
        cited_text=shown.quote or citation.cited_text,
        context_before=shown.before,
        context_after=shown.after,
        quote_verified=citation.quote_verified,
        title=citation.document.title if citation.document is not None else "",
    )


def answer_warnings(answer: Answer) -> list[str]:
    """The warnings of a stored ``answer`` in the reader's language (``qa.results.verdict_warnings``)."""
    return verdict_warnings(answer.verdict)


def _clarification_options(answer: Answer) -> list[ClarificationOption]:
    options = []
    for option in (answer.clarification or {}).get("options") or []:
        try:
            document_id = int(option["document_id"])
        except (KeyError, TypeError, ValueError):
            continue
        options.append(
            ClarificationOption(
                document_id=document_id,
                filename=str(option.get("filename") or ""),
                title=str(option.get("title") or ""),
                section=str(option.get("section") or ""),
            )
        )
    return options


def unsupported_sentences(answer: Answer, verdict: Verdict) -> list[UnsupportedSentence]:
    """The sentences marked in the answer (same offsets rule as the marks), each with its reason in words."""
    text = _clean_placeholders(answer.answer_text)
    marked = {(span.start, span.end) for span in _unsupported_spans(verdict, text)}
    out = []
    for sentence in verdict.sentences:
        if (sentence.start, sentence.end) not in marked:
            continue
        missing = [str(m) for m in sentence.missing or [] if isinstance(m, str | int | float)]
        template, params = sentence_reason(str(sentence.reason or ""), missing)
        out.append(UnsupportedSentence(str(sentence.text or "").strip(), gettext(template).format(**params)))
    return out


def _withheld_view(answer: Answer) -> AnswerView:
    """An answer its asker may no longer read: the message only (no text, footnote, file name or badge)."""
    return AnswerView(
        answer=answer,
        html=mark_safe(""),
        response_type=answer.response_type,
        confidence="",
        confidence_label="",
        footnotes=[],
        warnings=[],
        is_abstention=False,
        is_error=False,
        withheld=True,
        withheld_message=str(WITHHELD_MESSAGE),
    )


def _result(shown: AnswerResult | Answer) -> AnswerResult:
    """``shown`` as a result: an answer stored earlier is read through ``AnswerResult.from_answer``."""
    return shown if isinstance(shown, AnswerResult) else AnswerResult.from_answer(shown)


def answer_view(shown: AnswerResult | Answer) -> AnswerView:
    """Build the template data for one answer: the result the service handed over, or a stored answer.

    A stored answer's citations are read once (prefetch them for lists). A
    withheld answer (``qa.selectors.is_withheld``) shows only ``WITHHELD_MESSAGE``.
    """
    result = _result(shown)
    answer, verdict, stale = result.answer, result.verdict, result.stale
    if result.withheld:
        return _withheld_view(answer)
    is_clarification = answer.response_type == Answer.ResponseType.CLARIFICATION
    is_answer = answer.response_type == Answer.ResponseType.ANSWER
    is_not_found = answer.response_type == Answer.ResponseType.NOT_FOUND
    # A question asked back and a "not found" are not graded answers: no confidence badge
    # (a red 低 read as an error); the template gives them their own neutral badge. An
    # answer the grounding gate withheld keeps its 低: it was built, then judged weak.
    confidence = "" if is_clarification or is_not_found else result.confidence
    return AnswerView(
        answer=answer,
        html=render_answer_html(answer, verdict) if not is_clarification else mark_safe(""),
        response_type=answer.response_type,
        confidence=confidence,
        confidence_label=str(CONFIDENCE_LABELS.get(confidence, "")),
        footnotes=[_footnote(answer, c) for c in result.citations],
        warnings=result.warnings if is_answer else [],
        stale=stale,
        is_abstention=is_not_found or answer.flag_low_grounding,
        is_error=answer.response_type == Answer.ResponseType.ERROR,
        clarification_message=str((answer.clarification or {}).get("message") or "") if is_clarification else "",
        clarification_options=_clarification_options(answer) if is_clarification else [],
        search_query=answer.search_query if answer.search_query and answer.search_query != answer.question else "",
        unsupported=unsupported_sentences(answer, verdict) if is_answer else [],
    )


# --------------------------------------------------------------------------
# API payload


def _sources_and_sections(sections: list[SourceSection]) -> tuple[list[str], list[dict[str, Any]]]:
    sources: list[str] = []
    rows = []
    for section in sections:
        if section.filename and section.filename not in sources:
            sources.append(section.filename)
        rows.append(
            {
                "filename": section.filename,
                "section_title": section.section,
                "similarity_score": round(section.similarity, 4),
            }
        )
    return sources, rows


def _withheld_payload(answer: Answer) -> dict[str, Any]:
    """The API shape of an answer its asker may no longer read: the question they wrote, and the message.

    No answer text, citation, quote, source or section name, verification
    detail or expansion keyword (those come from the documents); ``stale`` is
    not evaluated (it would tell that a restricted document changed).
    """
    message = str(WITHHELD_MESSAGE)
    return {
        "id": answer.pk,
        "conversation": answer.conversation_id,
        "question": answer.question,
        "search_query": answer.search_query,
        "expanded_query": "",
        "added_keywords": [],
        "response_type": answer.response_type,
        "answer": message,
        "withheld": True,
        "clarification": None,
        "sources": [],
        "sections": [],
        "confidence": None,
        "stale": False,
        "verification": {
            "citation_presence": None,
            "flags": [],
            "warnings": [message],
            "grounded_ratio": None,
            "quote_checks": [],
            "sentences": [],
            "replaced_text": False,
        },
        "version": API_VERSION,
        "citations": [],
        "flags": [],
        "created_at": answer.created_at.isoformat() if answer.created_at else None,
    }


def answer_payload(shown: AnswerResult | Answer) -> dict[str, Any]:
    """The API shape of one answer (the reference project's fields, plus id, citations and flags).

    ``shown``: the result the service handed over, or a stored answer. Only the
    answer's own citations are included; callers must already have checked that
    the requesting user may see it. An answer its asker may no longer read
    (``qa.selectors.is_withheld``) comes back withheld.
    """
    result = _result(shown)
    answer, verdict = result.answer, result.verdict
    if result.withheld:
        return _withheld_payload(answer)
    sources, sections = _sources_and_sections(result.sections)
    flags = answer.flags
    return {
        "id": answer.pk,
        "conversation": answer.conversation_id,
        "question": answer.question,
        "search_query": answer.search_query,
        "expanded_query": answer.expanded_query,
        "added_keywords": list(answer.added_keywords or []),
        "response_type": answer.response_type,
        "answer": answer.answer_text,
        "withheld": False,
        "clarification": answer.clarification or None,
        "sources": sources,
        "sections": sections,
        "confidence": result.confidence or None,
        "stale": result.stale,
        "verification": {
            "citation_presence": verdict.citation_presence,
            "flags": flags,
            "warnings": result.warnings,
            "grounded_ratio": verdict.grounded_ratio if answer.verification else None,
            "quote_checks": [asdict(check) for check in verdict.quote_checks],
            "sentences": [asdict(sentence) for sentence in verdict.sentences],
            "replaced_text": bool(verdict.replaced_text),
        },
        "version": API_VERSION,
        "citations": [
            {
                "n": c.n,
                "filename": c.filename,
                "section": c.section,
                "cited_text": c.cited_text,
                "start": c.start,
                "end": c.end,
                "quote_verified": c.quote_verified,
            }
            for c in result.citations
        ],
        "flags": flags,
        "created_at": answer.created_at.isoformat() if answer.created_at else None,
    }
