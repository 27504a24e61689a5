"""How much a document says in its own words: the near-empty document warning.

Pure (no Django). A file whose body is one link (「[勤怠管理ページ](https://…)」),
only a heading, or only front matter parses fine, goes live, and answers
nothing: every question about its subject finds a passage that cannot say
anything. Its owner is warned (on the document's page and by ``import_documents``);
the document still goes live, since a pointer page may be wanted.

What counts is the body's letters and digits: heading lines, links (their text
too: 「こちら」 says nothing by itself), link targets and bare URLs, images
and HTML tags are left out, and punctuation and Markdown syntax are not letters.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from documents.parsing import Heading

# Fewer letters and digits than this is a word or two (「未定」, "TBD", 「準備中です」): a sentence that
# states a rule names its subject and what holds for it, and is longer (「慶弔休暇は3日とする」 has 10).
# A bound about sentences, not about any corpus; the warning is advice, the document still goes live.
NEAR_EMPTY_BELOW = 10

# [text](target), ![alt](src), [text][ref]: the whole link, text included.
_LINK = re.compile(r"!?\[[^\]\n]{0,500}\](?:\([^)\n]{0,2000}\)|\[[^\]\n]{0,500}\])")
# A reference definition line: [ref]: https://…
_LINK_DEFINITION = re.compile(r"^[ \t]{0,3}\[[^\]\n]{1,500}\]:[^\n]*$", re.MULTILINE)
_URL = re.compile(r"<?(?:https?|ftp|mailto):[^\s>)]+>?|<?www\.[^\s>)]+>?", re.IGNORECASE)
_TAG = re.compile(r"<[A-Za-z/!][^<>\n]{0,500}>")


def body_chars(text: str, headings: Sequence[Heading]) -> int:
    """Letters and digits in ``text`` outside its heading lines, links, URLs and tags."""
    kept = []
    position = 0
    for heading in sorted(headings, key=lambda h: h.start):
        if heading.start < position:
            continue
        kept.append(text[position : heading.start])
        line_end = text.find("\n", heading.start)
        position = len(text) if line_end == -1 else line_end
    kept.append(text[position:])
    body = "".join(kept)
    for pattern in (_LINK_DEFINITION, _LINK, _URL, _TAG):
        body = pattern.sub(" ", body)
    return sum(1 for ch in body if unicodedata.category(ch)[0] in "LN")


def is_near_empty(chars: int | None) -> bool:
    """Whether a version with ``chars`` body letters (``None``: not parsed yet) earns the near-empty warning."""
    return chars is not None and chars < NEAR_EMPTY_BELOW
