"""The question workflow and feedback: the only code that writes answers.

answer_question, one stage per line:

1. analyse the question once (qa.question.analyse_question), with the previous turn folded in for a follow-up;
2. expand and retrieve within what the user may read (qa.retrieval.search);
3. decide: answer, ask back or not found (qa.decision.decide; the last two never call the provider);
4. the provider writes a cited answer; verification checks it (+ one strict retry when ungrounded);
5. store the Answer, its sources and Citation rows in one transaction;
6. hand the result forward (qa.results.AnswerResult): callers render it without reading the answer back.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from typing import Any
from dataclasses import dataclass, replace

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from documents.embeddings import embed_passages
from documents.models import Chunk, Document
from documents.selectors import visible_documents
from qa.calibration import (
    ENGLISH_OFF_TOPIC_QUESTIONS,
    OFF_TOPIC_QUESTIONS,
    Measured,
    corpus_key,
    heading_questions,
    off_topic_sentence_ceiling,
    thresholds_from,
)
from qa.models import Answer, AnswerSource, Citation, Conversation, CorpusCalibration, Feedback
from qa.providers import Provider, get_provider
from qa.providers.base import GenerateOptions
from qa.quote_context import stored_context
from qa.selectors import conversation_turns
from qa.examples import EXAMPLE_TITLE_PREFIX, ChunkFinder, example_answer_row
from qa.decision import ASK_BACK, NOT_FOUND, REASON_NO_FITTING_ANSWER, Calibration, Decision, answer_stands, decide
from qa.question import Question, analyse_question
from qa.hit_vectors import sentence_matrices
from qa.results import AnswerResult
from qa.retrieval import SearchResult, evidence_for, measure_question, search
from qa.types import AnswerBlock, ProviderAnswer, ProviderConfigurationError, ProviderError, RetrievedChunk
from verification.grounding import NOT_FOUND_MESSAGE, NOT_FOUND_MESSAGE_EN
from verification.meaning import MeaningCheck
from verification.verdict import Verdict, verify

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 2000
GENERIC_ERROR = "回答の生成に失敗しました。しばらくしてから再度お試しください。"
# Follow-ups lean on the previous turn: demonstratives, or too short to stand alone.
_FOLLOW_UP = re.compile(
    r"(それ|その|そちら|そこ|これ|この|あれ|あの|前述|上記|\bit\b|\bthat\b|\bthis\b|\bthose\b|\bthey\b)", re.I
)


def search_query_for(text: str, previous: list[tuple[str, str]]) -> str:
    """The query to search: the question, with the previous question folded in for a follow-up.

    ``previous`` holds the earlier turns' (question, search query). Asking the
    previous question again, as a clarification's choice does, searches what
    that question searched rather than the question twice.
    """
    if not previous:
        return text
    question, searched = previous[-1]
    if text == question.strip():
        return searched or text
    if _FOLLOW_UP.search(text) or len(text.strip()) <= 8:
        return f"{question} {text}"
    return text


def _validate(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ValidationError({"text": _("質問を入力してください。")}, code="empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise ValidationError(
            {"text": _("質問は%(n)d文字以内で入力してください。") % {"n": MAX_QUESTION_CHARS}}, code="too_long"
        )
    return text


def _snapshot(hits: list[RetrievedChunk]) -> list[dict]:
    return [
        {
            "chunk_id": h.chunk_id,
            "document_id": h.document_id,
            "version_id": h.version_id,
            "filename": h.filename,
            "title": h.title,
            "section": h.section,
            "score": h.score,
            "similarity": h.similarity,
            "dense_rank": h.dense_rank,
            "keyword_rank": h.keyword_rank,
            "text": h.text,
        }
        for h in hits
    ]


# What a question gets while the dense index (the Chroma server) cannot be reached.
SEARCH_UNAVAILABLE = gettext_lazy(
    "検索用の索引（ベクトル索引）に接続できないため、いまは回答できません。しばらくしてからもう一度お試しください。"
)


def answer_question(
    *,
    user: User,
    text: str,
    conversation: Conversation | None = None,
    document: Document | None = None,
    provider: Provider | None = None,
) -> AnswerResult:
    """Answer ``text`` for ``user``, store everything a reviewer needs, and return what to show.

    The result carries the stored answer with its verdict, numbered citations
    and retrieved sections, so the caller renders it as it is (``qa.presenters``).

    ``provider`` replaces the configured one (``qa.streaming`` passes the
    provider that streams the text as it arrives).

    Raises ValidationError for an empty or too long question, a conversation
    that is not the user's, or a document the user may not see, and
    ``DenseIndexUnavailableError`` (nothing stored) when the Chroma server
    cannot be reached; ``SEARCH_UNAVAILABLE`` says so to the user. Provider
    failures do not raise: they are stored as an ``error`` answer with a
    message for the user and flagged for review.
    """
    started = time.perf_counter()
    text = _validate(text)
    _check_targets(user, conversation, document)

    # As the user sees them now: a withheld answer's text never reaches the provider (nor the search).
    turns = conversation_turns(conversation, user) if conversation else []
    search_query = search_query_for(text, [(turn.question, turn.search_query) for turn in turns])
    # The question is read once here; every later stage gets these values, not the text to re-read.
    question = analyse_question(text)
    searched = question if search_query == text else analyse_question(search_query)
    calibration = current_calibration()

    # Searched before anything is stored: with the dense index unreachable this raises
    # DenseIndexUnavailableError and leaves no conversation or answer behind.
    result = search(user=user, query=search_query, document_id=document.pk if document else None, question=searched)
    answer = _new_answer(user=user, text=text, search_query=search_query, result=result, document=document)

    decision = _decision(searched, result, calibration, one_document=document is not None)
    answer.usage["decision"] = decision.to_dict()
    generated: _Generated | None = None
    if decision.outcome == NOT_FOUND:
        verdict = _store_abstention(answer, english=question.english)
    elif decision.outcome == ASK_BACK:
        verdict = _store_clarification(answer, list(decision.options), english=question.english)
    else:
        generated, verdict = _answer_with_provider(
            answer,
            question,
            result,
            history=[(turn.question, turn.answer_text) for turn in turns[-3:]],
            calibration=calibration,
            in_context=_as_written(searched, result),
            provider=provider,
        )
    answer.latency_ms = (time.perf_counter() - started) * 1000
    citations = _save_exchange(answer, generated, result.hits, user=user, conversation=conversation, text=text)
    return AnswerResult.made(answer, verdict, citations, result.hits)


def _decision(searched: Question, result: SearchResult, calibration: Calibration, *, one_document: bool) -> Decision:
    """:func:`qa.decision.decide` for ``searched``, reading the terms of its kana as the documents write them
    (けいひせいさん: 経費精算, ``result.terms``); its length stays the typed one."""
    evidence = evidence_for(searched, result, one_document=one_document)
    return decide(replace(searched, terms=result.terms), evidence, calibration)


def _check_targets(user: User, conversation: Conversation | None, document: Document | None) -> None:
    """Raise ValidationError for a conversation that is not ``user``'s or a document ``user`` may not see."""
    if conversation is not None and conversation.user_id != user.pk:
        raise ValidationError({"conversation": _("この会話は見つかりません。")}, code="not_found")
    if document is not None and not visible_documents(user).filter(pk=document.pk).exists():
        raise ValidationError({"document": _("この文書は見つかりません。")}, code="not_found")


def _new_answer(*, user: User, text: str, search_query: str, result: SearchResult, document: Document | None) -> Answer:
    """The answer row (not saved yet) holding the question and what its search found."""
    return Answer(
        user=user,
        question=text,
        search_query=search_query,
        expanded_query=result.expanded_query,
        added_keywords=result.added_keywords,
        restricted_document=document,
        retrieved=_snapshot(result.hits),
        usage={"timings_ms": {k: round(v, 2) for k, v in result.timings.items()}},
    )


def _as_written(searched: Question, result: SearchResult) -> Question:
    """The question as searched (a follow-up read in the conversation's topic), spelled as the documents spell it.

    Kana and variant spellings are written as the documents write them (qa.vocabulary):
    the extractive provider looks for 経費精算 where the employee typed けいひせいさん.
    Everyday words stay as typed (qa.everyday): their terms reach the provider as
    expansion terms, and a listed translation alone never makes an answer 高.
    The language stays the asker's: an English question with one word written in
    katakana is still judged as English (never 高 on terms it cannot check).
    """
    written = result.written_query
    if not written or written == searched.spelled:
        return searched
    return analyse_question(written, english=searched.english)


def _save_exchange(
    answer: Answer,
    generated: _Generated | None,
    hits: list[RetrievedChunk],
    *,
    user: User,
    conversation: Conversation | None,
    text: str,
) -> list[Citation]:
    """Store ``answer`` in ``conversation`` (a new one titled after ``text`` when None); its stored citations.

    One transaction, after the slow part: a database that fails here (a lock that
    outlasts its timeout) leaves neither a new conversation nor half an answer.
    """
    with transaction.atomic():
        if conversation is None:
            conversation = Conversation.objects.create(user=user, title=text[:60])
        answer.conversation = conversation
        citations = _save(answer, generated, hits)
        Conversation.objects.filter(pk=conversation.pk).update(title=conversation.title or text[:60])
        conversation.save(update_fields=["updated_at"])
    return citations


def _store_clarification(answer: Answer, options: list[RetrievedChunk], *, english: bool) -> Verdict:
    answer.response_type = Answer.ResponseType.CLARIFICATION
    message = (
        "Several documents could answer this. Which one do you mean?"
        if english
        else "複数の文書が該当しそうです。どの文書についての質問ですか？"
    )
    answer.answer_text = message
    answer.clarification = {
        "message": message,
        "options": [
            {
                "document_id": h.document_id,
                "filename": h.filename,
                "title": h.title,
                "section": h.section,
                "score": h.score,
            }
            for h in options
        ],
    }
    return _apply_verdict(answer, Verdict.clarification())


def _store_abstention(answer: Answer, *, english: bool) -> Verdict:
    answer.response_type = Answer.ResponseType.NOT_FOUND
    answer.answer_text = NOT_FOUND_MESSAGE_EN if english else NOT_FOUND_MESSAGE
    answer.blocks = [{"text": answer.answer_text, "citations": []}]
    return _apply_verdict(answer, Verdict.abstention())


def _no_fitting_answer(answer: Answer, generated: ProviderAnswer, *, english: bool) -> Verdict:
    """Store "not found" in place of an answer about something else (qa.decision.answer_stands).

    The provider's text stays for reviewers (``original_answer_text``), and the decision names the rule.
    """
    answer.original_answer_text = generated.text
    reasons = list((answer.usage.get("decision") or {}).get("reasons") or [])
    answer.usage["decision"] = {"outcome": NOT_FOUND, "reasons": [*reasons, REASON_NO_FITTING_ANSWER]}
    return _store_abstention(answer, english=english)


def _apply_verdict(answer: Answer, verdict: Verdict) -> Verdict:
    """Store ``verdict`` on the answer row (``Answer.store_verdict``, not saved yet) and hand it on."""
    answer.store_verdict(verdict)
    return verdict


@dataclass(frozen=True)
class _Generated:
    """A provider's answer with its verdict, waiting for the answer row to exist."""

    answer: ProviderAnswer
    verdict: Verdict
    hits: list[RetrievedChunk]


def _answer_with_provider(
    answer: Answer,
    question: Question,
    result: SearchResult,
    *,
    history: list[tuple[str, str]],
    calibration: Calibration,
    in_context: Question,
    provider: Provider | None = None,
) -> tuple[_Generated | None, Verdict]:
    """Fill ``answer`` from the provider and verification: (what it generated, None after a failure; the verdict).

    ``in_context`` is the question as searched: a follow-up read in the
    conversation's topic, written as the documents write it. A provider that
    does not read the history answers that, and the verifier checks every
    answer against it: 「上限はいくら？」 after a hotel question asks for the
    hotel's limit. A provider that reads the history gets the user's own words.
    """
    hits = result.hits
    try:
        provider = provider or get_provider()
        answer.provider, answer.model_name = provider.name, provider.model
        asked = question if provider.reads_history else in_context
        options: GenerateOptions = {"expanded_terms": result.added_keywords, "history": history, "analysed": asked}
        generated = provider.generate(asked.text, hits, **options)
        verdict = verify_answer(in_context, generated, hits, calibration=calibration)
        if "low_grounding" in verdict.flags and provider.name != "extractive":
            # Conservative retry (second reference article): once, with a stricter prompt.
            strict: GenerateOptions = {**options, "strict": True}
            retried = provider.generate(asked.text, hits, **strict)
            retried_verdict = verify_answer(in_context, retried, hits, calibration=calibration)
            if "low_grounding" not in retried_verdict.flags:
                generated, verdict = retried, retried_verdict
            answer.usage["strict_retry"] = True
    except (ProviderError, ProviderConfigurationError) as exc:
        log.warning("provider failed: %s", exc)
        answer.response_type = Answer.ResponseType.ERROR
        answer.answer_text = getattr(exc, "user_message", "") or GENERIC_ERROR
        answer.error = str(exc) or exc.__class__.__name__
        return None, _apply_verdict(answer, Verdict.error())

    answer.usage.update({"provider": generated.usage, "provider_latency_ms": round(generated.latency_ms, 2)})
    # An abstention has no fit (its terms None): only a written answer can be about something else.
    shared = verdict.fit.terms if verdict.fit is not None else None
    if not answer_stands(retrieval=verdict.retrieval_confidence, shared_terms=shared, two_part=in_context.two_part):
        return None, _no_fitting_answer(answer, generated, english=question.english)
    answer.response_type = Answer.ResponseType.NOT_FOUND if generated.abstained else Answer.ResponseType.ANSWER
    _apply_verdict(answer, verdict)
    if verdict.replaced_text:
        answer.original_answer_text = generated.text
        answer.answer_text = verdict.replaced_text
    else:
        answer.answer_text = generated.text
    return _Generated(generated, verdict, hits), verdict


def verify_answer(
    question: Question | str,
    generated: ProviderAnswer,
    hits: list[RetrievedChunk],
    *,
    calibration: Calibration | None = None,
) -> Verdict:
    """The verdict the portal gives a provider answer (the evaluate command scores the same one).

    ``question`` as analysed (a plain string is analysed here, for callers outside an answer);
    the 高/中 retrieval thresholds come from ``calibration`` (the current one when None).
    """
    if isinstance(question, str):
        question = analyse_question(question)
    calibration = calibration or current_calibration()
    return verify(
        blocks=generated.blocks,
        chunks=hits,
        top_similarity=evidence_similarity(generated.blocks, hits),
        thresholds=(calibration.confident, calibration.medium),
        min_grounded_ratio=settings.RAG_MIN_GROUNDED_RATIO,
        abstained=generated.abstained,
        question=question.asked,
        meaning=_meaning_check(hits),
    )


def evidence_similarity(blocks: Sequence[AnswerBlock], hits: Sequence[RetrievedChunk]) -> float | None:
    """How close to the question the passage is that the answer leads with: its hit's dense similarity.

    Confidence is about the evidence an answer gives, not about the best passage the search
    found: an answer quoting the fourth hit is as sure as that hit, however close the first
    one came. The lead passage is the first one cited (the provider puts its answer first).
    Without a citation (an abstention, a provider that cites nothing), the best hit's.
    """
    for block in blocks:
        for citation in block.citations:
            if citation.chunk_index is not None and 0 <= citation.chunk_index < len(hits):
                return hits[citation.chunk_index].similarity
    return max((h.similarity for h in hits), default=None)


def _meaning_check(hits: list[RetrievedChunk]) -> MeaningCheck:
    """Support by meaning over the chunks' stored sentence vectors, loaded only if a sentence needs them."""
    return MeaningCheck([h.text for h in hits], lambda: sentence_matrices(hits), embed_passages)


def _sources(answer: Answer, hits: list[RetrievedChunk]) -> list[AnswerSource]:
    """One row per document the answer was built from: all retrieved ones (``hits``), and the one asked about."""
    documents: dict[str, int | None] = {h.filename: h.document_id for h in hits if h.filename}
    if answer.restricted_document is not None:
        documents[answer.restricted_document.filename] = answer.restricted_document.pk
    return _source_rows(answer, documents)


def _source_rows(answer: Answer, documents: dict[str, int | None]) -> list[AnswerSource]:
    """One row per (file name, document id); a document limited to groups (or gone) is marked restricted."""
    ids = [pk for pk in documents.values() if pk is not None]
    restricted = set(Document.objects.filter(pk__in=ids, groups__isnull=False).values_list("pk", flat=True))
    return [
        AnswerSource(answer=answer, document_id=pk, filename=name, restricted=pk is None or pk in restricted)
        for name, pk in sorted(documents.items())
    ]


def _numbered_citations(pending: _Generated) -> tuple[list[dict], list[Citation]]:
    """The answer's blocks with citation numbers, and one unsaved Citation row per distinct quote.

    Built from the verdict's checks, which carry each citation with its checked
    offsets in answer order; a quote cited twice keeps its first number.
    """
    hits = pending.hits
    numbers: dict[tuple, int] = {}
    rows: list[Citation] = []
    by_block: dict[int, list[int]] = {}
    for check in pending.verdict.quote_checks:
        key = (check.chunk_index, check.start, check.end, check.cited_text)
        if key not in numbers:
            numbers[key] = len(numbers) + 1
            index = check.chunk_index
            hit = hits[index] if index is not None and 0 <= index < len(hits) else None
            verified = check.verified and hit is not None and check.start is not None and check.end is not None
            start, end = (check.start, check.end) if verified else (None, None)
            context = (
                stored_context(hit.text, start, end)
                if hit is not None and start is not None and end is not None
                else ("", "")
            )
            rows.append(
                Citation(
                    n=numbers[key],
                    block_index=check.block,
                    chunk_id=hit.chunk_id if hit else None,
                    document_id=hit.document_id if hit else None,
                    version_id=hit.version_id if hit else None,
                    filename=hit.filename if hit else "",
                    section=hit.section if hit else "",
                    cited_text=check.cited_text,
                    start=start,
                    end=end,
                    quote_verified=verified,
                    context_before=context[0],
                    context_after=context[1],
                )
            )
        block_numbers = by_block.setdefault(check.block, [])
        if numbers[key] not in block_numbers:
            block_numbers.append(numbers[key])
    blocks = [
        {"text": block.text, "citations": by_block.get(index, [])} for index, block in enumerate(pending.answer.blocks)
    ]
    return blocks, rows


@transaction.atomic
def _save(answer: Answer, pending: _Generated | None, hits: list[RetrievedChunk]) -> list[Citation]:
    """Store the answer (one insert), then its sources and numbered citations (one bulk insert each).

    Returns the stored citation rows, each with its document loaded (one query):
    the footnotes show its title and staleness compares its live version.
    """
    rows: list[Citation] = []
    if pending is not None:
        answer.blocks, rows = _numbered_citations(pending)
    answer.save()
    AnswerSource.objects.bulk_create(_sources(answer, hits))
    for row in rows:
        row.answer = answer
    Citation.objects.bulk_create(rows)
    documents = Document.objects.in_bulk({row.document_id for row in rows if row.document_id is not None})
    for row in rows:
        row.document = documents.get(row.document_id) if row.document_id is not None else None
    return rows


def feedback_record(*, answer: Answer, user: User, rating: int, reason: str = "", comment: str = "") -> Feedback:
    """Record ``user``'s current rating of ``answer`` (replacing an earlier one).

    A 👎 needs a reason; the caller must already have checked that ``answer`` is the user's.
    """
    if rating not in (Feedback.Rating.UP, Feedback.Rating.DOWN):
        raise ValidationError({"rating": _("評価は 1（👍）か -1（👎）で指定してください。")}, code="invalid")
    if reason and reason not in Feedback.Reason.values:
        raise ValidationError({"reason": _("理由の選択肢が正しくありません。")}, code="invalid")
    if rating == Feedback.Rating.DOWN and not reason:
        raise ValidationError({"reason": _("👎 の理由を選んでください。")}, code="required")
    if rating == Feedback.Rating.UP:
        reason = ""
    feedback, _created = Feedback.objects.update_or_create(
        answer=answer, user=user, defaults={"rating": rating, "reason": reason, "comment": comment.strip()[:2000]}
    )
    return feedback


def _live_version_ids() -> list[int]:
    return list(Document.objects.filter(live_version__isnull=False).values_list("live_version_id", flat=True))


def calibration_run() -> CorpusCalibration:
    """Measure the live corpus (qa.calibration) and store its calibration, which becomes the current one.

    Raises ValidationError when there is nothing to measure (no live document
    with headings); any failure stores nothing, so the previous calibration stays.
    """
    version_ids = _live_version_ids()
    headings = Chunk.objects.filter(version_id__in=version_ids).exclude(heading_path="")
    questions = heading_questions(list(headings.values_list("heading_path", flat=True).distinct()))
    if not questions:
        raise ValidationError(_("校正に使える見出しのある文書がありません。"), code="empty")
    measured = {
        side: [Measured(q, *measure_question(q, version_ids)) for q in asked]
        for side, asked in (
            ("on_topic", questions),
            ("off_topic", OFF_TOPIC_QUESTIONS),
            ("english_off_topic", ENGLISH_OFF_TOPIC_QUESTIONS),
        )
    }
    values = thresholds_from(
        measured["on_topic"],
        measured["off_topic"],
        Calibration.from_settings(),
        english_off_topic=measured["english_off_topic"],
    )
    return CorpusCalibration.objects.create(
        corpus_key=corpus_key(version_ids),
        documents=len(version_ids),
        values=values.to_dict(),
        measurements={
            side: [[m.question, m.top_chunk, m.best_sentence] for m in rows] for side, rows in measured.items()
        },
    )


def current_calibration() -> Calibration:
    """The newest stored calibration as applied (:func:`applied_calibration`), else the settings' values.

    After the corpus changes the newest one stays in use until a new one is
    measured (``calibrate``, or qa.tasks.calibrate_task when enabled).
    """
    latest = CorpusCalibration.objects.first()
    if latest is None:
        return Calibration.from_settings()
    return applied_calibration(latest.values, measurements=latest.measurements)


def applied_calibration(values: dict[str, Any], *, measurements: dict[str, Any] | None = None) -> Calibration:
    """What the portal applies of a stored calibration's ``values``: its 高/中 thresholds, not its off-topic floors.

    Also the sentence an unknown-word question must beat (``unknown_word_sentence``);
    a calibration stored before that value existed gets it from its ``measurements``.

    The measured floors are stored and shown, not applied. Measured with
    ``evaluate_portal --in-place``: applied whole, a calibration turned everyday
    questions away as off topic (demo golden set 0.932 → 0.753, GitLab handbook
    development questions 0.550 → 0.325); its thresholds alone kept every right
    answer there and cut the wrong 高 from 5 to 1. A heading asked as a question
    is far closer to its section than an employee's own words, so a floor set
    between headings and off-topic questions sits too high; the thresholds only
    have to clear the off-topic questions, which they do.
    """
    defaults = Calibration.from_settings()
    return Calibration(
        off_topic_floor=defaults.off_topic_floor,
        english_floor=defaults.english_floor,
        confident=values["confident"],
        medium=values["medium"],
        clarify_gap=values.get("clarify_gap", defaults.clarify_gap),
        source="corpus",
        unknown_word_sentence=values.get("unknown_word_sentence", _unknown_word_sentence(measurements, defaults)),
    )


def _unknown_word_sentence(measurements: dict[str, Any] | None, defaults: Calibration) -> float:
    """From a calibration's stored off-topic rows ([question, chunk, sentence]); the default without them."""
    rows = (measurements or {}).get("off_topic") or []
    if not rows:
        return defaults.unknown_word_sentence
    return off_topic_sentence_ceiling([Measured(*row) for row in rows])


def calibration_stale(*, calibration: CorpusCalibration) -> bool:
    """Whether the live documents changed since ``calibration`` was measured."""
    return calibration.corpus_key != corpus_key(_live_version_ids())


def calibration_up_to_date() -> bool:
    """Whether the newest calibration was measured on the live documents as they are now (none: False)."""
    latest = CorpusCalibration.objects.first()
    return latest is not None and not calibration_stale(calibration=latest)


def example_answers_load(*, examples: list[dict], user: User) -> int:
    """Store the demo's example answers (``qa.examples``) as ``user``'s, each in its own conversation.

    Marked ``is_example`` and titled 「例: …」. An example whose question is
    already stored as an example is skipped, so loading twice adds nothing.
    Returns how many were created.
    """
    stored = set(Answer.objects.filter(is_example=True).values_list("question", flat=True))
    finder = ChunkFinder()
    created = 0
    for example in examples:
        if example["question"] in stored:
            continue
        answer, citations = example_answer_row(example, finder)
        # The example's verdict decides confidence, flags and warnings, as for an answer made now.
        answer.store_verdict(Verdict.from_dict(example["verification"]))
        with transaction.atomic():
            answer.user = user
            answer.conversation = Conversation.objects.create(
                user=user, title=(EXAMPLE_TITLE_PREFIX + answer.question)[:60]
            )
            answer.save()
            filenames = {item["filename"]: item.get("document_id") for item in answer.retrieved}
            AnswerSource.objects.bulk_create(_source_rows(answer, filenames))
            for row in citations:
                row.answer = answer
            Citation.objects.bulk_create(citations)
            Feedback.objects.bulk_create(Feedback(answer=answer, user=user, **item) for item in example["feedback"])
        stored.add(answer.question)
        created += 1
    return created
