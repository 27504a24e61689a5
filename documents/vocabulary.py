"""A corpus's own vocabulary: the terms its documents use, with their readings, found by a morphological analyser.

Pure Python (no Django). The analyser is SudachiPy with its core dictionary
(``sudachidict_core``): split mode C keeps a document's compound terms whole
(経費精算, 年次有給休暇, 時間外手当), each word comes with its reading in katakana
(ケイヒセイサン) and a normalised spelling that unifies variants (締切, 〆切 and
締め切り are all 締め切り). Chosen over fugashi + unidic-lite, measured on this
machine over the 67 people-group pages of the GitLab handbook (674k characters):
Sudachi 3.4 s (200k characters/s), fugashi 5.0 s (135k/s); installed 198 MB vs
251 MB; unidic splits compounds into short units (経費 / 精算), which are the
character bigrams the keyword index already has.

- :func:`document_terms`: the terms of one document (nouns and noun compounds), counted.
- :func:`analyse`: the words of a question with reading and normalised form.
- :func:`katakana`: hiragana to katakana, the form readings are compared in.
- :func:`synonym_groups`: the dictionary's synonym groups of a word (朝ごはん and 朝食 share one).
- :func:`verb_nouns`: the nouns a text's verbs make (引っ越す → 引っ越し), which lists and groups key.
"""

from __future__ import annotations

import re
import unicodedata
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ragportal.text import HIRAGANA, KANJI, KATAKANA, MIDDLE_DOT, fold

# Sudachi refuses inputs over about 49 kB; a line longer than this is cut (bytes, UTF-8: 3 per character).
MAX_LINE_CHARS = 4000
# A compound longer than this many words is a phrase, not a term.
MAX_COMPOUND_WORDS = 3
MAX_TERM_CHARS = 24
# A word's characters: kana, kanji and the ・ that joins a compound (キーボード・マウス).
_JAPANESE_WORD = f"{HIRAGANA}{KATAKANA}{MIDDLE_DOT}{KANJI}"
_KANJI = re.compile(f"[{KANJI}]")
_WORDLIKE = re.compile(f"[{_JAPANESE_WORD}]|[a-z]{{3,}}")
_MARKDOWN_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+(.+)$", re.MULTILINE)
_VOICING = frozenset("\u3099\u309a")
_TERM = re.compile(f"[{_JAPANESE_WORD}a-z0-9]+")
# Each hiragana letter (ぁ–ゖ) has its katakana 0x60 above it.
_TO_KATAKANA = {code: code + 0x60 for code in range(0x3041, 0x3097)}
# Parts of speech that name a thing (Sudachi's first level, and second-level exclusions).
_NOUN = "名詞"
_NOT_A_TERM = frozenset({"数詞", "助動詞語幹"})
_SUFFIX = "接尾辞"
_PROPER = "固有名詞"
_PLACE = "地名"
# Words that inflect (わすれた, こわれたら): typed in hiragana, they still have a kanji spelling.
_INFLECTING = frozenset({"動詞", "形容詞"})
_HIRAGANA_WORD = re.compile(f"[{HIRAGANA}]+")
_VERB = "動詞"
# A verb of its own (引っ越す), not one that only helps another (している, してもらう).
_INDEPENDENT = "一般"
# A godan verb's continuative form ends in the i-row kana of its last letter (引っ越す → 引っ越し).
_I_ROW = dict(zip("うくぐすつぬぶむる", "いきぎしちにびみり"))

_local = threading.local()
_dictionary_lock = threading.Lock()
_dictionary: Any = None


@dataclass(frozen=True)
class Word:
    """One word of analysed text: as written (folded), its katakana reading, its normalised spelling, and whether it names a thing."""

    surface: str
    reading: str
    normalized: str
    noun: bool
    # A compound's shorter words (Sudachi's split mode B: 申請期限 → 申請, 期限); empty for a simple word.
    parts: tuple[Word, ...] = ()
    # A proper noun by the dictionary (a company, person or place name: ソニー, 山田, 大阪).
    proper: bool = False
    # A place name (大阪, アメリカ): a proper noun that says where, not whose.
    place: bool = False
    # Not in the analyser's dictionary (メルカリ): a guess at a word it has never seen.
    oov: bool = False
    # The dictionary's synonym groups the word belongs to (:func:`synonym_groups`), when asked for (:func:`analyse`).
    synonyms: tuple[int, ...] = ()

    @property
    def is_break(self) -> bool:
        return not self.surface


_BREAK = Word("", "", "", False)


@dataclass(frozen=True)
class TermInfo:
    """A term as the vocabulary keys it: its folded spelling, reading and normalised spelling."""

    text: str
    reading: str
    normalized: str


def _tokenizer() -> Any:
    """This thread's Sudachi tokenizer (split mode C); the dictionary is loaded once per process.

    Sudachi's tokenizers may not be shared between threads, so each thread has its own.
    """
    global _dictionary
    tokenizer = getattr(_local, "tokenizer", None)
    if tokenizer is None:
        with _dictionary_lock:
            if _dictionary is None:
                from sudachipy import Dictionary

                _dictionary = Dictionary(dict="core")
        tokenizer = _local.tokenizer = _dictionary.tokenizer(mode="C")
    return tokenizer


def katakana(text: str) -> str:
    """``text`` with hiragana turned into katakana (けいひ → ケイヒ); everything else unchanged."""
    return text.translate(_TO_KATAKANA)


def unvoiced(reading: str) -> str:
    """``reading`` without voicing marks after its first kana (バ → ハ): the key readings are compared by.

    A compound's reading is its words' readings joined (立替払い: タテカエハライ), while
    people type it as said (たてかえばらい): voicing at a seam (rendaku). The first
    kana is never voiced so, and keeps its mark (ジタイ 事態 is not シタイ).
    """
    rest = "".join(ch for ch in unicodedata.normalize("NFD", reading[1:]) if ch not in _VOICING)
    return reading[:1] + unicodedata.normalize("NFC", rest)


def boundaries(text: str) -> set[int]:
    """The offsets in ``text`` (folded, one line, no spaces) where the analyser puts a word boundary, 0 and the end included."""
    cuts, at = {0}, 0
    for m in _tokenizer().tokenize(text[:MAX_LINE_CHARS]):
        at += len(m.surface())
        cuts.add(at)
    return cuts


# Parts of speech that carry grammar, not a word of their own: particles, auxiliaries, suffixes.
_GRAMMAR = frozenset({"助詞", "助動詞", "接尾辞"})
# Verbs and adjectives that may only help another word (する, いる, おく, いい: 「どうしておけば」,
# 「しそうな」), and the stems of auxiliaries (そう, よう): grammar too when written in kana.
_HELPERS = frozenset({"動詞", "形容詞"})
_HELPING = "非自立可能"
_AUXILIARY_STEM = "助動詞語幹"


def _is_grammar(pos: Sequence[str], surface: str) -> bool:
    """Whether a word of these parts of speech is grammar rather than a word of its own (see :func:`grammar_spans`)."""
    if pos[0] in _GRAMMAR or pos[1] == _AUXILIARY_STEM:
        return True
    return pos[0] in _HELPERS and pos[1] == _HELPING and not has_kanji(surface)


# Sudachi's subclass of nouns that also stand as adverbs (今年, 来月, 平日), and the characters that
# make such a noun a time counted from now (今, 来, 昨, 去, 先, 翌, 当, 本, 毎, 前).
_ADVERBIAL = "副詞可能"
_RELATIVE_TIME = frozenset("今来昨去先翌当本毎前")


def says_when(word: str) -> bool:
    """Whether ``word`` is one noun of time counted from now (今年, 来月, 本日, 先週): it says when, not about what.

    「今年は有給何日もらえる？」 is about 有給; 今年 before は is no subject to look for in the
    documents. 平日 and 休日 are of the same subclass but name days, not a time relative to now.
    """
    morphemes = list(_tokenizer().tokenize(word))
    return len(morphemes) == 1 and morphemes[0].part_of_speech()[2] == _ADVERBIAL and word[:1] in _RELATIVE_TIME


def inflected_starts(text: str) -> set[int]:
    """The offsets in ``text`` (folded, one line) where a verb or adjective written with kanji starts.

    Typed casually, a particle is often left out and a noun runs into the verb after it:
    「会社辞めたい」 is 会社 (を) 辞めたい, and 辞 starts a verb, not part of a compound 会社辞.
    """
    starts, at = set(), 0
    for m in _tokenizer().tokenize(text[:MAX_LINE_CHARS]):
        if m.part_of_speech()[0] in _HELPERS and has_kanji(m.surface()):
            starts.add(at)
        at += len(m.surface())
    return starts


def grammar_spans(text: str) -> tuple[set[int], set[int], set[int]]:
    """Where ``text`` (folded, one line) has its words, read in context by the analyser.

    Returns the offsets where a word starts that is not grammar, where any word
    ends, and where a word of grammar (particle, auxiliary, suffix; a helping verb
    or adjective written in kana, an auxiliary's stem) starts. In
    「連れていきたい」 the analyser reads 連れ|て|いき|たい: 連れ and いき start words,
    て (a particle) and たい (an auxiliary) are grammar; in 「どうしておけば」, し (する helping
    どう) is grammar, so どうし is no word to read as 同時.
    """
    starts: set[int] = set()
    ends: set[int] = set()
    grammar: set[int] = set()
    at = 0
    for m in _tokenizer().tokenize(text[:MAX_LINE_CHARS]):
        (grammar if _is_grammar(m.part_of_speech(), m.surface()) else starts).add(at)
        at += len(m.surface())
        ends.add(at)
    return starts, ends, grammar


def analyse(text: str, *, synonyms: bool = False) -> list[Word]:
    """The words of ``text`` in order (folded: NFKC, lower case), each with reading and normalised spelling.

    Spaces are left out. Symbols, and line ends, stand as words that are not
    nouns (surface ``""`` for a line end), so a compound never runs across them.
    Text is analysed line by line; a line longer than :data:`MAX_LINE_CHARS` is cut there.
    ``synonyms``: give each noun its synonym groups (a question's words; a document's are not
    looked up, which would slow indexing by a tenth).
    """
    words: list[Word] = []
    tokenizer = _tokenizer()
    for line in fold(text).splitlines():
        if not line.strip():
            continue
        if words:
            words.append(_BREAK)
        for m in tokenizer.tokenize(line[:MAX_LINE_CHARS]):
            surface = m.surface()
            if not surface.strip():
                continue
            if not _WORDLIKE.search(surface):
                words.append(_BREAK)
                continue
            word = _word(m, synonyms=synonyms)
            if word.noun:
                parts = tuple(_word(part) for part in m.split(_split_modes().B)) if len(surface) > 2 else ()
                word = replace(word, parts=parts if len(parts) > 1 else ())
            words.append(word)
    return words


def _word(m: Any, *, synonyms: bool = False) -> Word:
    """A Sudachi morpheme as a :class:`Word`."""
    pos = m.part_of_speech()
    noun = (pos[0] == _NOUN and pos[1] not in _NOT_A_TERM) or (pos[0] == _SUFFIX and pos[1] == _NOUN)
    proper = noun and pos[1] == _PROPER
    place = proper and pos[2] == _PLACE
    return Word(
        m.surface(),
        katakana(m.reading_form()),
        fold(m.normalized_form()),
        noun,
        proper=proper,
        place=place,
        oov=m.is_oov(),
        synonyms=tuple(m.synonym_group_ids()) if synonyms and noun else (),
    )


def synonym_groups(text: str) -> tuple[int, ...]:
    """The synonym groups of ``text`` when the analyser reads it as one word (朝食, 上長), else none.

    Sudachi's core dictionary files each word under the groups of its synonym
    dictionary, general Japanese compiled by the dictionary's makers (朝ごはん and
    朝食 share one, 上司 and 上長 another, ログイン and サインイン a third): words
    sharing a group say the same thing in other words. A compound of several
    words (経費精算) belongs to no group.
    """
    words = _tokenizer().tokenize(text[:MAX_LINE_CHARS])
    return tuple(words[0].synonym_group_ids()) if len(words) == 1 else ()


def noun_form(verb: str, conjugation: str) -> str:
    """The noun a verb's continuative form (連用形) makes, by its conjugation class; "" for another class.

    引っ越す (五段-サ行) → 引っ越し, 立て替える (下一段-ア行) → 立て替え: Japanese names an act by this form,
    and a rule book writes the noun where a question says the verb (「引っ越すとき」, 「引っ越しの届」).
    """
    if conjugation.startswith("五段") and verb[-1:] in _I_ROW:
        return verb[:-1] + _I_ROW[verb[-1]]
    if conjugation.startswith(("上一段", "下一段")) and verb.endswith("る") and len(verb) > 1:
        return verb[:-1]
    return ""


def verb_nouns(text: str) -> list[tuple[str, Word]]:
    """Each verb of ``text`` (as typed, folded) with the noun its continuative form makes, where the dictionary has that noun.

    「来月引っ越すんだけど」 → [("引っ越す", 引っ越し)], the noun with its synonym groups. A verb typed
    in hiragana counts only when its kanji spelling reads as typed (ひっこす → 引っ越す); verbs that
    help another (いる, もらう) and nouns the dictionary does not know (辞め) are left out.
    """
    found: list[tuple[str, Word]] = []
    tokenizer = _tokenizer()
    for line in fold(text).splitlines():
        for m in tokenizer.tokenize(line[:MAX_LINE_CHARS]):
            pos = m.part_of_speech()
            if pos[0] != _VERB or pos[1] != _INDEPENDENT:
                continue
            normalized = fold(m.normalized_form())
            if _HIRAGANA_WORD.fullmatch(m.surface()) and (
                not has_kanji(normalized) or _reading(normalized) != katakana(m.reading_form())
            ):
                continue
            form = noun_form(normalized, pos[4])
            nouns = list(tokenizer.tokenize(form)) if form else []
            if len(nouns) == 1 and nouns[0].part_of_speech()[0] == _NOUN:
                found.append((m.surface(), _word(nouns[0], synonyms=True)))
    return found


def kanji_spellings(text: str, *, min_chars: int) -> dict[str, str]:
    """The verbs and adjectives of ``text`` typed in hiragana, each with the dictionary's kanji spelling of the same form.

    「パスワードわすれた」 → {"わすれ": "忘れ"}, 「しめきりは」 → {"しめきり": "締め切り"}:
    the normalised form's kanji stem (忘れる) with the ending as typed. Kept only
    when that spelling reads exactly as typed, so a form the dictionary
    normalises to another word (もらえる → 貰う) is left alone. Words shorter
    than ``min_chars`` are skipped.
    """
    found: dict[str, str] = {}
    tokenizer = _tokenizer()
    for line in fold(text).splitlines():
        for m in tokenizer.tokenize(line[:MAX_LINE_CHARS]):
            surface = m.surface()
            if len(surface) < min_chars or m.part_of_speech()[0] not in _INFLECTING:
                continue
            if not _HIRAGANA_WORD.fullmatch(surface):
                continue
            written = _kanji_stem(surface, fold(m.dictionary_form()), fold(m.normalized_form()))
            if written and _reading(written) == katakana(surface):
                found[surface] = written
    return found


def _reading(text: str) -> str:
    """How the analyser reads ``text``, in katakana (忘れ → ワスレ)."""
    return "".join(katakana(m.reading_form()) for m in _tokenizer().tokenize(text))


def _kanji_stem(surface: str, dictionary: str, normalized: str) -> str:
    """``surface`` (a form of ``dictionary``, in kana) spelled with ``normalized``'s kanji: わすれ, わすれる, 忘れる → 忘れ."""
    shared = 0
    while shared < min(len(dictionary), len(normalized)) and dictionary[-1 - shared] == normalized[-1 - shared]:
        shared += 1
    kana, kanji = dictionary[: len(dictionary) - shared], normalized[: len(normalized) - shared]
    if not shared or not kana or not has_kanji(kanji) or not surface.startswith(kana):
        return ""
    return kanji + surface[len(kana) :]


_KATAKANA_ONLY = re.compile(f"[{KATAKANA}]+")


def is_katakana(text: str) -> bool:
    """Whether ``text`` is written in katakana alone (ランチ; not 社員ランチ, not ランチ代)."""
    return bool(_KATAKANA_ONLY.fullmatch(text))


def katakana_word_in(word: str, text: str) -> bool:
    """Whether katakana ``word`` is written in ``text`` as a word: alone, or as a part of a longer katakana
    word as the analyser cuts it into words (ポモドーロ|テクニック) and splits them finest (ノー|ネクタイ,
    ヘルプ|デスク). クランチ holds no ランチ and スクリーン no クリーン, though their letters do."""
    for found in re.finditer(re.escape(word), text):
        start, end = found.start(), found.end()
        while start and is_katakana(text[start - 1]):
            start -= 1
        while end < len(text) and is_katakana(text[end]):
            end += 1
        if (start, end) == found.span():
            return True
        cuts, at = {0}, 0
        for m in _tokenizer().tokenize(text[start:end]):
            # A word the analyser cannot split further (テクニック) is given back as no parts: it is one.
            for part in m.split(_split_modes().A) or [m]:
                at += len(part.surface())
                cuts.add(at)
        if found.start() - start in cuts and found.end() - start in cuts:
            return True
    return False


def _split_modes() -> Any:
    """SudachiPy's split modes (A finest, B middle), imported when a word is first split."""
    from sudachipy import SplitMode

    return SplitMode


def terms_of(words: list[Word]) -> list[TermInfo]:
    """The terms among ``words``: each noun and the nouns it is made of, and each run of 2 to :data:`MAX_COMPOUND_WORDS` nouns written together.

    A term is at least two characters, and a kanji or kana term or a Latin
    word of three letters or more (VPN, workday); numbers and symbols are not terms.
    """
    found: list[TermInfo] = []
    run: list[Word] = []
    for word in [*words, None]:
        if word is not None and word.noun:
            run.append(word)
            continue
        found += [_term([w]) for w in run if w.surface[0] != "ー"]
        found += [_term([part]) for w in run for part in w.parts if part.noun]
        for size in range(2, MAX_COMPOUND_WORDS + 1):
            found += [_term(run[i : i + size]) for i in range(len(run) - size + 1)]
        run = []
    return [t for t in found if _is_term(t.text)]


def standalone_terms(words: list[Word]) -> set[TermInfo]:
    """The terms among ``words`` written as a word of their own: each whole run of nouns (:func:`terms_of`'s longest).

    A term found only inside longer compounds is a piece of them, not a word the
    documents use: ナイト of ナイトタイム and デートナイト, クレジット of クレジットカード.
    """
    found: set[TermInfo] = set()
    run: list[Word] = []
    for word in [*words, None]:
        if word is not None and word.noun:
            run.append(word)
            continue
        if run and len(run) <= MAX_COMPOUND_WORDS and run[0].surface[0] != "ー":
            term = _term(run)
            if _is_term(term.text):
                found.add(term)
        run = []
    return found


def _term(words: list[Word]) -> TermInfo:
    joiner = " " if all(w.surface.isascii() for w in words) else ""
    return TermInfo(
        text=joiner.join(w.surface for w in words),
        reading="".join(w.reading for w in words),
        normalized=joiner.join(w.normalized for w in words),
    )


def _is_term(text: str) -> bool:
    if not 2 <= len(text) <= MAX_TERM_CHARS:
        return False
    if text.isascii():
        return bool(re.fullmatch(r"[a-z][a-z0-9\- ]{2,}", text))
    return bool(_TERM.fullmatch(text))


@dataclass(frozen=True)
class DocumentTerms:
    """One document's terms: how often each occurs, and which occur in its title or headings."""

    counts: Counter[TermInfo]
    in_headings: frozenset[TermInfo]
    # Those written somewhere as a word of their own, not only inside a compound (:func:`standalone_terms`).
    standalone: frozenset[TermInfo] = frozenset()


def document_terms(text: str, *, headings: Iterable[str] = ()) -> DocumentTerms:
    """The terms of a document's ``text`` and ``headings`` (title, section paths), counted.

    Markdown heading lines of ``text`` (``## 申請期限``) are headings too. A term
    found only in ``headings`` counts once.
    """
    words = analyse(text)
    counts: Counter[TermInfo] = Counter(terms_of(words))
    standalone = standalone_terms(words)
    heading_terms: set[TermInfo] = set()
    for heading in dict.fromkeys([*headings, *_MARKDOWN_HEADING.findall(text)]):
        heading_words = analyse(heading)
        heading_terms.update(terms_of(heading_words))
        standalone |= standalone_terms(heading_words)
    for term in heading_terms:
        counts[term] = max(counts[term], 1)
    return DocumentTerms(counts=counts, in_headings=frozenset(heading_terms), standalone=frozenset(standalone))


def has_kanji(text: str) -> bool:
    return bool(_KANJI.search(text))
