"""Whether a question's own words can single out a document: the ask-back side of retrieval.

Pure Python, no Django. 「上限はいくら？」 is ambiguous in a portal where travel,
health checks and overtime each have a 上限: the question is short and its one
content term occurs in many documents, so nothing in it says which one is
meant. 「出張の宿泊費の上限はいくら？」 names three terms, and 「在宅勤務手当は
いくらですか？」 a term only one document uses: both are clear.

- :func:`content_terms`: runs of kanji, of katakana, or of Latin letters and
  digits, two characters or longer, after interrogatives (何, 何日, 何時間, 誰,
  ...) and English function words are removed, and a lone kanji's verb stem
  (働く, 忘れ) unless it only asks or gets (教えて, 出る, 休み).
- :func:`question_length`: letters, kana, kanji and digits; punctuation and
  spaces do not count.
- :func:`is_generic`: short, at most one content term, and that term occurs in
  at least :data:`GENERIC_TERM_DOCUMENTS` of the documents retrieval considered
  (all of them when fewer were). A term no document contains says nothing
  either way and keeps the question from counting as generic; a question with
  no content term at all is generic.

Thresholds were chosen on the dev split of the demo golden set
(documents/demo_corpus/golden): see :data:`SHORT_QUESTION_CHARS` and
:data:`GENERIC_TERM_DOCUMENTS`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ragportal.text import HIRAGANA, KANJI, KATAKANA, fold
from ragportal.words import ENGLISH_STOP_WORDS, KANJI_INTERROGATIVES, alternation

# A question this short cannot settle a tie or a generic term with the rest of its
# words. Dev split: every ambiguous question has at most 13 characters; the clear
# questions that otherwise look generic (one common term, or none) have 17 or more.
SHORT_QUESTION_CHARS = 15
# A term found in this many candidate documents does not single one out. Dev
# split: the generic terms of the ambiguous questions (上限, 期限, 手当, パスワード,
# 申請) occur in 4 to 13 documents; the one-term clear questions name a term of
# at most 3 (有給休暇, 経費精算: 3; 在宅勤務手当: 1).
GENERIC_TERM_DOCUMENTS = 4

_TERM = re.compile(f"[{KANJI}]+|[{KATAKANA}]+|[0-9a-z]+")
_WORD_CHARACTER = re.compile(f"[{KANJI}{KATAKANA}{HIRAGANA}0-9a-z]")
# The kanji interrogatives, 何 with the counter it asks about (何日前 keeps 前, 何時間 goes whole).
_INTERROGATIVE = re.compile(
    r"何(?:ヶ月|か月|カ月|時間|週間|年間|日間|[日時回円歳分秒年月週枚人名件度割倍個台階番点泊本冊社%])?|"
    + alternation(tuple(word for word in KANJI_INTERROGATIVES if word != "何"))
)
# A single kanji followed by kana: a verb or adjective stem with its first okurigana (働く → 働く).
_VERB_STEM = re.compile(f"(?<![{KANJI}0-9])([{KANJI}])[{HIRAGANA}]")
# Such a stem directly before a topic or subject particle is a noun, the thing asked about
# (「休みは何日？」: 休み, the days off), even when the verb itself only asks or gets (休める, 出る).
_NOUN_BEFORE_PARTICLE = re.compile("(?:は|が|って)")
# Stems that ask, get or give rather than name the topic (教えて, 知りたい, 出る, 使える), and
# nouns of time and place before a particle (何日前まで, 月に, 年の).
_NOT_TOPIC_STEMS = frozenset("教知聞分言見思行来出入使取持良得貰受休前後中上下内外時日月年毎今次")


def content_terms(text: str) -> list[str]:
    """The question's content terms in order, each once (folded: NFKC, lower case).

    A lone kanji with its okurigana counts when it is a verb that says what the
    question is about (「働く」「忘れ」「泊ま」), not one that only asks (「教えて」「知りたい」),
    and when it is a noun before は/が/って (「休みは何日もらえる？」: 休み).
    """
    folded = _INTERROGATIVE.sub(" ", fold(text))
    # An aspect word written with kana (締め切り, 手続き, 問い合わせ) is one term, not two stems.
    found = [(m.start(), m.group()) for m in _KANA_FACET.finditer(folded)]
    folded = _KANA_FACET.sub(lambda m: " " * len(m.group()), folded)
    found += [(m.start(), m.group()) for m in _TERM.finditer(folded)]
    found += [
        (m.start(), m.group())
        for m in _VERB_STEM.finditer(folded)
        if m.group(1) not in _NOT_TOPIC_STEMS or _NOUN_BEFORE_PARTICLE.match(folded, m.end())
    ]
    terms = (term for _start, term in sorted(found))
    return list(dict.fromkeys(t for t in terms if len(t) >= 2 and t not in ENGLISH_STOP_WORDS))


def question_length(text: str) -> int:
    """Letters, kana, kanji and digits in ``text`` (punctuation and spaces do not count)."""
    return len(_WORD_CHARACTER.findall(fold(text)))


def is_short(text: str) -> bool:
    return question_length(text) <= SHORT_QUESTION_CHARS


def document_frequency(term: str, documents: Mapping[int, Sequence[str]]) -> int:
    """In how many documents ``term`` occurs; ``documents`` maps a document to its folded texts."""
    return sum(1 for texts in documents.values() if any(term in text for text in texts))


def is_generic(text: str, documents: Mapping[int, Sequence[str]], *, spellings: Sequence[str] = ()) -> bool:
    """True when ``text`` is short and none of its words points at one of ``documents``.

    ``documents`` maps each document retrieval considered to its folded texts
    (title, section and body of its candidate chunks). Generic: short, at most
    one content term, and that term occurs in at least
    ``min(GENERIC_TERM_DOCUMENTS, len(documents))`` of them; or only aspect
    words (:data:`FACETS`) with :data:`FACET_DOCUMENTS` documents or more in view,
    written by them or not. Any other term found in no document is not generic
    (it may name something no document covers). ``spellings`` are the question's
    glossary expansions: with a single document in view, an aspect asked in everyday
    words (「締め切り」) is found where it uses the aspect word the glossary gives for it (期限).
    """
    return is_short(text) and generic_terms(content_terms(text), documents, spellings=spellings)


def generic_terms(
    terms: Sequence[str], documents: Mapping[int, Sequence[str]], *, spellings: Sequence[str] = ()
) -> bool:
    """:func:`is_generic` for a short question's ``terms`` (:func:`content_terms`), already read."""
    facets_only = bool(terms) and all(is_facet(term) for term in terms)
    if len(terms) > 1 and not facets_only:
        return False
    if facets_only and len(documents) >= FACET_DOCUMENTS:
        # 「申請方法を教えて」, 「補助はいくら？」, 「連絡先」: aspects every policy has, which name no policy
        # whether one of the documents in view writes the word (its table's 連絡先 column) or none does
        # (「手続きは？」 where they write 手続, 「必要書類」 where they write 必要な書類); two aspects
        # (必要 + 書類) name a policy no more than one does.
        return True
    needed = min(GENERIC_TERM_DOCUMENTS, len(documents))
    other_facets = [fold(word) for word in spellings if is_facet(fold(word))] if facets_only else []
    return all(
        max(document_frequency(spelling, documents) for spelling in [term, *other_facets]) >= max(needed, 1)
        for term in terms
    )


# Words that name an aspect of a policy rather than a policy (「申請」「方法」「上限」「補助」):
# a question made of them alone names no document, however few documents use them.
FACETS = frozenset(
    "申請 方法 手続 手続き 期限 締切 締め切り 上限 下限 金額 費用 料金 手当 補助 支給 条件 対象 対象者 窓口 "
    "連絡先 問い合わせ 問合せ 場所 時間 日数 回数 期間 ルール 規則 規定 手順 流れ 必要 書類 理由 注意 注意点 "
    "基準 種類 範囲 提出 提出先 担当 担当者 承認 手順書 やり方 方法論 金 額 額面 単価 先 日程 日時".split()
)
# A facet question is asked back when at least this many candidate documents are in view (and one writes the facet).
FACET_DOCUMENTS = 2


# With the kanji it heads (問い合わせ先): one compound, judged by :func:`is_facet` as a whole.
_KANA_FACET = re.compile(
    "(?:"
    + "|".join(sorted((w for w in FACETS if re.search(f"[{HIRAGANA}]", w)), key=len, reverse=True))
    + f")[{KANJI}]*"
)


def is_facet(term: str) -> bool:
    """Whether ``term`` is made only of :data:`FACETS` words (「申請方法」 = 申請 + 方法)."""
    if not term:
        return True
    return any(term.startswith(word) and is_facet(term[len(word) :]) for word in FACETS)
