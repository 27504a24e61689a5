"""Hugo/Jekyll Markdown (documents/frontmatter.py): the title from front matter, no settings or shortcodes in the text."""

from __future__ import annotations

import pytest

from documents.frontmatter import markdown_page
from documents.parsing import parse_file

HUGO_PAGE = """---
title: "休暇の取り方"
upstream_path: /handbook/people-group/leave/
stale: false
---

{{% alert title="注" color="primary" %}}
申請は3日前までに行う。
{{% /alert %}}

{{< youtube abc123 >}}

## 有給休暇

有給休暇は入社6か月後に10日付与される。
"""


def test_yaml_front_matter_gives_the_title_and_is_not_in_the_text():
    page = markdown_page(HUGO_PAGE)
    assert page.title == "休暇の取り方"
    assert "upstream_path" not in page.text and "stale" not in page.text and "---" not in page.text


def test_shortcode_tags_go_and_the_text_between_paired_tags_stays():
    page = markdown_page(HUGO_PAGE)
    assert "{{" not in page.text and "}}" not in page.text
    assert "alert" not in page.text and "youtube" not in page.text and "abc123" not in page.text
    assert "申請は3日前までに行う。" in page.text
    assert "有給休暇は入社6か月後に10日付与される。" in page.text


def test_toml_front_matter():
    page = markdown_page('+++\ntitle = "経費精算"\ndate = 2024-01-01\n+++\n本文です。\n')
    assert page.title == "経費精算"
    assert page.text == "本文です。\n"


def test_front_matter_that_does_not_parse_still_gives_its_title_line():
    page = markdown_page("---\ntitle: 出張: 国内と海外\nbroken: [unclosed\n---\n本文\n")
    assert page.title == "出張: 国内と海外"
    assert page.text == "本文\n"


@pytest.mark.parametrize(
    "source",
    [
        "---\n本文の前の区切り線ではなく、閉じ線のない区切り線。\n",  # a rule, never closed
        "前置き\n---\ntitle: x\n---\n",  # not at the very start
    ],
)
def test_a_rule_that_is_not_front_matter_stays_in_the_text(source):
    page = markdown_page(source)
    assert page.title == ""
    assert page.text == source


def test_front_matter_without_a_title_gives_none():
    page = markdown_page("---\ntags: [a, b]\n---\n# 見出し\n")
    assert page.title == ""
    assert page.text == "# 見出し\n"


def test_the_markdown_parser_uses_it_and_headings_point_into_the_shown_text():
    parsed = parse_file("leave.md", HUGO_PAGE.encode())
    assert parsed.title == "休暇の取り方"
    assert "title:" not in parsed.text and "{{%" not in parsed.text
    heading = parsed.headings[0]
    assert heading.title == "有給休暇"
    assert parsed.text[heading.start :].startswith("## 有給休暇")


@pytest.mark.parametrize(
    ("line", "title"),
    [
        ("## 社内コミュニケーション {#internal-communication}", "社内コミュニケーション"),
        ("## 休暇の申請 {: #apply .note}", "休暇の申請"),
        ("### Q&A {#faq .unnumbered}", "Q&A"),
        ("## 集合 {10:00}", "集合 {10:00}"),
    ],
)
def test_a_headings_attribute_block_is_not_part_of_its_section_name(line, title):
    # Hugo, Jekyll (kramdown) and Pandoc pages give headings ids this way; footnotes showed
    # 「社内コミュニケーション {#internal-communication}」 as the section, and calibration asked about it.
    parsed = parse_file("handbook.md", f"{line}\n\n本文です。\n".encode())
    assert [h.title for h in parsed.headings] == [title]
    assert parsed.text.startswith(f"{line[: line.index(' ')]} {title}\n")
    # Underlined (setext) headings too, and only the heading: a brace in the body is text.
    parsed = parse_file("handbook.md", f"{title} {{#x}}\n===\n\n本文 {{#y}}\n".encode())
    assert [h.title for h in parsed.headings] == [title]
    assert "本文 {#y}" in parsed.text


def test_only_markdown_reads_front_matter():
    parsed = parse_file("notes.txt", b"---\ntitle: x\n---\nbody\n")
    # In plain text the lines are text: the title is the line after the rule as written, not the YAML value "x".
    assert parsed.title == "title: x"
    assert parsed.text.startswith("---\ntitle: x")
