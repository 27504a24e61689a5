"""Answer types: what a question asks for, and whether a text carries it. Pure Python, no Django.

The shared vocabulary of questions and answers, neutral between the one that
chooses an answer and the one that checks it:

- question side: :func:`asked_types` (a date for いつ/期限, a quantity for
  何日/いくら, a contact for 誰/どこ, steps for どうすれば, a cost, a number, a
  name), :func:`asked_units` (per quantity asked, the units that answer it) and
  :func:`question_parts` (the questions a two-part question asks);
- text side: :func:`carries` and :func:`carries_units`, whether a text states a
  fact of that type or a quantity in those units.

What a question asks is read once per answer, by ``qa.question.analyse_question``.
The extractive provider uses these to prefer sentences that state what is asked;
the verifier's own judgement of an answer (key terms, meaning, thresholds, what
fails) is ``verification.answer_fit``, which no provider imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragportal.text import KANJI_IDEOGRAPHS, KATAKANA, MIDDLE_DOT, fold, is_english
from ragportal.words import INTERROGATIVES, QUESTION_ENDINGS, REQUESTS, alternation
from verification.quantities import CALENDAR_YEAR, MONEY_UNITS, extract_quantities

DATE = "date"
QUANTITY = "quantity"
CONTACT = "contact"
NUMBER = "number"
# The two kinds of number a question may name: a telephone or extension number, an e-mail address.
PHONE = "phone"
EMAIL = "email"
STEPS = "steps"
COST = "cost"
NAME = "name"
PAY = "pay"

# "e-mail" as a noun ("the helpdesk's e-mail"), not the verb ("if I email a file to…").
_EMAIL_NOUN = r"\be-?mail\b(?!\s+(?:a|an|the|my|your|his|her|their|our|it|me|him|them|us|someone|somebody|this|that|these|those)\b)"

# What a question asks for, on NFKC + lower-cased text. Order matters only for reading.
_ASKS: dict[str, re.Pattern[str]] = {
    DATE: re.compile(
        r"いつ|期限|締め?切|〆切|何日まで|何日前|なんにち(まで|まえ)|何曜日|何月|どの(時期|月|曜日|タイミング)|"
        r"\bwhen\b|\bdeadline\b|\bby when\b|\bdue\b|\b(what|which) (date|day|month|period)\b|\bhow soon\b"
    ),
    QUANTITY: re.compile(
        r"何(日|時間|回|年|ヶ月|か月|カ月|円|人|%|割|泊|枚|個|件|名|分|歳|時|週|万|倍|度)|いくら|いくつ|"
        r"なん(にち|じ|かい|ねん|かげつ|にん|めい|ぷん|さい|パーセント|わり)|"
        r"どのくらい|どれくらい|どれだけ|上限|金額|\bhow (many|much|long|often|old)\b|\blimit\b|\bmaximum\b"
    ),
    CONTACT: re.compile(r"誰|だれ|どこ|連絡先|窓口|問い?合わせ|担当|\bwho\b|\bwhere\b|\bcontact\b|\bwhom\b"),
    NUMBER: re.compile(rf"電話番号|内線|番号|アドレス|\bphone\b|\bnumber\b|{_EMAIL_NOUN}|\baddress\b|\burl\b"),
    STEPS: re.compile(
        r"どうすれば|どうしたら|どうやって|どのように|手順|方法|やり方|手続|申請するには|\bhow (do|to|can|should)\b|"
        r"\bwhat should\b|\bsteps?\b|\bprocedure\b"
    ),
    # Whether something costs money: 「なくしたらお金はかかる？」, 「再発行に手数料は必要？」, 「有料？」.
    COST: re.compile(
        r"(お金|費用|料金|手数料|代金)(は|が|って|も)?(かか|要る|いる|必要|取られ)|有料|無料|"
        r"\b(cost|costs|fee|fees|charge|charged)\b"
    ),
    # Whether time away is paid: 「看病で休むとき、給料は出るの？」, 「投票に行く時間って給料出る？」, 「有給扱い？」.
    PAY: re.compile(
        r"(給料|給与|賃金)(は|って|が|も)?(出る|出ます|出ない|でる|でます|もらえ|支払われ|払われ|減)|"
        r"[有無]給(なの|です|扱い|か|[?？])"
    ),
    # What something is called: 「アプリの名前は？」, 「名称を教えて」, 「何というシステム？」 (not 「名前は出したくない」).
    # Which one of a kind: 「VPN はどれ？」, 「どのツールを使う？」 (not どれくらい, どのように, nor どの時期: a time).
    NAME: re.compile(
        r"(名前|名称)(は|って|を)?(何|なに|なん|教え|知り|[?？]|$)|何という|なんという|何て(いう|言う)|"
        r"どれ(?!くらい|ぐらい|だけ|ほど)|どっち|どの(?!くらい|ぐらい|ように|よう|程度|位|時期|月|曜日|タイミング)|"
        r"\b(what is|what's) the name\b|\bcalled\b|^which\b"
    ),
}

# What carries each answer type in a (Japanese) answer, on NFKC + lower-cased text.
_DEADLINE_WORDS = re.compile(r"以内|まで|までに|前まで|日前|営業日|月末|翌月|毎月|期限|締め?切|曜日|当日|即日|速やかに")
_CONTACT_WORDS = re.compile(
    r"上長|上司|部長|課長|所属長|担当|窓口|総務|人事|経理|情報システム|ヘルプデスク|サポート|内線|メール|@|電話|"
    r"事務局|センター|受付|デスク|部門|[部課室]|システム|ポータル|サイト|フォーム|ワークフロー|"
    # Where to go by the name the documents quote it by (「勤怠くん」から, 「HelpLab」で).
    r"「[^」]{2,}」\s*(?:から|で|に|へ|の)"
)
# A telephone or extension number (「内線: 2300」, a table's 「| 内線 | 2300 |」), an e-mail address, a URL or host name.
# Telephone numbers as written in Japan and abroad: 03-1234-5678, 03(1234)5678, (03) 1234-5678, (215) 689-3885,
# +81-3-1234-5678, +1 215 942 8226, +31-(0)70-8888 500.
_PHONE_VALUE = (
    r"\d{2,4}-\d{2,4}-\d{3,4}|\d{2,4}\(\d{2,4}\)\d{3,4}|\(\d{2,5}\)\s?\d{2,4}-\d{3,4}|"
    r"\+\d{1,3}[-\s]?(?:\(0\)[-\s]?)?\d{1,4}(?:[-\s]\d{2,4}){1,3}|内線[:：\s|]*\d{3,}"
)
_EMAIL_VALUE = r"[\w.+-]+@[\w-]+\.[\w.]+"
_NUMBER_VALUE = re.compile(rf"{_PHONE_VALUE}|{_EMAIL_VALUE}|https?://|[a-z0-9-]+\.[a-z0-9-]+\.[a-z]{{2,}}")
# A number of one kind: what a question naming that kind asks for (「内線は？」 is not answered by an e-mail address).
_KIND_VALUE = {PHONE: re.compile(_PHONE_VALUE), EMAIL: re.compile(_EMAIL_VALUE)}
_ASKS_KIND = {
    PHONE: re.compile(r"電話|内線|\bphone\b|\bextension\b|\btel\b"),
    EMAIL: re.compile(rf"メール|{_EMAIL_NOUN}"),
}
# A price or a statement of who pays: 「1,000円を差し引きます」, 「全額を補助します」, 「無料です」.
_COST_WORDS = re.compile(r"無料|有料|全額|補助|負担|支給|差し引|実費|不要|かかりません")
# Whether pay goes on: 「3日までは有給とし、残りは無給とする」, 「通常の賃金を支給する」, 「給与は支給しない」.
_PAY_WORDS = re.compile(r"有給|無給|有償|無償|(賃金|給与|給料)(を|は)?(支給|支払|減額|控除)|通常の賃金|\b(un)?paid\b")
# A name as the documents write one: quoted (「AOBA Connect」), or a Latin word of four letters or more;
# not a quoted document title pointing elsewhere (「社内Wi-Fi・VPN利用ガイド」(network_vpn.md)).
_NAME_VALUE = re.compile(r"[「『][^」』]+[」』](?!\s*\([^)]*\.[a-z]+\))|\b[a-z][a-z0-9]{3,}\b(?![^(]*\.[a-z]+\))")
_STEP_WORDS = re.compile(
    r"申請|提出|連絡|入力|ログイン|アクセス|ください|行って|行う|手順|選択|クリック|登録|報告|相談|届け|"
    r"利用して|使って|経由|から行|[①-⑳]|(^|\n)\s*\d+[.)]\s"
)


# A question asking for a recommendation (「おすすめの…は？」, "can you recommend…"), and a text that makes one:
# a rule book states rules; only a document that recommends something (推奨, お勧めします) answers such a question.
_RECOMMENDATION = r"おすすめ|お勧め|お薦め|オススメ|\brecommend"
_ASKS_RECOMMENDATION = re.compile(_RECOMMENDATION)
_RECOMMENDS = re.compile(_RECOMMENDATION + r"|推奨|勧め|勧奨|\bsuggest")


def asks_recommendation(question: str) -> bool:
    """Whether ``question`` asks what is recommended (「駅前でおすすめのランチは？」)."""
    return bool(_ASKS_RECOMMENDATION.search(fold(question)))


def recommends(text: str) -> bool:
    """Whether ``text`` recommends something (「…の利用を推奨します」, 「…をお勧めします」)."""
    return bool(_RECOMMENDS.search(fold(text)))


# English names a count's unit after what is counted: "how many paid leave days", "the number of overtime
# hours". The words between are what is counted, never a verb or a function word: "how many times a year"
# counts times, and "how many can I take per month" names no unit.
_EN_BETWEEN = (
    r"(?!(?:times|per|a|an|each|every|in|of|for|the|do|does|did|can|could|should|must|will|would|i|we|you|is|are)\b)"
)
_EN_COUNT = rf"\b(?:how many|number of)\s+(?:{_EN_BETWEEN}\S+\s+){{0,3}}"

# A length of time counted in days, weeks or months, which a rule may state in any of them: 「退職日の 1 週間前まで」
# and 「1 か月前までに申し出る」 answer 「何日前まで？」, 「42 日前から」 answers 「何週間前から？」 (calendar knowledge).
_LENGTH_OF_TIME = frozenset({"day", "business_day", "week", "month"})

# Units a quantity question asks for (canonical units of verification.quantities), in question order.
# 何時間 before 何時; 営業時間 and 何時から ask for clock times.
_ASKED_UNITS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(rf"何時間|なんじかん|{_EN_COUNT}hours?\b"), frozenset({"hour", "minute"})),
    (
        re.compile(
            r"何時|なんじ|営業時間|時間帯|受付時間|\bwhat time\b|\b(opening|business|lunch|office|service|core) hours\b"
        ),
        frozenset({"clock"}),
    ),
    (re.compile(r"何歳|なんさい|\bwhat age\b|\bhow old\b"), frozenset({"age"})),
    # A count of days or months from or within an event (「何日前までに」, 「何か月以内」, 「何日間」) is a length of
    # time (below); a day of the month (「締め日は何日？」), a count of business days and a plain count of months
    # (「期間は何か月？」) keep their own unit.
    (
        re.compile(
            r"(?:何日|なんにち|何ヶ月|何か月|何カ月|なんかげつ)(?=前|まえ|後|間|かん|以内|いない|以上|くらい|ぐらい|ほど|程度)"
        ),
        _LENGTH_OF_TIME,
    ),
    (
        re.compile(rf"何営業日|何日|なんにち|{_EN_COUNT}days?\b"),
        frozenset({"day", "business_day"}),
    ),
    # A day of the month is a calendar day: 「3営業日前」 counts days and names none.
    (re.compile(r"\b(what|which) day of the month\b"), frozenset({"day"})),
    (re.compile(rf"何ヶ月|何か月|何カ月|なんかげつ|{_EN_COUNT}months?\b"), frozenset({"month"})),
    # 「何年に」, 「何年度」 and "which year" ask for a year of the calendar (2024年); other 何年 count years.
    (re.compile(r"何年(?:に|度)|なんねん(?:に|ど)|\b(what|which) year\b"), frozenset({CALENDAR_YEAR})),
    (re.compile(rf"何年|なんねん|{_EN_COUNT}years?\b"), frozenset({"year"})),
    (re.compile(r"何回|なんかい|\bhow (many times|often)\b"), frozenset({"times"})),
    (re.compile(r"いくら|何円|金額|\bhow much\b"), MONEY_UNITS),
    (
        re.compile(
            r"何%|何パーセント|何割|なんパーセント|なんわり|割合|比率|\bwhat (percent|percentage|share|proportion)\b"
        ),
        frozenset({"percent"}),
    ),
    (
        re.compile(rf"何人|何名|なんにん|なんめい|{_EN_COUNT}(people|persons|employees|members|staff)\b"),
        frozenset({"person"}),
    ),
    (re.compile(r"何分|なんぷん"), frozenset({"minute"})),
    # A count of weeks is only ever a length of time.
    (re.compile(rf"何週|なんしゅう|{_EN_COUNT}weeks?\b"), _LENGTH_OF_TIME),
    (re.compile(rf"何泊|{_EN_COUNT}nights?\b"), frozenset({"night"})),
)
# "How long…?" asks for a length of time when nothing more precise is asked ("how many days" is).
_EN_HOW_LONG = re.compile(r"\bhow long\b")
_DURATION_UNITS = frozenset({"minute", "hour", "day", "business_day", "week", "month", "year"})


# Counters the quantity parser has no unit for: 「何桁」 is answered by a number followed by 桁.
_ASKED_COUNTER = re.compile(r"何(桁|文字|台|枚|個|件|冊|席|階|部屋|社|種類|ページ|キロ|km)")
# The English for 何文字 / 何桁, and a password's length, which is counted in characters (a PIN's in digits).
# The question may reach here with its known words already in Japanese ("the minimum パスワード length").
_SECRET = r"(?:\b(?:password|passcode|pin)\b|パスワード|暗証番号)"
_EN_COUNTER = re.compile(
    rf"{_EN_COUNT}(?P<chars>characters?)\b|{_EN_COUNT}(?P<digits>digits?)\b|"
    rf"{_SECRET}(?:'s)?\s*length\b|\blength of (?:the |a |my |your )?{_SECRET}|"
    rf"\bhow long (?:is|are|must|should|can|does|do) (?:a |the |my |your )?{_SECRET}"
)
_COUNTER_SPELLINGS = {"キロ": ("キロ", "km"), "km": ("km", "キロ")}
COUNTER_PREFIX = "counter:"


def asked_units(question: str) -> list[frozenset[str]]:
    """Per quantity the question asks for, the units that answer it (「週何日…月いくら」 → days, then yen)."""
    norm = fold(question)
    found: list[tuple[int, frozenset[str]]] = []
    taken: list[tuple[int, int]] = []
    for match in _ASKED_COUNTER.finditer(norm):
        taken.append((match.start(), match.end()))
        found.append((match.start(), frozenset({COUNTER_PREFIX + match.group(1)})))
    for match in _EN_COUNTER.finditer(norm):
        counters = ("文字",) if match.group("chars") else ("桁",) if match.group("digits") else ("文字", "桁")
        taken.append((match.start(), match.end()))
        found.append((match.start(), frozenset(COUNTER_PREFIX + c for c in counters)))
    for pattern, units in _ASKED_UNITS:
        for match in pattern.finditer(norm):
            if any(a < match.end() and match.start() < b for a, b in taken):
                continue
            taken.append((match.start(), match.end()))
            found.append((match.start(), units))
    if not found and (how_long := _EN_HOW_LONG.search(norm)):
        found.append((how_long.start(), _DURATION_UNITS))
    return [units for _start, units in sorted(found, key=lambda item: item[0])]


# What a rate is counted per (「1泊あたり」, 「per night」): the counter, and the English words for it.
_RATE_COUNTERS = {
    "泊": ("night",),
    "日": ("day",),
    "人": ("person", "head"),
    "回": ("time", "visit", "trip"),
    "時間": ("hour",),
    "週": ("week",),
    "月": ("month",),
    "年": ("year",),
    "食": ("meal",),
    "件": ("case", "item", "transaction"),
}
_RATE_WORDS = {word: counter for counter, words in _RATE_COUNTERS.items() for word in words}
_COUNTER_ALTERNATION = "|".join(map(re.escape, sorted(_RATE_COUNTERS, key=len, reverse=True)))
_PER = r"(?:あたり|当たり|につき|ごと)"
# A month is counted with a counter between the number and 月 (「1か月あたり」, 「1ヶ月ごと」).
_MONTH_COUNTER = r"(?:[かヶカヵケ]\s*)?"
_ASKED_RATE = re.compile(rf"1\s*{_MONTH_COUNTER}({_COUNTER_ALTERNATION}){_PER}|\bper ([a-z]+?)s?\b")
# A period a quantity is counted in, as everyday Japanese asks and states it without あたり:
# 「年に何回」, 「月いくら」, 「週に何日」, 「1日何時間」, 「年間いくら」 and 「年6回」, 「月50ドル」, 「週3日」.
_PERIODS = ("年", "月", "週", "日")
# In kana as typed (つき is left out: 「1日につきいくら」 is per day, not per month).
_PERIOD_READINGS = {"ねん": "年", "しゅう": "週", "いちにち": "日"}
_PERIOD = "|".join((*_PERIODS, *_PERIOD_READINGS))
# Not a period when a number or a deictic word comes first: 2024年5月 is a date, 今年 and 翌月 are one year or month.
_NOT_A_PERIOD = re.compile(r"[\d.,今昨来前翌先当同本半]")
_PERIOD_ASKED = re.compile(rf"(?:毎|1\s*)?({_PERIOD})(?:に|間|額)?\s*(?=何|なん|いくら|どれ|どの)")
_AMOUNT_WORDS = r"(?:最大|最高|上限|約|合計)"
# An amount per period (額) may name its value after は, が or a colon: 「月額上限は10,000米ドル」, 「年額: 6万円」.
_PERIOD_STATED = re.compile(
    rf"(?:毎|1\s*)?({'|'.join(_PERIODS)})"
    rf"(?:(?:に|間)?\s*{_AMOUNT_WORDS}?|額\s*{_AMOUNT_WORDS}?\s*(?:は|が|[:：])?)\s*[$¥€£]?\d"
)
# 「a year」, 「each month」: the English words of the periods, and of a night.
_ENGLISH_PERIOD_ASKED = re.compile(
    rf"\b(?:a|an|each|every) ({'|'.join(w for c in (*_PERIODS, '泊') for w in _RATE_COUNTERS[c])})\b"
)


def _periods(pattern: re.Pattern[str], norm: str) -> set[str]:
    """The periods ``pattern`` finds in ``norm`` (folded), leaving out dates and deictic words."""
    return {
        _PERIOD_READINGS.get(match.group(1), match.group(1))
        for match in pattern.finditer(norm)
        if not (match.start() and _NOT_A_PERIOD.match(norm, match.start() - 1))
    }


def asked_rates(question: str) -> frozenset[str]:
    """The counters a question asks a rate per: 「1泊あたりいくら？」, 「the limit per night」 → {"泊"};
    「年に何回？」, 「月いくらまで？」, 「how many days a year」 → {"年"}, {"月"}, {"年"}."""
    norm = fold(question)
    found: set[str] = set()
    for match in _ASKED_RATE.finditer(norm):
        counter = match.group(1) or _RATE_WORDS.get(match.group(2) or "")
        if counter:
            found.add(counter)
    found |= {_RATE_WORDS[word] for word in _ENGLISH_PERIOD_ASKED.findall(norm)}
    return frozenset(found | _periods(_PERIOD_ASKED, norm))


def carries_rate(counter: str, text: str) -> bool:
    """Whether ``text`` states something per ``counter``: 「300ドル/泊」, 「1泊あたり」, 「1泊につき」, 「per night」,
    and for a period 「年6回」, 「年に 2 回」, 「月50ドル」, 「年間60ドル」, 「1日8時間」 (not 2024年5月1日, 今年5月)."""
    norm = fold(text)
    per_word = "|".join(_RATE_COUNTERS.get(counter, ()))
    pattern = rf"/\s*1?\s*{re.escape(counter)}|1\s*{re.escape(counter)}{_PER}"
    if per_word:
        pattern += rf"|\bper ({per_word})s?\b"
    return bool(re.search(pattern, norm)) or (counter in _PERIODS and counter in _periods(_PERIOD_STATED, norm))


def carries_units(units: frozenset[str], text: str) -> bool:
    """Whether ``text`` states a quantity in one of ``units`` (a counter: a number written before it)."""
    norm = fold(text)
    counters = [u.removeprefix(COUNTER_PREFIX) for u in units if u.startswith(COUNTER_PREFIX)]
    for counter in counters:
        spellings = _COUNTER_SPELLINGS.get(counter, (counter,))
        if re.search(r"\d\s*(?:" + "|".join(map(re.escape, spellings)) + ")", norm):
            return True
    return any(q.unit in units for q in extract_quantities(norm, already_nfkc=True))


# 「…できて、…いくら？」: a clause ending (て/で/と/まで/は + 、) with a question on both sides.
_CLAUSE_BREAK = re.compile(r"(?:(?<=[てでとりは])|(?<=まで)|(?<=から))、")
_INTERROGATIVE = re.compile(alternation((*INTERROGATIVES, *QUESTION_ENDINGS, *REQUESTS)) + r"|上限|期限|[?？]")
# 「AとBを教えて」, 「AとBはそれぞれいくら？」: two nouns joined by と before the particle that
# asks about both. B has no の (「AとBの合計」 asks about one thing).
_NOUN_CHARS = f"{KANJI_IDEOGRAPHS}{KATAKANA}{MIDDLE_DOT}"
_NOUN_PAIR = re.compile(
    f"^(?P<a>[^、と]*?[{_NOUN_CHARS}A-Za-z0-9）)」さ])と、?(?P<b>[{_NOUN_CHARS}][^、と]*?)(?P<particle>は|を|が)(?P<rest>.*)$"
)
# 「残業の割増率と、…」: a noun joined by と to the next half. After a verb or a copula と sets a condition
# (「社員寮に入ると、」, 「何円以上だと、」), and 「あと、」 is "after": neither asks a question of its own.
_NOUN_BEFORE_TO = re.compile(f"[{_NOUN_CHARS}A-Za-z0-9）)」]と$")
_REQUEST_ONLY = re.compile(r"^(それぞれ)?(教えて(ください|下さい)?|知りたい(です)?)?[。.!！?？]*$")
_EACH = re.compile(r"^それぞれ")


def question_parts(question: str, *, standalone: bool = True, english: bool | None = None) -> list[str]:
    """The questions a two-part question asks, each standing alone; ``[question]`` for one.

    「在宅勤務は週何日までできて、手当は月いくらですか？」 → 「在宅勤務は週何日までできて」,
    「手当は月いくらですか？」; 「試用期間の長さと給料日を教えて」 → 「試用期間の長さを教えて」,
    「試用期間の給料日を教えて」; 「AとBはそれぞれ月いくら？」 → 「Aは月いくら？」, 「Bは月いくら？」.
    With ``standalone=False`` each part keeps only its own words (no topic or owner
    borrowed from the other half): what an answer must cover for that part.
    Only Japanese questions are split (``english``: the question's language, read
    here when None), and only where both halves ask something:
    「時間外労働と休日労働の合計の上限は？」 stays whole.
    """
    text = question.strip()
    if not text or (is_english(text) if english is None else english):
        return [question]
    for match in _CLAUSE_BREAK.finditer(text):
        left, right = text[: match.start()], text[match.end() :]
        asks_left = _NOUN_BEFORE_TO.search(left) if left.endswith("と") else _INTERROGATIVE.search(left)
        if _INTERROGATIVE.search(right) and asks_left:
            # The second half often drops the topic: 「介護休業は…、何回に分けて取れますか」.
            topic = left.split("は", 1)[0] if "は" in left else ""
            if standalone and topic and topic not in right:
                right = f"{topic}の{right}"
            return [left.removesuffix("と"), right]
    pair = _NOUN_PAIR.match(text)
    if pair is None:
        return [question]
    rest, second = pair["rest"], pair["b"]
    each = bool(_EACH.match(rest))
    if not (each or _REQUEST_ONLY.match(rest)) or ("の" in second and not each):
        return [question]
    rest = _EACH.sub("", rest)
    first = pair["a"]
    # 「試用期間の長さと給料日」: the second noun belongs to the same owner (試用期間の…).
    owner = first.rsplit("の", 1)[0] + "の" if standalone and "の" in first and "の" not in second else ""
    particle = pair["particle"]
    return [f"{first}{particle}{rest}", f"{owner}{second}{particle}{rest}"]


def asked_types(question: str) -> list[str]:
    """The answer types ``question`` asks for (possibly several, possibly none), in a fixed order."""
    norm = fold(question)
    asked = [name for name, pattern in _ASKS.items() if pattern.search(norm)]
    if NUMBER in asked and (kinds := [kind for kind, pattern in _ASKS_KIND.items() if pattern.search(norm)]):
        # 「ヘルプデスクの内線は？」 asks for a phone number, not any number: an e-mail address does not answer it.
        asked[asked.index(NUMBER) : asked.index(NUMBER) + 1] = kinds
    return asked


def carries(answer_type: str, text: str) -> bool:
    """Whether ``text`` carries an answer of ``answer_type`` (see the module docstring)."""
    norm = fold(text)
    if answer_type == DATE:
        return bool(_DEADLINE_WORDS.search(norm)) or any(
            q.unit in {"day", "month", "business_day", "week", "month_of_year", "year", CALENDAR_YEAR, "clock"}
            for q in extract_quantities(norm, already_nfkc=True)
        )
    if answer_type == QUANTITY:
        return bool(extract_quantities(norm, already_nfkc=True)) or bool(re.search(r"無制限|上限なし|不要|なし", norm))
    if answer_type == CONTACT:
        return bool(_CONTACT_WORDS.search(norm))
    if answer_type == STEPS:
        return bool(_STEP_WORDS.search(norm))
    if answer_type == NUMBER:
        return bool(_NUMBER_VALUE.search(norm))
    if answer_type in _KIND_VALUE:
        return bool(_KIND_VALUE[answer_type].search(norm))
    if answer_type == COST:
        return bool(_COST_WORDS.search(norm)) or any(
            q.unit in MONEY_UNITS for q in extract_quantities(norm, already_nfkc=True)
        )
    if answer_type == PAY:
        return bool(_PAY_WORDS.search(norm))
    if answer_type == NAME:
        return bool(_NAME_VALUE.search(norm))
    raise ValueError(f"unknown answer type: {answer_type!r}")


@dataclass(frozen=True)
class AskedPart:
    """One part of a question with what it asks for: its answer types and, per quantity, the units."""

    text: str
    types: tuple[str, ...] = ()
    units: tuple[frozenset[str], ...] = ()

    @classmethod
    def of(cls, text: str) -> AskedPart:
        """``text`` classified by :func:`asked_types` and :func:`asked_units`."""
        return cls(text, tuple(asked_types(text)), tuple(asked_units(text)))


def own_parts(question: str, *, english: bool | None = None) -> tuple[AskedPart, ...]:
    """The parts of ``question`` in their own words (what an answer must cover), each classified."""
    return tuple(AskedPart.of(part) for part in question_parts(question, standalone=False, english=english))


@dataclass(frozen=True)
class AskedQuestion:
    """What the verifier reads of a question: its text, its language and its parts in their own words."""

    text: str
    english: bool
    parts: tuple[AskedPart, ...]

    @classmethod
    def of(cls, text: str) -> AskedQuestion:
        """``text`` analysed here (callers outside an answer: tests, benchmarks)."""
        english = is_english(text)
        return cls(text, english, own_parts(text, english=english))
