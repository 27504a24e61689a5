"""Markdown as static-site generators (Hugo, Jekyll) write it: front matter and shortcodes.

Pure (no Django). A company handbook kept in Hugo or Jekyll starts each page
with front matter, a block of settings between ``---`` lines (YAML) or ``+++``
lines (TOML), whose ``title`` is the page's title; its body calls shortcodes,
``{{% alert %}}`` and ``{{< youtube id >}}``, which are templating, not prose.

:func:`markdown_page` returns the text a reader sees: front matter out, every
shortcode tag and heading attribute block (below) out, and the text between a paired shortcode's tags
(``{{% alert %}}text{{% /alert %}}``) kept. The title comes back separately so
the caller can name the document by it.

:func:`heading_title` drops the attribute block these generators let a heading end with
(``## 休暇 {#leave}``, kramdown's ``{: #leave}``, Pandoc's ``{#leave .unnumbered}``): it
sets the anchor's id, and is no more part of the heading's words than a shortcode is of the text.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

import yaml

# Front matter larger than this is not parsed as YAML/TOML (only its title line is read):
# settings blocks are a few hundred bytes, and a parser should not run over a whole page.
FRONT_MATTER_MAX_CHARS = 64 * 1024

_FENCES = {"---": ("---", "..."), "+++": ("+++",)}
# One shortcode tag, opening or closing, on one line or across a few. Bounded so that
# an unclosed "{{%" costs a short scan, not one to the end of the page.
_SHORTCODE = re.compile(r"\{\{[<%].{0,2000}?[%>]\}\}", re.DOTALL)
# A heading's trailing attribute block: an id (#x) or class (.x), kramdown's colon first.
_ATTRIBUTES = r"[ \t]*\{:?[ \t]*[#.][^{}\n]{0,200}\}[ \t]*$"
_HEADING_ATTRIBUTES = re.compile(_ATTRIBUTES)
# The same block ending an ATX heading line (「## 休暇 {#leave}」) of the page's text.
_ATX_HEADING_ATTRIBUTES = re.compile(r"^([ ]{0,3}#{1,6}[ \t].*?)" + _ATTRIBUTES, re.MULTILINE)
_TITLE_LINE = re.compile(r"""^title\s*[:=]\s*(?P<value>.*?)\s*$""", re.MULTILINE)


@dataclass(frozen=True)
class MarkdownPage:
    """What a Markdown source shows a reader: ``text`` without front matter and shortcode tags; ``title`` or ``""``."""

    text: str
    title: str = ""


def markdown_page(source: str) -> MarkdownPage:
    """Split front matter off ``source`` (LF newlines) and drop its shortcode tags and its headings' attribute blocks.

    Front matter counts only at the very start, between a ``---`` (or ``+++``)
    line and the next closing line; a ``---`` with no closing line is a
    Markdown rule and stays. The title is front matter's ``title`` as a
    string (YAML or TOML; a block that fails to parse still gives its
    ``title:`` line), else ``""``. Never raises.
    """
    settings, body = _split_front_matter(source)
    title = _title(settings) if settings is not None else ""
    if "{{" in body:
        body = _SHORTCODE.sub("", body)
    if "{" in body:
        body = _ATX_HEADING_ATTRIBUTES.sub(r"\1", body)
    return MarkdownPage(text=body, title=title)


def heading_title(title: str) -> str:
    """``title`` without a trailing attribute block (「社内コミュニケーション {#internal-communication}」 →
    「社内コミュニケーション」); a title that is nothing but one stays as it is."""
    return _HEADING_ATTRIBUTES.sub("", title) or title


def _split_front_matter(source: str) -> tuple[tuple[str, str] | None, str]:
    """``((fence, settings text), body)``, or ``(None, source)`` without front matter."""
    first, newline, rest = source.partition("\n")
    fence = first.rstrip()
    if not newline or fence not in _FENCES:
        return None, source
    offset = 0
    for line in rest.splitlines(keepends=True):
        if line.rstrip() in _FENCES[fence]:
            return (fence, rest[:offset]), rest[offset + len(line) :]
        offset += len(line)
    return None, source


def _title(settings: tuple[str, str]) -> str:
    """The ``title`` setting as one line of text, or ``""``."""
    fence, text = settings
    value: object = None
    if len(text) <= FRONT_MATTER_MAX_CHARS:
        try:
            parsed = yaml.safe_load(text) if fence == "---" else tomllib.loads(text)
        except (yaml.YAMLError, tomllib.TOMLDecodeError, ValueError):
            parsed = None
        if isinstance(parsed, dict):
            value = parsed.get("title")
    if value is None:
        match = _TITLE_LINE.search(text)
        value = match.group("value").strip("\"'") if match else None
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        return ""
    return " ".join(str(value).split())
