"""HTML written inside Markdown, turned into the Markdown it stands for.

Pure (no Django). Company handbooks kept as Markdown embed HTML where Markdown
falls short: ``<table>`` with merged cells, ``<br>`` inside table cells,
``<details>`` blocks, ``<ul>`` lists. A document's text is its Markdown source
(``documents.parsing``), so left alone this HTML would be indexed as markup: a
question answered by a cell would meet ``<td>`` tags instead of a table row.

:func:`markdown_without_html` replaces each HTML block with its Markdown
equivalent, so the rest of the pipeline treats it like Markdown written by hand:

* a table becomes a pipe table (header row, ``| --- |`` rule, one line per row);
  a cell merged over rows or columns (``rowspan``/``colspan``) is repeated in
  each row and column it covers, so every row reads whole under its header;
  several header rows merge per column; a table without ``<th>`` gets an empty header;
  a table written sideways (each row led by its ``<th>``, more columns than rows:
  勤続年数 | 6か月 | 1年6か月 …) is turned, one record per row under the row names;
* ``<ul>``/``<ol>`` become ``-``/``1.`` items, ``<h1>``–``<h6>`` ATX headings,
  ``<pre>`` a code fence, and everything else its visible text, one block per line;
* ``<details>``/``<summary>`` and other wrappers go, their content stays;
* ``<br>`` is a line break, or a space inside a table row;
* comments, scripts and hidden elements are dropped.

CommonMark ends an HTML block at a blank line, so a table whose cells hold
Markdown (a list in a ``<td>``, blank lines around it) comes as several blocks;
they are joined back into one region up to the closing tag, and the Markdown
between them is rendered before the region is read as HTML. Code fences and
indented code keep their text as written.
"""

from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING

from documents.textnorm import single_line

if TYPE_CHECKING:
    from bs4.element import Tag
    from markdown_it.token import Token

__all__ = ["markdown_without_html"]

# Elements whose content may run over several CommonMark HTML blocks (Markdown in between).
_CONTAINERS = ("table", "ul", "ol", "dl")
# A region larger than this is read as HTML without rendering the Markdown inside it:
# inline parsing is where markdown-it spends super-linear time.
_MAX_RENDERED_REGION = 200_000
# Past this depth an element's text is taken flat (bs4's get_text walks without recursion).
_MAX_DEPTH = 40
# HTML allows colspan up to 1000; a cell is repeated per column, so this bounds the growth.
_MAX_COLSPAN = 32

_DROP = frozenset({"script", "style", "noscript", "template", "head", "title", "iframe", "object", "embed", "svg"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_BLOCKS = frozenset(
    (
        "address article aside blockquote body caption center dd details dialog div dl dt fieldset figcaption "
        "figure footer form header hgroup hr html li main menu nav p section summary tbody tfoot thead tr"
    ).split()
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
_TAG = re.compile(r"<[A-Za-z!/]")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_WS = re.compile(r"[ \t\n\r\f\xa0]+")
_LIST_MARK = re.compile(r"^(?:[-*+]|\d{1,9}[.)]|#{1,6})\s+")


def markdown_without_html(text: str) -> str:
    """``text`` (Markdown, LF newlines) with its HTML blocks and ``<br>`` tags as Markdown; see the module doc.

    Text without ``<`` is returned unchanged. Never raises on malformed HTML
    (unclosed tags, stray closing tags): the HTML parser repairs it as browsers do.
    """
    if "<" not in text:
        return text
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True})
    md.core.ruler.disable("inline")
    tokens = md.parse(text)
    lines = text.split("\n")
    out: list[str] = []
    done = 0  # lines before this are written
    for kind, start, end in _regions(tokens, len(lines)):
        out.extend(_br_lines(lines[done:start]))
        source = textwrap.dedent("\n".join(lines[start:end]))
        if kind == "html":
            converted = _html_region_markdown(source)
            if converted:
                # Blank lines around it, so a pipe table is not read as part of a neighbouring paragraph.
                out.extend([*([""] if out and out[-1].strip() else []), converted])
                out.extend([""] if end < len(lines) and lines[end].strip() else [])
        else:
            out.extend(lines[start:end])  # code keeps its text as written
        done = end
    out.extend(_br_lines(lines[done:]))
    return "\n".join(out)


def _regions(tokens: list[Token], line_count: int) -> list[tuple[str, int, int]]:
    """``(kind, first line, end line)`` of each HTML region and code block, in order, not overlapping."""
    regions: list[tuple[str, int, int]] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token.map is None or (regions and token.map[0] < regions[-1][2]):
            continue
        if token.type in ("fence", "code_block"):
            regions.append(("code", token.map[0], token.map[1]))
        elif token.type == "html_block":
            start, end = token.map
            depths = _open_containers(token.content)
            # Later HTML blocks join the region until its containers close; what lies between is Markdown.
            while any(d > 0 for d in depths.values()) and i < len(tokens):
                following = tokens[i]
                i += 1
                if following.type == "html_block" and following.map is not None:
                    end = following.map[1]
                    depths = _open_containers(following.content, depths)
            regions.append(("html", start, min(end, line_count)))
    return regions


def _open_containers(html: str, depths: dict[str, int] | None = None) -> dict[str, int]:
    """How deep each container element (table, list) is still open after ``html``, counting on from ``depths``."""
    return {
        tag: (depths or {}).get(tag, 0)
        + len(re.findall(rf"<{tag}\b", html, re.IGNORECASE))
        - len(re.findall(rf"</{tag}\s*>", html, re.IGNORECASE))
        for tag in _CONTAINERS
    }


def _br_lines(lines: list[str]) -> list[str]:
    """Lines of Markdown with ``<br>`` as a line break; in a pipe-table row, each cell's HTML as its text."""
    out = []
    for line in lines:
        if "<" in line and line.strip().startswith("|"):
            line = "|".join(_cell_text(cell) if _TAG.search(cell) else cell for cell in _CELL_SPLIT.split(line))
        elif "<" in line:
            line = _BR.sub("\n", line)
        out.append(line)
    return out


def _cell_text(cell: str) -> str:
    """A pipe-table cell holding HTML (``10日<br>(初年度)``, ``<ul><li>…``) as the text a table cell would hold."""
    from bs4 import BeautifulSoup

    text = _flat_text(BeautifulSoup(cell, "lxml"), 0, joiner="; ")
    return f" {_escape_pipes(text)} "


def _html_region_markdown(source: str) -> str:
    """One HTML region (Markdown possibly in between its tags) as Markdown blocks separated by blank lines."""
    from bs4 import BeautifulSoup

    html = source
    if len(source) <= _MAX_RENDERED_REGION:
        from markdown_it import MarkdownIt

        html = MarkdownIt("commonmark", {"html": True}).enable("table").render(source)
    writer = _Writer()
    writer.children(BeautifulSoup(html, "lxml"), 0)
    writer.end_block()
    return "\n\n".join(writer.blocks)


def _is_hidden(tag: Tag) -> bool:
    return tag.has_attr("hidden") or bool(_HIDDEN_STYLE.search(str(tag.get("style", ""))))


class _Writer:
    """Collects Markdown blocks from an HTML tree; inline text gathers until a block boundary."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.inline: list[str] = []

    def end_block(self) -> None:
        lines = [single_line(line) for line in "".join(self.inline).split("\n")]
        text = "\n".join(line for line in lines if line)
        if text:
            self.blocks.append(text)
        self.inline = []

    def block(self, markdown: str) -> None:
        self.end_block()
        if markdown.strip():
            self.blocks.append(markdown)

    def children(self, node: Tag, depth: int) -> None:
        from bs4.element import NavigableString, PreformattedString, Tag

        for child in node.children:
            if isinstance(child, NavigableString):
                if not isinstance(child, PreformattedString):  # comments, doctype, CDATA
                    self.inline.append(_WS.sub(" ", str(child)))
            elif isinstance(child, Tag):
                self.element(child, depth + 1)

    def element(self, tag: Tag, depth: int) -> None:
        name = (tag.name or "").lower()
        if name in _DROP or _is_hidden(tag):
            return
        if depth > _MAX_DEPTH:
            self.inline.append(_WS.sub(" ", tag.get_text()))
        elif name == "br":
            self.inline.append("\n")
        elif name in _HEADINGS:
            self.block(f"{'#' * int(name[1])} {_flat_text(tag, depth)}")
        elif name == "table":
            self.block(_pipe_table(tag, depth))
        elif name in ("ul", "ol"):
            self.block("\n".join(_list_lines(tag, depth, 0)))
        elif name == "pre":
            self.block(f"```\n{tag.get_text().strip(chr(10))}\n```")
        elif name in _BLOCKS:
            self.end_block()
            self.children(tag, depth)
            self.end_block()
        else:
            self.children(tag, depth)


def _flat_text(tag: Tag, depth: int, *, joiner: str = " ") -> str:
    """The text of ``tag`` on one line: its blocks and lines joined by ``joiner``, list and heading marks dropped."""
    writer = _Writer()
    writer.children(tag, depth)
    writer.end_block()
    lines = [_LIST_MARK.sub("", line.strip()) for block in writer.blocks for line in block.split("\n")]
    return joiner.join(single_line(line) for line in lines if line.strip() and not line.startswith("```"))


def _list_lines(tag: Tag, depth: int, level: int) -> list[str]:
    """``- item`` (or ``1. item``) lines for a list, nested lists indented two spaces a level.

    A list written straight inside another (``<ol><li>a</li><ul>…</ul></ol>``, as
    browsers accept) is nested under the item before it.
    """
    from bs4.element import Tag as _Tag

    ordered = (tag.name or "").lower() == "ol"
    lines: list[str] = []
    number = 0
    for child in tag.children:
        if not isinstance(child, _Tag):
            continue  # text between the items
        name = (child.name or "").lower()
        if name in ("ul", "ol") and depth + level < _MAX_DEPTH:
            lines.extend(_list_lines(child, depth + 1, level + 1))
        elif name == "li":
            nested = [c.extract() for c in child.find_all(["ul", "ol"], recursive=False)]
            number += 1
            text = _flat_text(child, depth + 1)
            if text:
                lines.append(f"{'  ' * level}{f'{number}.' if ordered else '-'} {text}")
            for sub in nested:
                if depth + level < _MAX_DEPTH:
                    lines.extend(_list_lines(sub, depth + 1, level + 1))
    return lines


def pipe_table(table: Tag) -> str:
    """A ``<table>`` of an HTML page as the pipe table it stands for (as one written inside Markdown is)."""
    return _pipe_table(table, 0)


def _pipe_table(table: Tag, depth: int) -> str:
    """A ``<table>`` as a pipe table; merged cells repeated over the rows and columns they cover."""
    rows, header_rows, row_headed = _table_grid(table, depth)
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    if row_headed and width > len(rows):
        # Each row's <th> names it (勤続年数 | 6か月 | 1年6か月 …, 付与日数 | 10日 | 11日 …), and there are
        # more columns than rows: the table is written sideways, one column per record. Turned to read
        # one row per record under those names, a row says 「勤続年数: 4年6か月 / 付与日数: 16日」 on its
        # own. A taller one (所定労働時間 | 8時間, 休憩 | 60分, …) is a list of named values: as it is.
        rows, header_rows = [list(column) for column in zip(*rows, strict=True)], 1
        width = len(rows[0])
    if header_rows:
        header = [" ".join(dict.fromkeys(row[col] for row in rows[:header_rows] if row[col])) for col in range(width)]
    else:
        header = [""] * width
    body = rows[header_rows:]
    lines = [_row_line(header), "| " + " | ".join(["---"] * width) + " |"]
    lines.extend(_row_line(row) for row in body if any(row))
    caption = table.find("caption")
    lead = _flat_text(caption, depth) if caption is not None and caption.find_parent("table") is table else ""
    return f"{lead}\n\n" + "\n".join(lines) if lead else "\n".join(lines)


def _escape_pipes(cell: str) -> str:
    """A pipe inside a cell, written as pipe tables write it (``\\|``)."""
    return _CELL_SPLIT.sub(r"\\|", cell)


def _row_line(cells: list[str]) -> str:
    return "| " + " | ".join(_escape_pipes(cell) for cell in cells) + " |"


def _table_grid(table: Tag, depth: int) -> tuple[list[list[str]], int, bool]:
    """The table's rows as cell texts (merged cells filled in), how many leading rows are headers, and
    whether its headers are its rows' instead (no header row, and every row starts with a ``<th>``).

    A leading row is a header when it sits in ``<thead>`` or all its cells are ``<th>``.
    """
    rows: list[list[str]] = []
    header_rows = 0
    row_headed = True
    spanning: dict[int, tuple[int, str]] = {}  # column → (rows still covered, text)
    trs = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
    for index, tr in enumerate(trs):
        cells = tr.find_all(["td", "th"], recursive=False)
        row: list[str] = []
        for cell in cells:
            _fill_spanning(row, spanning)
            text = _flat_text(cell, depth + 1, joiner="; ")
            columns = min(max(_span(cell, "colspan"), 1), _MAX_COLSPAN)
            down = _span(cell, "rowspan") or len(trs) - index  # rowspan=0: to the end of the table
            for _ in range(columns):
                if down > 1:
                    spanning[len(row)] = (down - 1, text)
                row.append(text)
        _fill_spanning(row, spanning, to_end=True)
        is_header = tr.find_parent("thead") is not None or (cells and all(c.name == "th" for c in cells))
        if is_header and header_rows == len(rows):
            header_rows += 1
        row_headed = row_headed and bool(cells) and cells[0].name == "th" and len(cells) > 1
        rows.append(row)
    if header_rows == len(rows):
        header_rows = min(header_rows, 1) if len(rows) > 1 else 0
    return rows, header_rows, row_headed and header_rows == 0 and len(rows) > 1


def _fill_spanning(row: list[str], spanning: dict[int, tuple[int, str]], *, to_end: bool = False) -> None:
    """Put the cells merged down from rows above into ``row`` at its next columns (all remaining with ``to_end``)."""
    while len(row) in spanning or (to_end and any(col >= len(row) for col in spanning)):
        col = len(row)
        if col not in spanning:
            row.append("")
            continue
        left, text = spanning.pop(col)
        if left > 1:
            spanning[col] = (left - 1, text)
        row.append(text)


def _span(cell: Tag, attribute: str) -> int:
    """A cell's ``colspan``/``rowspan`` as browsers read it: leading digits, 1 when absent or unreadable."""
    match = re.match(r"\s*(\d{1,5})", str(cell.get(attribute, "1")))
    return int(match.group(1)) if match else 1
