"""Everyday words and the terms rule books write for them: general Japanese, not any company's.

An employee asks in the words of daily speech (給料日, 残業代, ケガ, レシート, payday);
a rule book writes the administrative term (賃金の支払日, 時間外労働の割増賃金, 負傷,
領収書). Some of these pairs share neither characters, reading nor, for a small
encoder, a close vector, so nothing learned from one company's documents reaches them.

``ja.tsv`` and ``en.tsv`` list such pairs as general knowledge of the language:
they were written from a description of company life alone, without any corpus,
question set or answer at hand, and name no company, product or number. Each
line is ``everyday word<TAB>term, term, ...`` (the usual term first); a word with
several senses in company life (バイト: a side job, or a part-time worker) lists
each sense's terms, the senses apart by `` | ``, and the question's context decides.

The lists only propose: :func:`qa.vocabulary.vocabulary_matches` takes a term only
when the documents the asker may read use it and do not use the everyday word
themselves, so a term a company never writes costs nothing. Staff who find a
pair wrong for their company switch the lists off (``RAG_EVERYDAY_WORDS``) or
add their own wording in the glossary, which the review loop fills.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from ragportal.text import fold

_HERE = Path(__file__).resolve().parent


Senses = tuple[tuple[str, ...], ...]


@cache
def _pairs(language: str) -> tuple[tuple[str, Senses], ...]:
    """The list for ``language`` ("ja" or "en"): (everyday word folded, its senses' terms), longest word first."""
    pairs: dict[str, list[list[str]]] = {}
    for line in (_HERE / f"{language}.tsv").read_text("utf-8").splitlines():
        if not line.strip() or line.startswith("#") or "\t" not in line:
            continue
        word, listed = line.split("\t", 1)
        senses = pairs.setdefault(fold(word.strip()), [])
        for sense in listed.split("|"):
            terms = [t.strip() for t in sense.replace("、", ",").split(",") if t.strip()]
            if terms:
                senses.append(terms)
    return tuple(
        sorted(((w, tuple(tuple(t) for t in s)) for w, s in pairs.items() if w and s), key=lambda p: -len(p[0]))
    )


# A consonant before a final y (marry → married), and a short final syllable (plan → planned).
_CONSONANT_Y = re.compile(r"[^aeiou]y$")
_SHORT_SYLLABLE = re.compile(r"(?:^|[^aeiou])[aeiou]([b-df-hj-np-tvz])$")


def _inflected(word: str) -> str:
    """A pattern for an English ``word`` and its regular inflections: plural or third person, past, -ing.

    marry: marries, married, marrying; commute: commutes, commuted, commuting; work: works, worked,
    working; plan: planned. Irregular forms (paid, left) are not derived: the list writes them.
    """
    if _CONSONANT_Y.search(word):
        return re.escape(word[:-1]) + "(?:y|ies|ied|ying)"
    if word.endswith("e") and not word.endswith("ee"):
        return re.escape(word[:-1]) + "(?:e|es|ed|ing)"
    doubled = f"|{m.group(1)}(?:ed|ing)" if (m := _SHORT_SYLLABLE.search(word)) and len(word) > 2 else ""
    return re.escape(word) + f"(?:s|es|ed|ing{doubled})?"


@cache
def _english_patterns() -> tuple[re.Pattern[str], dict[str, re.Pattern[str]]]:
    """One pattern for every listed English word or phrase, each word of it inflected, and one per entry."""
    each = {word: re.compile(r"\s+".join(_inflected(w) for w in word.split())) for word, _ in _pairs("en")}
    alternatives = "|".join(f"(?:{pattern.pattern})" for pattern in each.values())
    return re.compile(rf"\b(?:{alternatives})\b"), each


def everyday_words(
    folded: str, *, english: bool, starts: set[int] | frozenset[int] = frozenset()
) -> Iterator[tuple[str, Senses, int]]:
    """The listed everyday words in ``folded`` (a question, folded): (word, its senses' terms, where it starts), longest first.

    English: whole words or phrases, each word in any of its regular inflections (:func:`_inflected`),
    given as the question writes them (working from home, for work from home). Japanese: a word starting where the
    analyser starts one (``starts``), whole or as the head of a compound (給料 in 給料日),
    never from inside a word (休み in 夏休み is not a day off in general). A word inside a
    longer one listed too is given as well (給料 inside 給料日): the caller decides.
    """
    if english:
        listed = dict(_pairs("en"))
        anywhere, each = _english_patterns()
        # As written in the question (working from home), under the entry it inflects (work from home).
        found = {m.group(): m.start() for m in reversed(list(anywhere.finditer(folded)))}
        for written in sorted(found, key=len, reverse=True):
            entry = next(word for word, pattern in each.items() if pattern.fullmatch(written))
            yield written, listed[entry], found[written]
        return
    for word, terms in _pairs("ja"):
        at = folded.find(word)
        while at >= 0 and at not in starts:
            at = folded.find(word, at + 1)
        if at >= 0:
            yield word, terms, at
