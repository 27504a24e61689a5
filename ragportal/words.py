"""Word lists every part of the portal shares. Pure Python: no Django, no app imports.

- :data:`KANJI_INTERROGATIVES`, :data:`INTERROGATIVES` — the Japanese words that ask (何, 誰, いつ, どこ …);
- :data:`KANA_COUNTED_INTERROGATIVES` — 何 with a counter typed in kana (なんにち → 何日);
- :data:`QUESTION_ENDINGS`, :data:`REQUESTS` — how a Japanese sentence asks without naming content;
- :data:`ENGLISH_QUESTION_WORDS` and :data:`ENGLISH_STOP_WORDS` — the English words that carry no content.

They are grammar, not vocabulary of any corpus: a rule that needs one of them
imports it from here instead of keeping its own copy.
"""

from __future__ import annotations

import re

# Interrogatives written in kanji: 何 (with a counter: 何日, 何時間) and 誰.
KANJI_INTERROGATIVES: tuple[str, ...] = ("何", "誰")
# Every Japanese interrogative: the kanji ones, then those written in kana.
INTERROGATIVES: tuple[str, ...] = (
    *KANJI_INTERROGATIVES,
    "だれ",
    "どこ",
    "いつ",
    "いくら",
    "いくつ",
    "どう",
    "どの",
    "どれ",
    "どんな",
)
# 何 with a counter, as typed in kana (なんにち), and as written (何日): the reading is the
# counter's everyday one. Ambiguous readings are left out (なんだい: 何台 or a casual "what is it").
KANA_COUNTED_INTERROGATIVES: dict[str, str] = {
    "なんじかん": "何時間",
    "なんかげつ": "何か月",
    "なんしゅうかん": "何週間",
    "なんにち": "何日",
    "なんかい": "何回",
    "なんねん": "何年",
    "なんぷん": "何分",
    "なんにん": "何人",
    "なんめい": "何名",
    "なんさい": "何歳",
    "なんまい": "何枚",
    "なんけん": "何件",
    "なんぱく": "何泊",
    "なんじ": "何時",
    "なにご": "何語",
}
# Polite endings that make a sentence a question (…ですか, …ますか, …でしょうか).
QUESTION_ENDINGS: tuple[str, ...] = ("ですか", "ますか", "でしょうか")
# Requests that ask for something without naming it (…を教えてください).
REQUESTS: tuple[str, ...] = ("教えて",)

ENGLISH_QUESTION_WORDS = frozenset("how what when where which who whom whose why".split())
# Articles, pronouns, auxiliaries, prepositions, conjunctions and the question words:
# the English words that carry no content of their own.
ENGLISH_STOP_WORDS = ENGLISH_QUESTION_WORDS | frozenset(
    "a an and any are as at be been by can could did do does for from get has have i if in is it its many may "
    "me much must my no not of on or our please should so than that the their there these they this those to "
    "was we were will with would yes you your".split()
)


def alternation(words: tuple[str, ...]) -> str:
    """A regular-expression alternation matching any of ``words`` (longest first, escaped)."""
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
