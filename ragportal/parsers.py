"""Request parsers of every API view (the default in ``REST_FRAMEWORK``).

No input of this API nests more than a few levels, but Python's JSON decoder
recurses once per level: ``[`` × 100000 used to end in ``RecursionError`` (a
500), and a body just under the interpreter's limit parses and then breaks
whatever walks it next (``str()`` of a value, the error renderer). Both are a
400 here, before any view sees the data.

JSON can also spell a lone surrogate (``"\\ud800"``), a string no UTF-8 text can
hold: it reached a choice field's error message and broke encoding the response
(``UnicodeEncodeError``, a 500). Such a string anywhere in the body (a key or a
value) is a 400 here too. Forms, multipart bodies and query strings cannot carry
one: Django decodes their bytes with replacement characters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError

# Deeper than any request body this API accepts (objects holding lists of scalars: 2).
MAX_JSON_DEPTH = 32


def json_depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` (decoded JSON) nests lists/objects more than ``limit`` levels deep.

    Iterative, so it cannot itself hit the recursion limit.
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_has_lone_surrogate(value: Any) -> bool:
    """Whether a string in ``value`` (decoded JSON; keys included) holds a surrogate code point.

    ``json.loads`` joins a valid escaped pair into one character, so any surrogate
    left is unpaired and cannot be encoded as UTF-8. Iterative, like the depth check.
    """
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser; nesting deeper than ``MAX_JSON_DEPTH`` or a lone surrogate is a 400 (``ParseError``)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        too_deep = ParseError(_("JSONの入れ子が深すぎます（%(limit)d段まで）。") % {"limit": MAX_JSON_DEPTH})
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise too_deep from None
        if json_depth_exceeds(data, MAX_JSON_DEPTH):
            raise too_deep
        if json_has_lone_surrogate(data):
            raise ParseError(_("JSONの文字列に使えない文字（対になっていないサロゲート）が含まれています。"))
        return data
