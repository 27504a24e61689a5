"""The grounding gate of the second reference article, and abstention messages.

Pure Python, no Django. An answer whose text is mostly not covered by
citations is suspicious: below the minimum grounded ratio the user is shown
:data:`UNGROUNDED_MESSAGE` instead and the original is kept for reviewers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from ragportal.text import fold
from verification.flags import gettext_noop


# Shown instead of an answer that fails the grounding gate.
UNGROUNDED_MESSAGE = gettext_noop("関連する文書を十分に見つけられませんでした")
# The abstention the grounded prompt asks for, verbatim. Not translated: providers
# are told to say exactly this and verification recognises it by equality.
NOT_FOUND_MESSAGE = "提供された文書からは該当する内容が見つかりませんでした"
NOT_FOUND_MESSAGE_EN = "The provided documents do not contain information about this."

# The lead-in of an answer to an English question quoting Japanese documents. Like the
# abstention it is fixed text: it claims nothing, so it is neither checked nor counted.
ENGLISH_LEAD_IN = "From the documents (quoted in Japanese):"

DEFAULT_MIN_GROUNDED_RATIO = 0.5


def is_lead_in(text: str) -> bool:
    """True when ``text`` is (only) the English lead-in."""
    return text.strip() == ENGLISH_LEAD_IN


# Polite openings that models put in front of the abstention sentence.
_APOLOGIES = ("申し訳ございませんが", "申し訳ありませんが", "恐れ入りますが", "sorry", "i'm sorry", "i am sorry")
# Cheap pre-check (most sentences are not abstentions): a word both messages must contain.
_HINT_RE = re.compile("見つかり|contain|ｃｏｎｔａｉｎ", re.IGNORECASE)
_TRAILING = " \t\r\n。．.!！?？」』\"'”’)）]］"
_LEADING = " \t\r\n「『\"'“‘(（[［"


class BlockLike(Protocol):
    """What the gate needs of an answer block (``qa.types.AnswerBlock`` fits)."""

    text: str
    citations: Any


def grounded_ratio(
    blocks: Iterable[BlockLike],
    *,
    counts: Callable[[Any], bool] | None = None,
) -> float:
    """Share of answer characters that sit in blocks carrying a citation.

    Whitespace is not counted (block boundaries often carry bare newlines).
    ``counts`` decides which citations ground a block (default: any citation;
    the verdict passes "quote verified", so fabricated citations ground
    nothing). An answer with no countable characters is fully grounded (1.0),
    as in the reference: there is nothing to distrust.
    """
    cited = total = 0
    for block in blocks:
        size = len("".join(block.text.split()))
        total += size
        citations = list(block.citations or ())
        if counts is not None:
            citations = [c for c in citations if counts(c)]
        if citations:
            cited += size
    return 1.0 if total == 0 else cited / total


def is_grounded(ratio: float, min_ratio: float = DEFAULT_MIN_GROUNDED_RATIO) -> bool:
    """True when ``ratio`` passes the gate (``ratio >= min_ratio``)."""
    return ratio >= min_ratio


def gate(answer_text: str, ratio: float, min_ratio: float = DEFAULT_MIN_GROUNDED_RATIO) -> str:
    """The text to show the user: the answer itself, or :data:`UNGROUNDED_MESSAGE` below the gate."""
    return answer_text if is_grounded(ratio, min_ratio) else UNGROUNDED_MESSAGE


def is_abstention(text: str) -> bool:
    """True when ``text`` is the "not in the documents" answer, in Japanese or English.

    Tolerates surrounding whitespace, quotes and brackets, trailing punctuation
    (``。``, ``.``, ``！``), full-width forms, case, and a short apology in front
    (``申し訳ありませんが、``). Anything more — an abstention followed by an
    answer anyway — is not an abstention.
    """
    if len(text) > 200 or not _HINT_RE.search(text):
        return False
    core = _core(text)
    if not core:
        return False
    return core in _ABSTENTION_CORES


def _core(text: str) -> str:
    normal = fold(text).strip(_LEADING + _TRAILING)
    normal = " ".join(normal.split())
    for apology in _APOLOGIES:
        if normal.startswith(apology):
            normal = normal[len(apology) :].lstrip(" ,、，")
            break
    return normal.strip(_LEADING + _TRAILING)


_ABSTENTION_CORES = frozenset({_core(NOT_FOUND_MESSAGE), _core(NOT_FOUND_MESSAGE_EN)})
