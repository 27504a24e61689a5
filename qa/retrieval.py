"""Search for the portal: expansion, access-controlled hybrid retrieval, top-k, and the evidence decide() reads.

A user only ever retrieves chunks of the live versions of documents they may
see (documents.selectors); the restriction is applied inside both indexes, not
after the fact, so a restricted document can never crowd into a result.

Besides the hits, :func:`search` reports what only retrieval can know about the
question: whether its subject is in anything the user may read
(:func:`unknown_subject`) and whether its words single out no document
(``generic_question``). What to do with that (answer, ask back, not found) is
decided by :func:`qa.decision.decide`.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Literal

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User

from documents.embeddings import embed_query
from documents.keyword_index import live_keyword_index
from documents.models import Chunk
from documents.selectors import searchable_version_ids, unreadable_version_ids, written_in
from documents.services import stored_sentence_vectors
from documents.vocabulary import Word, analyse, is_katakana, katakana_word_in
from documents.sentence_vectors import unpack
from documents.vectorstore import DenseIndex, live_collection
from qa.ambiguity import content_terms, generic_terms, is_facet
from qa.decision import Evidence
from qa.engine import EngineConfig, HybridEngine, Mode
from qa.everyday import everyday_words
from qa.expansion import Expansion, dictionary_rules, expand, expand_with_terms
from qa.fusion import Candidate
from qa.question import Question, analyse_question
from qa.rerank import stating_first, titled_first
from qa.hit_vectors import sentence_matrices
from qa.types import RetrievedChunk
from verification.answer_types import carries_units, recommends
from qa.vocabulary import (
    AS_WRITTEN,
    GENERAL,
    TermMatch,
    companies_unheard_of,
    english_owners_unheard_of,
    named_as_things,
    names_apart_from_their_subject,
    places_asked_about,
    places_gone_to,
    unheard_of_owners,
    unknown_words,
    unknown_words_asked_with_known_ones,
    used_by,
    used_by_most,
    vocabulary_matches,
    written_as_documents,
)
from ragportal.text import fold, is_english

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
    # The question's names that nothing the user may read names (its proper nouns; an English one's owners).
    unknown_names: list[str] = field(default_factory=list)
    # Its other nouns that nothing the user may read uses, nor the vocabulary or the dictionary reached.
    unknown_words: list[str] = field(default_factory=list)
    # Those of them that documents the user may not read use: the company's own words for what they cover.
    unreadable_words: list[str] = field(default_factory=list)
    # The documents' terms the question's words reached by spelling, reading or meaning (qa.vocabulary).
    vocabulary: list[TermMatch] = field(default_factory=list)
    # The question with its kana and variant spellings written as the documents write them
    # (qa.vocabulary.written_as_documents).
    written_query: str = ""
    # ``written_query`` with its everyday words written as the documents' terms too (レシート → 領収書,
    # qa.everyday): what the off-topic check compares with sentences. Only that: quoted and judged,
    # the question keeps the employee's words (a listed translation earns no 高 by itself).
    written_in_terms: str = ""
    # The terms the question names, its kana read as the documents write it (_terms_as_written).
    terms: tuple[str, ...] = ()


def live_engine(*, meaning: bool = True) -> HybridEngine:
    """The engine over the live indexes; ``meaning`` False skips the re-ranking by sentence meaning (qa.rerank)."""
    return HybridEngine(
        DenseIndex(live_collection()),
        live_keyword_index(),
        EngineConfig.from_settings(),
        sentences=stored_sentence_vectors if meaning else None,
    )


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
        if not _above_floor(c, min_similarity):
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


def _above_floor(candidate: Candidate, min_similarity: float) -> bool:
    """Whether a candidate matches something: a keyword match, or a dense similarity of at least ``min_similarity``."""
    return candidate.keyword_rank is not None or (candidate.similarity or 0.0) >= min_similarity


def search(
    *,
    user: User | AnonymousUser,
    query: str,
    document_id: int | None = None,
    k: int | None = None,
    mode: Mode = "hybrid",
    llm_expansion="auto",  # noqa: ANN001 - Callable[[str], list[str]] | None | "auto"
    question: Question | None = None,
) -> SearchResult:
    """The best chunks for ``query`` among what ``user`` may see (optionally one document).

    ``question`` is ``query`` as analysed (:func:`qa.question.analyse_question`),
    analysed here when not given. ``llm_expansion`` "auto" asks the cloud
    provider for keywords when RAG_LLM_EXPANSION is on (any failure falls back
    to the dictionary). A two-part question (``question.parts``) also gets the
    best chunks of each part: 「在宅勤務は週何日まで…、手当は月いくら？」 needs the
    section on days as well as the one on the allowance.
    """
    question = question or analyse_question(query)
    k = k or settings.RAG_TOP_K
    t0 = time.perf_counter()
    found = _retrieve(
        user,
        question.spelled,
        document_id=document_id,
        k=k,
        mode=mode,
        llm=_llm_keywords(llm_expansion),
        english=question.english,
        units=question.whole.units,
    )
    hits, expansion = found.hits, found.expansion
    terms = _terms_as_written(question, found.written)
    generic = document_id is None and _generic(question, terms, found)
    hits += _asked_fact_in_the_best_document(question, hits, mode=mode)
    subject_unknown = _subject_unknown(question, found)
    unknown = [] if question.english else _unknown_words(question, found)
    hits += _part_hits(user, question, hits, document_id=document_id, mode=mode)
    timings = {**found.timings, "total": (time.perf_counter() - t0) * 1000}
    return SearchResult(
        query=query,
        expanded_query=expansion.expanded_query,
        added_keywords=expansion.added_keywords,
        hits=hits,
        timings=timings,
        short_question=question.short,
        generic_question=generic,
        subject_unknown=subject_unknown,
        unknown_names=_unknown_names(question, found, unknown),
        unknown_words=[w.surface for w in unknown if not w.proper],
        unreadable_words=used_by([w for w in unknown if not w.proper], version_ids=unreadable_version_ids(user))
        if unknown
        else [],
        vocabulary=found.matches,
        written_query=found.written,
        written_in_terms=_written_in_terms(question, found),
        terms=terms,
    )


def _part_hits(
    user: User | AnonymousUser, question: Question, hits: list[RetrievedChunk], *, document_id: int | None, mode: Mode
) -> list[RetrievedChunk]:
    """For a two-part question, each part's best chunks that ``hits`` lacks (at most :data:`PART_HITS` per part)."""
    added: list[RetrievedChunk] = []
    for part in question.parts if question.two_part else ():
        found = _retrieve(
            user,
            part.text,
            document_id=document_id,
            k=PART_HITS,
            mode=mode,
            llm=None,
            english=question.english,
            units=part.units,
        ).hits
        added += [hit for hit in found if all(hit.chunk_id != h.chunk_id for h in hits + added)][:PART_HITS]
    return added


def _written_in_terms(question: Question, found: _Retrieved) -> str:
    """The question as written (``found.written``) with its everyday words as the documents' terms (qa.everyday).

    Not an English question's: one Japanese word among English ones only moves which sentence is quoted.
    """
    if question.english:
        return found.written
    return written_as_documents(found.written, [m for m in found.matches if m.via in GENERAL])


# Chunks of the best document added when none of its hits states the quantity asked for.
FACT_HITS = 2


def _asked_fact_in_the_best_document(
    question: Question, hits: list[RetrievedChunk], *, mode: Mode
) -> list[RetrievedChunk]:
    """The best document's chunks that state a quantity the question asks for, when none of its hits does.

    「360度フィードバックは何人に頼めばいい？」: every hit of the right document is about
    360度フィードバック, and the number of people is in a chunk ranked below them.
    Searched again within that document's live version only, and kept only when
    they state the asked unit; they come after the hits, as weaker evidence.
    """
    units = question.whole.units
    if not hits or not units:
        return []
    best = hits[0]
    own = [h for h in hits if h.document_id == best.document_id]
    if any(carries_units(asked, h.text) for asked in units for h in own):
        return []
    inside = _retrieve(
        None,
        question.spelled,
        document_id=best.document_id,
        k=settings.RAG_TOP_K * 2,
        mode=mode,
        llm=None,
        version_ids=[best.version_id],
        english=question.english,
        # Kept by the unit they state, not by their rank: embedding the document's sentences would buy nothing.
        meaning=False,
    ).hits
    taken = {h.chunk_id for h in hits}
    return [h for h in inside if h.chunk_id not in taken and any(carries_units(asked, h.text) for asked in units)][
        :FACT_HITS
    ]


def _generic(question: Question, terms: tuple[str, ...], found: _Retrieved) -> bool:
    """Whether ``question`` is short and its ``terms`` single out none of the documents ``found`` (qa.ambiguity)."""
    texts = _document_texts(found.chunks.values())
    return question.short and generic_terms(terms, texts, spellings=found.expansion.added_keywords)


def _terms_as_written(question: Question, written: str) -> tuple[str, ...]:
    """The terms ``question`` names, read once its kana is written as the documents write it (``written``):
    「ざんぎょうだいってでる？」 names 残業代. Read as typed, a question in kana names nothing, and looks
    like one that any document answers (asked back where its kanji form is answered)."""
    return question.terms if written in ("", question.spelled) else tuple(content_terms(written))


def _unknown_words(question: Question, found: _Retrieved) -> list[Word]:
    """The question's nouns that nothing searched uses (qa.vocabulary.unknown_words), less those expanded.

    A word reached only by meaning is still unknown: nearness in meaning is a guess
    (「居酒屋」 is near some term of any handbook about meals), while spelling, reading,
    abbreviation, an everyday word's listed term and the glossary say the word is one the documents use.
    """
    folded = fold(question.spelled)
    fired = [fold(term) for term, _ in dictionary_rules() if term and fold(term) in folded]
    reached = {m.word for m in found.matches if m.said}
    # An everyday word reaches the compound it heads: 給料 → 賃金 makes 給料日 known.
    heads = [m.word for m in found.matches if m.via in GENERAL]
    unknown = [
        w
        for w in unknown_words(question.spelled, version_ids=found.version_ids, reached=reached)
        if not any(term in w.surface or w.surface in term for term in fired)
        and not any(w.surface.startswith(head) for head in heads)
    ]
    if not any(w.proper for w in unknown):
        return unknown  # most questions: not analysed again
    things = named_as_things(question.spelled)
    return [replace(w, proper=False) if w.surface in things else w for w in unknown]


def _unknown_names(question: Question, found: _Retrieved, unknown: list[Word]) -> list[str]:
    """The question's names nothing searched mentions (among ``unknown``), and those asked about as 「X の Y」
    that no candidate passage names with Y (qa.vocabulary.names_apart_from_their_subject); an English
    question's, the owners (Toyota's) no document writes."""
    if question.english:
        return english_owners_unheard_of(question.text, version_ids=found.version_ids)
    gone_to = places_gone_to(question.spelled) if any(w.place for w in unknown) else set()
    names = [w.surface for w in unknown if w.proper and w.surface not in gone_to]
    names += unheard_of_owners(question.spelled, [w.surface for w in unknown if not w.proper], near=found.matches)
    names += [n for n in companies_unheard_of(question.spelled, version_ids=found.version_ids) if n not in names]

    # Folded only if the question asks about a name as 「X の Y」, and then once for both readers.
    texts = functools.cache(lambda: _document_texts(found.chunks.values()))

    def passages() -> Iterator[str]:
        yield from chain.from_iterable(texts().values())

    def best() -> Iterator[str]:
        if found.hits:
            yield from texts().get(found.hits[0].document_id) or []

    apart = names_apart_from_their_subject(question.spelled, passages(), best=best(), written=found.matches)
    return names + [n for n in apart if n not in names]


def _subject_unknown(question: Question, found: _Retrieved) -> bool:
    """Whether ``question`` names a subject that the versions ``found`` searched never mention."""
    keywords = live_keyword_index()
    return bool(found.hits) and unknown_subject(
        question,
        found.hits,
        found.expansion.added_keywords,
        in_corpus=lambda bigram: keywords.has_token(bigram, version_ids=found.version_ids),
        common=lambda word: used_by_most(word, found.version_ids),
        reached=found.matches,
        written=lambda term: written_in(term, found.version_ids),
        written_as_word=lambda word: written_in(word, found.version_ids, starting_a_word=True),
    )


@dataclass
class _Retrieved:
    """One retrieval: the expansion used, the hits, the candidates' chunks and the versions searched."""

    expansion: Expansion
    hits: list[RetrievedChunk]
    chunks: dict[int, Chunk]
    version_ids: list[int]
    timings: dict[str, float]
    matches: list[TermMatch] = field(default_factory=list)
    written: str = ""


def _retrieve(
    user,  # noqa: ANN001
    query: str,
    *,
    document_id: int | None,
    k: int,
    mode: Mode,
    llm: Callable[[str], list[str]] | None,
    version_ids: list[int] | None = None,
    english: bool | None = None,
    meaning: bool = True,
    units: Sequence[frozenset[str]] = (),
) -> _Retrieved:
    """Expand ``query`` (spelled out), search both indexes within ``user``'s versions, keep the top ``k``.

    ``version_ids`` given (calibration, which measures the whole corpus) replaces the user's;
    ``english`` is the question's language as analysed (read from ``query`` when None);
    ``meaning`` False skips the re-ranking by sentence meaning; ``units``: per quantity
    the question asks for, its units (qa.rerank.stating_first puts passages stating one first).
    """
    t0 = time.perf_counter()
    if version_ids is None:
        version_ids = searchable_version_ids(user, document_id=document_id)
    # The corpus's own terms for the question's words (qa.vocabulary), among what the user may read:
    # kana and variant spellings are written as the documents write them, meanings are added.
    matches = (
        vocabulary_matches(query, version_ids=version_ids, english=english) if settings.RAG_VOCABULARY_EXPANSION else []
    )
    # An everyday word stays as typed in what is searched: its terms are added to it below.
    written = written_as_documents(query, [m for m in matches if m.via not in GENERAL])
    expansion = expand(written, rules=dictionary_rules(), llm=llm)
    expansion = expand_with_terms(expansion, [m.term for m in matches if m.said and m.via not in GENERAL])
    sure_query = expansion.expanded_query
    expansion = expand_with_terms(expansion, [m.term for m in matches if m.via in GENERAL])
    # A match by meaning is a guess (株価 → 資産): it helps find passages but is not taken as what was asked.
    expansion = expand_with_terms(expansion, [m.term for m in matches if not m.said], keywords=False)
    timings = {"expansion": (time.perf_counter() - t0) * 1000}
    english = is_english(query) if english is None else english
    # An English question is matched to Japanese passages by the multilingual model reading it whole; a guess per
    # word (yearly → 年間) blurs that reading, and so does a listed translation (hotel → 宿泊施設), so its dense half
    # embeds the question with only its certain spellings (hotel → ホテル). Its keyword half searches the Japanese
    # terms its words reached, which Japanese passages write, and leads where they single out passages; with none,
    # the English words, which Japanese documents carry only by chance (a screen's label), just add candidates.
    japanese = _japanese_terms(matches, expansion.added_keywords) if english else []
    result = live_engine(meaning=meaning).search(
        query=expansion.expanded_query,
        version_ids=version_ids,
        mode=mode,
        dense_query=sure_query if english else None,
        keyword_query=" ".join(japanese) if japanese else None,
        keyword_ranks=not english,
    )
    timings.update(result.timings)
    per_document = settings.RAG_MAX_CHUNKS_PER_DOCUMENT if document_id is None else k
    chunks = _candidate_chunks(result.candidates, version_ids)
    candidates = _reordered(result.candidates, chunks, query, units, english=english)
    hits = _hits(candidates, chunks, k=k, per_document=per_document)
    return _Retrieved(expansion, hits, chunks, version_ids, timings, matches, written)


def _japanese_terms(matches: Sequence[TermMatch], added_keywords: Sequence[str]) -> list[str]:
    """The Japanese terms an English question's words reached, once each: what its keyword half searches.

    A word the documents write in katakana (hotel → ホテル) is written into the question rather than
    added to it, and is one of them too.
    """
    reached = [*(m.term for m in matches if m.via in AS_WRITTEN), *added_keywords]
    return list(dict.fromkeys(term for term in reached if not term.isascii()))


def _reordered(
    candidates: list[Candidate], chunks: dict[int, Chunk], query: str, units: Sequence[frozenset[str]], *, english: bool
) -> list[Candidate]:
    """The fused candidates with those of a place the question is about first, then those stating the asked quantity.

    A place the question is about (「日本で育休を取ったら」, 「日本の育休」), not one the asker goes to (「岐阜工場に
    通って」), in a title or section (qa.rerank.titled_first); a quantity in an asked unit (qa.rerank.stating_first).
    """
    places = [] if english else places_asked_about(query)
    if places:
        headings = {pk: fold(f"{chunk.document.title} {chunk.heading_path}") for pk, chunk in chunks.items()}
        candidates = titled_first(candidates, headings, places, depth=settings.RAG_RERANK_DEPTH)
    texts = {pk: chunk.text for pk, chunk in chunks.items()}
    return stating_first(candidates, texts, units, depth=settings.RAG_RERANK_DEPTH)


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
    # Their sentence vectors are read for the hits only (:func:`_hits`): a few of some hundred candidates.
    rows = Chunk.objects.filter(pk__in=ids, version_id__in=version_ids).select_related("document")
    return {c.pk: c for c in rows.defer("sentence_vectors")}


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
    top += _more_of_the_best_document(candidates, top, chunks, extra=per_document)
    stored = dict(Chunk.objects.filter(pk__in=[c.chunk_id for c in top]).values_list("pk", "sentence_vectors"))
    return [_retrieved(c, chunks[c.chunk_id], stored.get(c.chunk_id)) for c in top]


def _more_of_the_best_document(
    candidates: list[Candidate], top: list[Candidate], chunks: dict[int, Chunk], *, extra: int
) -> list[Candidate]:
    """Up to ``extra`` more chunks of the best document, in fused order, that the per-document cap left out.

    The cap keeps other documents in view (two documents that both fit are asked
    back about); but the passage that states the answer is often the best
    document's third or fourth chunk (a section's rule in one chunk, its figure in
    the next). They come after the top ``k``, so every ranking and decision on
    the top ``k`` stays as it was; the provider reads them as weaker evidence.
    """
    if not top:
        return []
    best_document = chunks[top[0].chunk_id].document_id
    taken = {c.chunk_id for c in top}
    # Only those ranked above the last chunk kept: the top k but for the cap.
    ranked_above = candidates[: candidates.index(top[-1])]
    return [
        c
        for c in ranked_above
        if c.chunk_id not in taken
        and c.chunk_id in chunks
        and chunks[c.chunk_id].document_id == best_document
        and _above_floor(c, settings.RAG_MIN_SIMILARITY)
    ][:extra]


def _retrieved(candidate: Candidate, chunk: Chunk, vectors: bytes | memoryview | None) -> RetrievedChunk:
    """One hit: the chunk's text and document with the candidate's (rounded) scores and ranks (``vectors``: as stored)."""
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
        sentence_vectors=unpack(vectors, chunk.text),
    )


_LATIN_WORD = re.compile(r"[0-9a-z]+(?:-[0-9a-z]+)*")


def names_something_retrieved(
    question: Question | str, hits: Sequence[RetrievedChunk], expansions: Sequence[str] = ()
) -> bool:
    """Whether an English question names something the retrieved chunks name: through an expansion, or as it is.

    An expansion counts when it is a Japanese term a retrieved chunk uses: a glossary
    word (「paid leave」 → 有給休暇) or a term of the documents the question's word
    reached by meaning (qa.vocabulary: 「password」 → パスワード). A word as it is counts
    when it is a content word of three letters or more written so in a retrieved
    chunk (「VPN」, 「USB」, 「Wi-Fi」). 「weather」 and 「tomorrow」 are neither.
    """
    texts = [fold(f"{h.section}\n{h.text}") for h in hits]
    if any(not term.isascii() and any(fold(term) in text for text in texts) for term in expansions):
        return True
    if isinstance(question, str):
        question = analyse_question(question)
    used = {word for text in texts for word in _LATIN_WORD.findall(text)}
    words = set(question.terms) | {w for w in _LATIN_WORD.findall(fold(question.text)) if "-" in w}
    return any(len(word) >= 3 and word in used for word in words)


def unknown_subject(
    question: Question | str,
    hits: list[RetrievedChunk],
    expansions: Sequence[str] = (),
    *,
    in_corpus: Callable[[str], bool] | None = None,
    common: Callable[[str], bool] | None = None,
    reached: Sequence[TermMatch] = (),
    written: Callable[[str], bool] | None = None,
    written_as_word: Callable[[str], bool] | None = None,
) -> bool:
    """Whether the head of ``query``'s subject (its last word) is in nothing the user may read, nor any expansion of it.

    「退職金はいくら？」 over documents that never say 退職金; 「ボーナスは？」 where neither
    ボーナス nor its glossary synonym 賞与 is anywhere the user may read. A word is
    mentioned when each of its characters is in one of its bigrams found in the
    hits or (``in_corpus``, per bigram) anywhere in the user's documents:
    「内線番号」 by 「内線: 2300」 and 「電話番号」, but 「退職金」 not by 「退職後」. A word of the
    subject before its head keeps it known when mentioned, unless ``common`` (most of the
    documents use it). False when the question has no subject before は (nothing to judge).
    An English question asking whether a thing exists ("Is there a cafeteria?") names an unknown
    subject when none of its Japanese words is in the hits or ``written`` in the user's documents (a
    loanword's bigrams are found in too many other words): those the everyday list gives it
    (qa.everyday), and those its words ``reached`` (qa.vocabulary), not by meaning alone. So is a
    katakana word of the subject: only where it is written as a word (:func:`_named`).
    """
    if isinstance(question, str):
        question = analyse_question(question)
    text = fold(" ".join(f"{h.section}\n{h.text}" for h in hits))

    def found(bigram: str) -> bool:
        return bigram in text or (in_corpus is not None and in_corpus(bigram))

    if question.english:
        # An English question's Japanese words are its glossary expansions (「bonuses」 → 賞与).
        terms = [fold(term) for term in expansions if not term.isascii()]
        if _english_thing_unwritten(question, text, reached, written):
            return True
        return bool(terms) and not any(_mentioned(term, found) for term in terms)
    words = question.subject_terms
    if _thing_not_theirs(question, found, reached, written):
        return True
    if not (words or question.existence_terms) or any(fold(term) in text for term in expansions):
        return False
    if not words:
        return False
    # What the subject is about is its last word (its head): 「落ちた応募者の履歴書は」 asks about 履歴書.
    # The words before it say whose or which, and one the documents mention keeps the subject known
    # (応募者), unless most of the documents use it (「うちの会社の株価は」: 会社 says nothing of 株価).
    *whose, head = words
    # An aspect as the head (「入社式の日程は」, 「駐車場の料金は」) names what of the subject is asked, not the subject:
    # that is the words before it, which the documents must mention.
    if _named(head, text, found, written_as_word) and not (
        whose and is_facet(head) and f"{whose[-1]}の{head}" in fold(question.text)
    ):
        return False
    return not any(
        _named(word, text, found, written_as_word) and not (common is not None and common(word)) for word in whose
    )


def _english_thing_unwritten(
    question: Question, text: str, reached: Sequence[TermMatch], written: Callable[[str], bool] | None
) -> bool:
    """Whether an English question names a thing none of whose Japanese words is in ``text`` (the hits) or ``written``.

    "Is there a cafeteria in the office?": the office is known, the cafeteria must be too. The things:
    what it asks exists, and its words the everyday list has. Their Japanese words: those the list
    gives (written or not), and those a match ``reached``, not by meaning alone.
    """
    things = question.existence_terms + tuple(w for w, _, _ in everyday_words(fold(question.text), english=True))
    for thing in things:
        listed = [t for _, senses, _ in everyday_words(thing, english=True) for sense in senses for t in sense]
        reached_terms = [m.term for m in reached if m.word in thing and m.said]
        its = [fold(term) for term in listed + reached_terms if not term.isascii()]
        if its and thing not in text and not any(term in text or (written and written(term)) for term in its):
            return True
    return False


def _thing_not_theirs(
    question: Question,
    found: Callable[[str], bool],
    reached: Sequence[TermMatch],
    written: Callable[[str], bool] | None,
) -> bool:
    """Whether a thing asked after (「横浜本社って社員食堂ある？」) is not the documents', whatever else the question names.

    Not theirs when it is mentioned nowhere the user may read, or when a word it is made of is written nowhere
    (:func:`_part_unwritten`: 「誕生日休暇ってある？」 over rules that write 休暇 and 子の誕生). What the question's other
    words reach does not stand for it (友達 → 友人, 無料 → 無償; 社食 → 社内 by meaning alone); a match of the thing itself
    as said does (社割 → 従業員割引, 外の相談先 → 社外相談窓口).
    """
    said = [m.word for m in reached if m.said]
    return any(
        (not any(word in term for word in said) and _part_unwritten(term, written, said))
        or (not _mentioned(term, found) and not any(word in term or term in word for word in said))
        for term in question.existence_terms
    )


def _part_unwritten(term: str, written: Callable[[str], bool] | None, said: Sequence[str]) -> bool:
    """Whether a word ``term`` is made of is written nowhere the user may read, nor ``said`` (matched) otherwise.

    「誕生日休暇ってある？」 over rules that write 休暇 and 子の誕生 but never 誕生日: each character is in
    a bigram they use, yet no such leave is there. Only a compound's words are judged, and only those of two
    characters or more: a word the analyser does not cut (相談先) is left to :func:`_mentioned`.
    """
    if written is None:
        return False
    parts = [p.surface for w in analyse(term) if w.noun for p in (w.parts or (w,))]
    return len(parts) > 1 and any(
        len(part) >= 2 and not any(part in word for word in said) and not written(part) for part in parts
    )


def _named(word: str, text: str, found: Callable[[str], bool], written_as_word: Callable[[str], bool] | None) -> bool:
    """Whether ``word`` is mentioned in ``text`` (the hits, folded) or the documents: a katakana word where it is
    written as a word (:func:`documents.vocabulary.katakana_word_in`, ``written_as_word``), another by its bigrams."""
    if not is_katakana(word):
        return _mentioned(word, found)
    return katakana_word_in(word, text) or (written_as_word is not None and written_as_word(word))


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
    matrices = sentence_matrices(hits)
    return max((float((matrix @ vector).max()) for matrix in matrices if len(matrix)), default=0.0)


def _listed(word: str) -> bool:
    """Whether the everyday list knows ``word`` (or the word heading it): then the documents, which use none
    of its terms (it would not be unknown), do not cover what it names (「バリウム検査」: 胃部エックス線検査)."""
    return any(at == 0 for _, _, at in everyday_words(fold(word), english=False, starts={0}))


def evidence_for(question: Question, result: SearchResult, *, one_document: bool) -> Evidence:
    """What :func:`qa.decision.decide` reads of a search for ``question`` (``one_document``: the user chose one)."""
    hits = result.hits
    return Evidence(
        hits=hits,
        subject_unknown=result.subject_unknown,
        unknown_names=tuple(result.unknown_names),
        unknown_words=tuple(result.unknown_words),
        unreadable_words=tuple(result.unreadable_words),
        unknown_among_known=bool(result.unknown_words)
        and not any(_listed(word) for word in result.unknown_words)
        and unknown_words_asked_with_known_ones(question.spelled, result.unknown_words),
        generic=result.generic_question,
        one_document=one_document,
        names_something=question.english and names_something_retrieved(question, hits, result.added_keywords),
        # What the best passage says: among a few documents every passage is a hit, and another topic's 推奨 says nothing.
        recommends=question.recommendation and bool(hits) and recommends(f"{hits[0].section}\n{hits[0].text}"),
        # Kana and variant spellings as the documents write them: けいひせいさん reads like 経費精算 there.
        # Measured once: several off-topic rules read it for the same question.
        best_sentence=functools.cache(
            lambda: best_sentence_similarity(result.written_in_terms or result.written_query or question.text, hits)
        ),
    )


def measure_question(text: str, version_ids: list[int]) -> tuple[float, float]:
    """For calibration: the best chunk's and the best sentence's similarity to ``text`` among ``version_ids``."""
    question = analyse_question(text)
    hits = _retrieve(
        None, question.spelled, document_id=None, k=settings.RAG_TOP_K, mode="hybrid", llm=None, version_ids=version_ids
    ).hits
    if not hits:
        return 0.0, 0.0
    return max(h.similarity for h in hits), best_sentence_similarity(text, hits)
