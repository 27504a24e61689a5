"""The queue's flag filter says which providers can produce the fabricated-citation flags."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def test_the_flag_filter_names_the_providers_that_can_fabricate_citations(make_answer, reviewer_client):
    make_answer("捏造", confidence="low", flag_fabricated_source=True, provider="anthropic")
    html = reviewer_client.get("/admin/qa/answer/").content.decode()
    help_list = re.search(r'<dl class="rv-filter-help">(.*?)</dl>', html, re.S).group(1)
    notes = dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", help_list))
    assert set(notes) == {"存在しない出典", "引用が原文にない", "プロバイダーエラー"}
    for note in notes.values():
        assert "anthropic" in note and "gemini" in note and "extractive" in note
    assert "常に空" in notes["引用が原文にない"]  # the offline provider never produces it
    # The help sits in the flag filter, after its options.
    filter_block = html[html.index('data-filter-title="フラグ"') : html.index('<dl class="rv-filter-help">')]
    assert "存在しない出典" in filter_block


def test_the_flag_filter_help_is_in_english_for_english_readers(make_answer, reviewer_client):
    make_answer("捏造", confidence="low", flag_fabricated_quote=True)
    reviewer_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    html = reviewer_client.get("/admin/qa/answer/").content.decode()
    help_list = re.search(r'<dl class="rv-filter-help">(.*?)</dl>', html, re.S).group(1)
    assert "extractive" in help_list and "引用" not in help_list
