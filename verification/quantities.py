"""Quantities in Japanese (and English) text: numbers with their units and qualifiers.

Pure Python, no Django. ``10日``, ``6ヶ月後``, ``¥15,000``, ``1万5千円``, ``一万五千円``,
``３日前``, ``9:00``, ``9時半``, ``半年`` and ``2024/4/1`` are read into
:class:`Quantity` values so that claim support can compare an answer's numbers
with its evidence regardless of how they are written. Kanji numerals are read
only before a unit, because they are also parts of ordinary words (一般, 十分, 万一).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace

from ragportal.text import nfkc

_KANJI_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_KANJI_SMALL = {"十": 10, "百": 100, "千": 1000}
_KANJI_LARGE = {"万": 10_000, "億": 100_000_000}
_KANJI_NUMERALS = "".join(_KANJI_DIGITS) + "".join(_KANJI_SMALL) + "".join(_KANJI_LARGE)

# Units as written after a number → canonical unit. Longest spellings first.
_UNITS: list[tuple[str, str]] = [
    ("ヶ月", "month"),
    ("ヵ月", "month"),
    ("か月", "month"),
    ("カ月", "month"),
    ("ケ月", "month"),
    ("箇月", "month"),
    ("ヶげつ", "month"),
    ("営業日", "business_day"),
    ("年間", "year"),
    ("年度", "year"),
    ("年", "year"),
    ("週間", "week"),
    ("週", "week"),
    ("日間", "day"),
    ("日", "day"),
    ("時間", "hour"),
    ("分間", "minute"),
    ("分", "minute"),
    ("秒", "second"),
    ("円", "yen"),
    # Other currencies a company's rules state amounts in (a handbook of an international company).
    ("米ドル", "usd"),
    ("ドル", "usd"),
    ("usd", "usd"),
    ("ユーロ", "eur"),
    ("eur", "eur"),
    ("ポンド", "gbp"),
    ("gbp", "gbp"),
    ("jpy", "yen"),
    ("パーセント", "percent"),
    ("%", "percent"),
    ("泊", "night"),
    # Distances and weights (a commuting allowance by distance, a parcel's weight).
    ("km", "km"),
    ("キロメートル", "km"),
    ("kg", "kg"),
    ("キログラム", "kg"),
    ("回", "times"),
    ("人", "person"),
    ("名", "person"),
    ("件", "count"),
    ("歳", "age"),
    ("才", "age"),
    ("時", "clock"),
    ("月", "month_of_year"),
    ("階", "floor"),
    ("枚", "sheet"),
    ("個", "piece"),
    ("台", "machine"),
    ("冊", "volume"),
    ("days", "day"),
    ("day", "day"),
    ("months", "month"),
    ("month", "month"),
    ("years", "year"),
    ("year", "year"),
    ("weeks", "week"),
    ("week", "week"),
    ("hours", "hour"),
    ("hour", "hour"),
    ("minutes", "minute"),
    ("minute", "minute"),
    ("yen", "yen"),
]
# Kanji numerals are words too (一般, 一時, 十分, 万一): read them as numbers only before these units.
_KANJI_SAFE_UNITS = frozenset(
    {"month", "business_day", "year", "week", "day", "hour", "yen", "night", "times", "person", "count", "age"}
)
# Money in any currency: what 「いくら」 asks for.
MONEY_UNITS = frozenset({"yen", "usd", "eur", "gbp"})
_CURRENCY_SIGNS = {"¥": "yen", "$": "usd", "€": "eur", "£": "gbp"}
_QUALIFIERS = ("以上", "以下", "未満", "以内", "超", "前", "後")

_NUMBER = rf"(?:\d+(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?|[{_KANJI_NUMERALS}])+"
_UNIT_ALT = "|".join(re.escape(u) for u, _ in _UNITS)
# A currency's code is written before the amount as often as after it: 「USD 140」, 「EUR 24」, 「JPY 5,000」.
_CURRENCY_CODES = {"usd": "usd", "eur": "eur", "gbp": "gbp", "jpy": "yen"}
_CODE_ALT = "|".join(_CURRENCY_CODES)
_CODE_INITIALS = "".join(sorted({code[0] for code in _CURRENCY_CODES}))
# The look-ahead lets the engine skip positions that cannot start a number (5x faster).
_QUANTITY_RE = re.compile(
    rf"(?=[¥$€£0-9{_KANJI_NUMERALS}]|(?=[{_CODE_INITIALS}])(?:{_CODE_ALT})\s?\d)"
    rf"(?:(?P<yen>[¥$€£])|(?<![a-z])(?P<code>{_CODE_ALT})(?=\s?\d))?\s?(?P<num>{_NUMBER})"
    rf"\s?(?P<unit>{_UNIT_ALT})?(?P<qual>{'|'.join(_QUALIFIERS)})?",
    re.IGNORECASE,
)
# Dates, clock times, 半年, 2年半 and ratios, read before plain numbers (one pass; the first alternative wins;
# the look-ahead lets the engine skip positions that cannot start one). Ratios are percentages: 「3割」,
# 「2割5分」 (25%, not 5 minutes), 「3分の1」 and 「二分の一」 (not 3 or 2 minutes), 「半額」; only they read the
# bound after them (「2割5分以上」).
_RATIO_DIGIT = "[0-9一二三四五六七八九]"
_RATIO_NUMBER = r"\d+(?:\.\d+)?|[一二三四五六七八九十]+"
# A bound's qualifier → whether a value lies within the bound: (value, bound) → bool.
_BOUNDS = {"以上": operator.ge, "超": operator.gt, "未満": operator.lt, "以下": operator.le, "以内": operator.le}
# A ratio reads the bound after it (「2割5分以上」): one of those qualifiers.
_RATIO_QUALIFIER = rf"(?P<rq>{'|'.join(_BOUNDS)})?"
_SPECIAL_RE = re.compile(
    r"(?=[0-9半一二三四五六七八九十])(?:"
    r"(?P<date>(?<!\d)(?P<y>\d{4})[/\-.](?P<mo>\d{1,2})[/\-.](?P<d>\d{1,2})(?!\d))"
    r"|(?P<clock>(?<![\d:])(?P<h>\d{1,2})[:：](?P<mi>\d{2})(?![\d:]))"
    r"|(?P<clock_ja>(?<!\d)(?P<hj>\d{1,2})時(?!間)(?:(?P<mj>\d{1,2})分|(?P<half>半))?)"
    r"|(?P<half_year>半年(?:間)?(?P<hq>後|前|以内|以上)?)"
    # 「2年半」 and 「1時間半」 as the documents also write them: 2年6ヶ月, 1時間30分.
    r"|(?P<and_half>(?<![0-9.])(?P<whole>\d+)(?P<half_of>年|時間)半(?![期年額分]))"
    rf"|(?P<wari>(?<![0-9.])(?P<wn>{_RATIO_NUMBER})割(?:(?P<bu>{_RATIO_DIGIT})分)?(?:(?P<rin>{_RATIO_DIGIT})厘)?)"
    rf"|(?P<fraction>(?<![0-9.])(?P<den>{_RATIO_NUMBER})分の(?P<numer>{_RATIO_NUMBER}))"
    r"|(?P<half_price>半額))" + _RATIO_QUALIFIER
)
_UNIT_OF = dict(_UNITS)
# 「2024年」, 「2026年度」 name a year of the calendar, not a length of 2,024 years: the unit 「何年に」 asks for,
# not the one 「何年勤めたら」 or "how long" do. 「2000年間」 is a length.
CALENDAR_YEAR = "calendar_year"
_CALENDAR_YEAR = re.compile(r"(?:19|20)\d{2}")
_MAY_HAVE_NUMBER_RE = re.compile(rf"[0-9{_KANJI_NUMERALS}]|半年|半額")


@dataclass(frozen=True)
class Quantity:
    """A number with its canonical unit (``""`` for a bare number) and qualifier (``前``, ``以上``...)."""

    value: float
    unit: str
    qualifier: str
    text: str
    # Offset in the (NFKC) text it was read from; not part of equality.
    start: int = field(default=-1, compare=False)


def extract_quantities(text: str, *, already_nfkc: bool = False) -> list[Quantity]:
    """Every quantity written in ``text`` (NFKC-normalised first; full-width digits count).

    Pass ``already_nfkc=True`` when ``text`` is already NFKC-normalised.
    """
    return scan_quantities(text if already_nfkc else nfkc(text))[0]


def scan_quantities(normal: str) -> tuple[list[Quantity], str]:
    """The quantities of NFKC text, and the text with each of them replaced by a space (for word checks)."""
    if not _MAY_HAVE_NUMBER_RE.search(normal):
        return [], normal
    found: list[Quantity] = []
    spans: list[tuple[int, int]] = []

    def special(m: re.Match[str]) -> str:
        text, at = m.group(0), m.start()
        if m.group("date"):
            found.append(Quantity(float(m.group("y")), CALENDAR_YEAR, "", text, at))
            found.append(Quantity(float(m.group("mo")), "month_of_year", "", text, at))
            found.append(Quantity(float(m.group("d")), "day", "", text, at))
        elif m.group("clock"):
            found.append(Quantity(float(int(m.group("h")) * 60 + int(m.group("mi"))), "clock", "", text, at))
        elif m.group("clock_ja"):
            minutes = 30 if m.group("half") else int(m.group("mj") or 0)
            found.append(Quantity(float(int(m.group("hj")) * 60 + minutes), "clock", "", text, at))
        elif m.group("half_year"):
            found.append(Quantity(6.0, "month", m.group("hq") or "", text, at))
        elif m.group("and_half"):
            whole, year = float(m.group("whole")), m.group("half_of") == "年"
            found.append(Quantity(whole, "year" if year else "hour", "", text, at))
            found.append(Quantity(6.0 if year else 30.0, "month" if year else "minute", "", text, at))
        elif (percent := _ratio_percent(m)) is not None:
            found.append(Quantity(percent, "percent", m.group("rq") or "", text, at))
        else:
            return text  # a ratio of numbers it cannot read: left to the plain reading
        return " " * len(text)

    rest = _SPECIAL_RE.sub(special, normal)
    for m in _QUANTITY_RE.finditer(rest):
        num = m.group("num")
        unit_text = m.group("unit") or ""
        unit = _UNIT_OF.get(unit_text.lower(), "") if unit_text else ""
        if m.group("yen"):
            unit = _CURRENCY_SIGNS[m.group("yen")]
        elif m.group("code"):
            unit = _CURRENCY_CODES[m.group("code").lower()]
        has_digit = any(c.isdigit() for c in num)
        if not has_digit and unit not in _KANJI_SAFE_UNITS:
            continue
        # 「10km」: a Latin unit ends the number's word, so the word must end after the unit. A code before
        # the number starts its word (「XUSD 5」 is a bare 5).
        end = m.end("unit") if unit_text.isascii() and unit_text else m.end("num")
        if has_digit and _inside_latin_word(rest, m.start("code") if m.group("code") else m.start("num"), end):
            continue
        if not unit and _is_list_marker(rest, m.start("num"), m.end("num")):
            continue
        value = _parse_number(num)
        if value is None:
            continue
        if unit == "year" and unit_text != "年間" and _CALENDAR_YEAR.fullmatch(num):
            unit = CALENDAR_YEAR
        found.append(Quantity(value, unit, m.group("qual") or "", m.group(0).strip(), m.start()))
        spans.append(m.span())
    for a, b in reversed(spans):
        rest = rest[:a] + " " + rest[b:]
    return _ranges_shared(found, normal), rest


# Between the two ends of a range: 「2〜3週間」, 「12～15時間」, 「2-3 days」, 「1万から2万円」.
_RANGE_MARK = re.compile(r"\s*(?:[〜~\-–—]|から)\s*")


def _ranges_shared(found: list[Quantity], normal: str) -> list[Quantity]:
    """``found`` with the unit of a range's end given to its bare start: 「2〜3週間」 is 2 weeks to 3 weeks."""
    ordered = sorted(range(len(found)), key=lambda i: found[i].start)
    shared = list(found)
    for i, j in zip(ordered, ordered[1:], strict=False):
        start, end = found[i], found[j]
        if start.unit or not end.unit or start.start < 0:
            continue
        if _RANGE_MARK.fullmatch(normal, start.start + len(start.text), end.start):
            shared[i] = replace(start, unit=end.unit)
    return shared


def _ratio_percent(m: re.Match[str]) -> float | None:
    """The percentage a ratio match of :data:`_SPECIAL_RE` states (2割5分 → 25, 3分の1 → 33.3333, 半額 → 50)."""
    if m.group("half_price"):
        return 50.0
    if m.group("wari"):
        tenths, hundredths, thousandths = (
            _parse_number(m.group(g)) if m.group(g) else 0.0 for g in ("wn", "bu", "rin")
        )
        if tenths is None or hundredths is None or thousandths is None:
            return None
        return tenths * 10 + hundredths + thousandths / 10
    denominator, numerator = _parse_number(m.group("den")), _parse_number(m.group("numer"))
    if not denominator or numerator is None:
        return None
    return round(numerator / denominator * 100, 4)


def _inside_latin_word(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    # "Windows11" and "v2" are names; "10days" is still a quantity.
    if before.isascii() and before.isalpha():
        return True
    return after.isascii() and after.isalpha() and after.lower() not in "dmyhw"


def _is_list_marker(text: str, start: int, end: int) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    return not text[line_start:start].strip() and end < len(text) and text[end] in ".)、）"


def _parse_number(token: str) -> float | None:
    """Read ``15,000``, ``1.5万``, ``1万5千``, ``十``, ``二十一``, ``二〇二四`` as a number."""
    token = token.replace(",", "")
    try:
        return float(token)
    except ValueError:
        pass
    total = 0.0
    section = 0.0
    current: float | None = None
    previous_was_digit = False
    for part in re.findall(rf"\d+(?:\.\d+)?|[{_KANJI_NUMERALS}]", token):
        if part[0].isdigit():
            current = float(part)
            previous_was_digit = False
        elif part in _KANJI_DIGITS:
            digit = _KANJI_DIGITS[part]
            current = current * 10 + digit if (current is not None and previous_was_digit) else float(digit)
            previous_was_digit = True
        elif part in _KANJI_SMALL:
            section += (current if current is not None else 1.0) * _KANJI_SMALL[part]
            current, previous_was_digit = None, False
        else:
            amount = section + (current or 0.0)
            total += (amount if amount else 1.0) * _KANJI_LARGE[part]
            section, current, previous_was_digit = 0.0, None, False
    return total + section + (current or 0.0)


def without_quantities(text: str, stated: Collection[tuple[float, str]]) -> str:
    """``text`` (NFKC-normalised) with each quantity whose (value, unit) is in ``stated`` blanked out.

    A question's own quantities are what it asks about, not its answer: 「2027年4月入社の新卒は、いつ配属される？」
    is not answered by a passage restating 2027年4月, which carries no other date.
    """
    normal = nfkc(text)
    return blanked(normal, extract_quantities(normal, already_nfkc=True), stated) if stated else normal


def blanked(normal: str, quantities: Sequence[Quantity], stated: Collection[tuple[float, str]]) -> str:
    """``normal`` with each of ``quantities`` (read from it) whose (value, unit) is in ``stated`` blanked out.

    A span that also states a quantity not in ``stated`` stays: 「2027/07/01」 states 2027年, 7月 and 1日 in one
    span, and a question stating 2027年 has not stated that date.
    """
    unstated = [q for q in quantities if q.start >= 0 and (q.value, q.unit) not in stated]
    for q in reversed(quantities):
        end = q.start + len(q.text)
        if (
            q.start >= 0
            and (q.value, q.unit) in stated
            and not any(o.start < end and q.start < o.start + len(o.text) for o in unstated)
        ):
            normal = normal[: q.start] + " " * len(q.text) + normal[end:]
    return normal


def quantity_in(q: Quantity, evidence: list[Quantity] | tuple[Quantity, ...]) -> bool:
    """Does ``evidence`` state ``q`` (see :func:`states`)?"""
    return any(states(e, q) for e in evidence)


def states(e: Quantity, q: Quantity) -> bool:
    """Does the evidence quantity ``e`` state ``q``: same value, same unit, no conflicting qualifier?

    A unit-less evidence number does not back ``10日`` (an extension number is not a
    duration); a sentence without a qualifier is backed by ``3日前``; ``3日後`` is not.
    """
    if abs(e.value - q.value) > 1e-9:
        return False
    if q.unit and e.unit != q.unit:
        return False
    return not (q.qualifier and e.qualifier and q.qualifier != e.qualifier)


def within_bounds(value: float, unit: str, quantities: list[Quantity]) -> bool:
    """Whether ``value`` in ``unit`` lies within every bound ``quantities`` set in that unit, and there is one.

    「10km以上15km未満」 holds 12km; 「25km以上」 does not; a text with no bound in ``unit`` holds
    nothing. Bounds of one unit are read together, so a text listing several brackets
    (「2km以上10km未満、10km以上15km未満」) contradicts itself and holds nothing either.
    """
    bounds = [q for q in quantities if q.unit == unit and q.qualifier in _BOUNDS]
    return bool(bounds) and all(_BOUNDS[q.qualifier](value, q.value) for q in bounds)
