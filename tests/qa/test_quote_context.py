"""A footnote's context as plain text cut at sentence boundaries (qa.quote_context, no database)."""

from __future__ import annotations

from qa.quote_context import (
    ELLIPSIS,
    STORED_CHARS,
    STORED_MAX_CHARS,
    context_is_whole,
    plain_text,
    quote_in_context,
    stored_context,
)


def test_a_list_item_under_a_heading_shows_no_markdown():
    shown = quote_in_context(
        "## 有給休暇\n- ",
        "有給休暇は入社6ヶ月後に10日付与されます",
        "\n- 有給申請は最低3日前までに申請してください\n- 申請は社内システム「勤怠くん」から行います",
        before_is_whole=True,
        after_is_whole=True,
    )
    assert shown.before == ""
    assert shown.quote == "有給休暇は入社6ヶ月後に10日付与されます"
    assert shown.after == "\n有給申請は最低3日前までに申請してください\n申請は社内システム「勤怠くん」から行います"
    assert "#" not in shown.after and "- " not in shown.after


def test_context_cut_mid_phrase_starts_at_the_next_sentence():
    # The stored window began inside 「（日当の改定、日帰り日当の新設）」: the reader sees whole sentences only.
    before = "の改定、日帰り日当の新設）\n\n本規程は出張の手続きを定めます。"
    shown = quote_in_context(before, "宿泊費の上限は1泊12,000円です。", "", before_is_whole=False, after_is_whole=True)
    assert shown.before == "本規程は出張の手続きを定めます。"


def test_context_after_a_quote_ends_at_the_last_whole_sentence():
    after = "申請時に比較したホテルの料金を添付してください。領収書は原本を提出し、電子"
    shown = quote_in_context("", "上限は1泊18,000円です。", after, before_is_whole=True, after_is_whole=False)
    assert shown.after == "申請時に比較したホテルの料金を添付してください。"


def test_table_rows_read_as_their_cells():
    before = "できません。\n\n| 区分 | 一般社員 | 役員 |\n|---|---|---|\n| 宿泊を伴う国内出張（1日あたり） | 2,500円 | 4,000円 |\n"
    shown = quote_in_context(
        before, "| 日帰りの国内出張 | 1,250円 | 2,000円 |", "\n| 海外出張 | 7,000円 | 10,000円 |",
        before_is_whole=False, after_is_whole=True,
    )  # fmt: skip
    assert shown.before == "区分 / 一般社員 / 役員\n宿泊を伴う国内出張（1日あたり） / 2,500円 / 4,000円\n"
    assert shown.quote == "日帰りの国内出張 / 1,250円 / 2,000円"
    assert shown.after == "\n海外出張 / 7,000円 / 10,000円"
    assert "|" not in shown.before + shown.quote + shown.after and "---" not in shown.before


def test_a_window_without_any_sentence_boundary_is_marked_as_cut():
    shown = quote_in_context("手続きの詳細は部門ごとに", "異なります", "が、原則として", before_is_whole=False,
                             after_is_whole=False)  # fmt: skip
    assert shown.before == ELLIPSIS + "手続きの詳細は部門ごとに"
    assert shown.after == "が、原則として" + ELLIPSIS


def test_emphasis_links_and_quote_markers_become_their_words():
    assert (
        plain_text("> **必ず**[申請フォーム](https://example.com)から`提出`する。") == "必ず申請フォームから提出する。"
    )


def test_long_context_keeps_at_most_the_limit_around_the_quote():
    before = "あ" * 50 + "。" + "い" * 300 + "。"
    shown = quote_in_context(before, "引用。", "", before_is_whole=True, after_is_whole=True, limit=160)
    assert len(shown.before) <= 160
    assert shown.before == ""  # the one sentence in the window is longer than the limit: nothing half-shown


def test_stored_context_widens_to_the_start_of_the_sentence_it_begins_in():
    lead_in = "- 紛失に気づいたら、" + "あ" * 75 + "してください。"
    text = "## 5. 紛失\n" + lead_in + "端末をロックします。\n- 次の項目です。"
    start = text.index("端末")
    before, after = stored_context(text, start, start + len("端末をロックします。"))
    assert before == lead_in  # the base window began inside 「紛失に気づいたら」: widened to the line start
    assert after == "\n- 次の項目です。"
    assert context_is_whole(before, reaches_chunk_edge=False)
    shown = quote_in_context(before, "端末をロックします。", after, before_is_whole=True, after_is_whole=True)
    assert shown.before.startswith("紛失に気づいたら、")


def test_stored_context_without_a_boundary_in_reach_keeps_the_base_window():
    text = "い" * (STORED_MAX_CHARS + 50) + "引用です。"
    start = text.index("引用")
    before, _after = stored_context(text, start, len(text))
    assert len(before) == STORED_CHARS
    assert not context_is_whole(before, reaches_chunk_edge=False)
