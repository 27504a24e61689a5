"""The offline extractive provider: quotes, exact offsets, abstention, determinism."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from qa.providers.base import ABSTAIN_EN, ABSTAIN_JA
from verification.grounding import ENGLISH_LEAD_IN
from qa.providers.extractive import ExtractiveProvider, _best_item_under, _Meanings, _only_a_link, table_answer
from qa.question import analyse_question

from .conftest import LEAVE_TEXT, make_chunk


def _spans(answer):
    return [(c.chunk_index, c.start, c.end) for b in answer.blocks for c in b.citations]


def test_every_block_is_a_quoted_sentence_cited_by_exact_offsets(policy_chunks):
    answer = ExtractiveProvider().generate("有給休暇の申請方法は？", policy_chunks)
    assert not answer.abstained and answer.provider == "extractive"
    assert 1 <= len(answer.blocks) <= 3
    for block in answer.blocks:
        [citation] = block.citations
        chunk_text = policy_chunks[citation.chunk_index].text
        assert chunk_text[citation.start : citation.end] == citation.cited_text
        assert block.text.strip() == citation.cited_text
    assert "申請" in answer.text


def test_how_many_days_picks_the_sentence_with_the_number_of_days(policy_chunks):
    answer = ExtractiveProvider().generate("有給休暇は何日もらえますか？", policy_chunks)
    sentence = "有給休暇は入社6ヶ月後に10日付与されます"
    start = LEAVE_TEXT.index(sentence)
    assert answer.blocks[0].text.startswith(sentence)
    assert _spans(answer)[0] == (0, start, start + len(sentence))


def test_sentence_with_the_asked_fact_completes_a_topic_only_match():
    chunk = make_chunk(
        0,
        "新入社員研修は、新入社員全員が入社後に受ける研修です。研修の期間は10日です。",
        "training.md",
        "研修",
    )
    answer = ExtractiveProvider().generate("新入社員研修は何日ですか？", [chunk])
    assert [b.text for b in answer.blocks] == [
        "新入社員研修は、新入社員全員が入社後に受ける研修です。",
        "研修の期間は10日です。",
    ]


def test_a_sentence_cut_out_of_a_bold_passage_is_quoted_without_a_lone_pair_of_asterisks():
    # Bold over two sentences: the first quoted sentence keeps only the opening marker, which
    # Markdown would show as two asterisks before 「休職」.
    text = "## 休職\n**休職期間中の給与は無給とします。復職の可否は産業医の面談で判断します。**\n"
    chunk = make_chunk(0, text, "leave.md", "休職")
    for question, shown in (
        ("休職期間中の給与は？", "休職期間中の給与は無給とします。"),
        ("復職の可否は誰が判断しますか？", "復職の可否は産業医の面談で判断します。"),
    ):
        answer = ExtractiveProvider().generate(question, [chunk])
        [block] = [b for b in answer.blocks if shown in b.text]
        assert block.text.strip() == shown
        # The citation still quotes the document's text as it is.
        [citation] = block.citations
        assert text[citation.start : citation.end] == citation.cited_text


def test_a_documents_own_question_is_answered_by_what_follows_it():
    """An FAQ's question matches the asker's words best; its answer is the sentences after it, not the next question."""
    chunk = make_chunk(
        0,
        "**Q: 初日までに会社のノートパソコンが届かない場合はどうすればよいですか？**\n\n"
        "A: 一時的に個人のノートパソコンを使用して構いません。届くまでセットアップ作業は延期してください。\n\n"
        "**Q: 購入したモニターの払い戻しはどう受けますか？**\n\nA: 経費として申請してください。",
        "onboarding-faq.md",
        "よくある質問",
    )
    answer = ExtractiveProvider().generate("初日までにノートPCが届かなかったらどうすればいい？", [chunk])
    texts = [b.text.strip() for b in answer.blocks]
    assert texts[0].endswith("どうすればよいですか？")
    assert "A: 一時的に個人のノートパソコンを使用して構いません。" in texts
    assert not any("モニター" in t or "経費として" in t for t in texts)
    # Marked 「Q:」 without a question mark (「結婚して姓が変わります。」), it is still the question its 「A:」 line
    # answers, not a statement needing the end of the answer before it.
    marked = replace(
        chunk,
        text="Q: 引っ越しをしたら何を提出すればいいですか。\n"
        "A: 転居日から2週間以内に「住所変更届」を提出してください。通勤経路が変わる人は「通勤手当申請」も必要です。\n\n"
        "Q: 結婚して姓が変わります。\nA: ハコブネで「氏名変更届」を提出してください。業務上は旧姓を使い続けることもできます。",
    )
    answer = ExtractiveProvider().generate("結婚して苗字が変わるんだけど、会社に何か出す必要ある？", [marked])
    texts = [b.text.strip() for b in answer.blocks]
    assert texts[:2] == ["Q: 結婚して姓が変わります。", "A: ハコブネで「氏名変更届」を提出してください。"]
    assert "通勤手当申請" not in answer.text


def test_answer_follows_the_best_chunk_not_the_first(policy_chunks):
    answer = ExtractiveProvider().generate("体調不良のときはいつまでに連絡すればいい？", policy_chunks)
    assert _spans(answer)[0][0] == 1
    assert answer.blocks[0].text.startswith("体調不良の場合は当日朝9:00までに連絡すれば問題ありません")


def test_unrelated_question_abstains_in_japanese(policy_chunks):
    answer = ExtractiveProvider().generate("社員食堂のメニューは？", policy_chunks)
    assert answer.abstained
    assert answer.text == ABSTAIN_JA
    assert answer.blocks[0].citations == []


def test_unrelated_question_abstains_in_english(policy_chunks):
    answer = ExtractiveProvider().generate("What is on the cafeteria menu?", policy_chunks)
    assert answer.abstained and answer.text == ABSTAIN_EN


def test_english_question_answers_through_japanese_expansion_terms(policy_chunks):
    answer = ExtractiveProvider().generate(
        "How many days of paid leave do I get?", policy_chunks, expanded_terms=["有給休暇", "付与"]
    )
    assert not answer.abstained
    # The Japanese quotes stand under an English lead-in that cites nothing.
    assert answer.blocks[0].text.strip() == ENGLISH_LEAD_IN and answer.blocks[0].citations == []
    assert answer.blocks[1].text.startswith("有給休暇は入社6ヶ月後に10日付与されます")


def test_expansion_terms_rescue_a_synonym_question(policy_chunks):
    plain = ExtractiveProvider().generate("年休の付与日数は？", policy_chunks)
    expanded = ExtractiveProvider().generate("年休の付与日数は？", policy_chunks, expanded_terms=["有給休暇"])
    assert expanded.blocks[0].text.startswith("有給休暇は入社6ヶ月後に10日付与されます")
    assert expanded.usage["best_lexical"] > (plain.usage.get("best_lexical") or 0)


def test_no_chunks_abstains():
    answer = ExtractiveProvider().generate("有給休暇は何日？", [])
    assert answer.abstained and answer.text == ABSTAIN_JA


def test_headings_are_never_quoted(policy_chunks):
    answer = ExtractiveProvider().generate("有給休暇", policy_chunks)
    assert all(
        not c.cited_text.startswith("#") and c.cited_text != "有給休暇" for b in answer.blocks for c in b.citations
    )


def test_strict_answers_with_one_sentence(policy_chunks):
    normal = ExtractiveProvider().generate("有給休暇の申請方法は？", policy_chunks)
    strict = ExtractiveProvider().generate("有給休暇の申請方法は？", policy_chunks, strict=True)
    assert len(normal.blocks) > 1
    assert len(strict.blocks) == 1 and strict.blocks[0].citations[0].located


def test_list_items_are_joined_by_line_breaks_not_run_together(policy_chunks):
    answer = ExtractiveProvider().generate("有給休暇の申請方法は？", policy_chunks)
    assert "\n" in answer.text and "ください申請" not in answer.text


def test_same_input_gives_the_same_answer(policy_chunks):
    provider = ExtractiveProvider()
    first = provider.generate("遅刻するときは誰に連絡しますか？", policy_chunks)
    second = ExtractiveProvider().generate("遅刻するときは誰に連絡しますか？", list(policy_chunks))
    assert [(b.text, b.citations) for b in first.blocks] == [(b.text, b.citations) for b in second.blocks]
    assert "上長" in first.text


def test_pronoun_sentence_brings_its_antecedent():
    chunk = make_chunk(
        0,
        "勤怠くんは社内の勤怠管理システムです。これは毎月末に締め処理を行います。",
        "it_support.md",
        "システム",
    )
    answer = ExtractiveProvider().generate("毎月末に締め処理を行うのは？", [chunk])
    assert answer.text.startswith("勤怠くんは社内の勤怠管理システムです。")
    assert _spans(answer) == [(0, 0, 19), (0, 19, 36)]


def test_a_chain_of_pronouns_is_followed_back_to_the_sentence_that_names_its_subject():
    """「同組合は…」 after 「同組合は…」: the first 同組合 is named only in the sentence before both."""
    text = (
        "AOBA労働組合は、2010年に設立された社員の組合である。"
        "同組合は、毎年春に賃金交渉を行う。"
        "同組合は、在宅勤務手当の拡充を会社に求める活動もしている。"
    )
    chunk = make_chunk(0, text, "union.md", "労働組合")
    answer = ExtractiveProvider().generate("在宅勤務手当の拡充を会社に求めているのは何という組合？", [chunk])
    assert answer.text.startswith("AOBA労働組合は、")
    assert "在宅勤務手当の拡充" in answer.text


def test_a_first_sentence_that_only_restates_the_question_is_quoted_with_the_next_one():
    """Nothing before it says more, so the sentence after it does: 「広報部所属。」 then what the person is."""
    chunk = make_chunk(0, "広報部所属。2021年4月より社内報の編集長。", "people.md", "山田")
    answer = ExtractiveProvider().generate("広報部所属の人は何をしている？", [chunk])
    assert "社内報の編集長" in answer.text


def test_a_sentence_that_names_what_the_best_one_describes_is_kept_after_its_context():
    """「…働き方もある。これを…と呼ぶ。」: the sentence after, pointing back, holds the name asked for.

    The context before the best sentence (its own chain of 「この場合」 and 「また」) leaves it room.
    """
    text = (
        "当社の勤務時間は部署ごとに定める。"
        "この場合、始業と終業の時刻は就業規則に書く。"
        "また、始業時刻を決めない働き方もある。"
        "これをフレックスタイム制と呼ぶ。"
    )
    chunk = make_chunk(0, text, "work_hours.md", "勤務時間")
    answer = ExtractiveProvider().generate("始業時刻を決めない働き方は何と呼ばれますか？", [chunk])
    texts = [b.text.strip() for b in answer.blocks]
    assert "また、始業時刻を決めない働き方もある。" in texts
    assert texts[-1] == "これをフレックスタイム制と呼ぶ。"


def test_question_language_detection_keeps_japanese_with_latin_words(policy_chunks):
    answer = ExtractiveProvider().generate("VPNの社員食堂メニューは？", policy_chunks)
    assert answer.text == ABSTAIN_JA


def test_amount_question_ranks_the_sentence_with_the_amount_first():
    chunk = make_chunk(0, "出張の日当は規定に従って支給されます。出張の日当は1日3000円です。", "expense.md", "出張")
    answer = ExtractiveProvider().generate("出張の日当はいくら？", [chunk])
    assert answer.blocks[0].text.startswith("出張の日当は1日3000円です。")


LEAVE_TABLE = (
    "### 勤続年数ごとの付与日数\n次の日数が付与されます。\n\n| 勤続年数 | 付与日数 |\n|---|---|\n"
    "| 6ヶ月 | 10日 |\n| 1年6ヶ月 | 11日 |\n| 2年6ヶ月 | 12日 |\n| 3年6ヶ月 | 14日 |\n"
)


def test_a_table_answer_is_a_row_under_its_header_never_a_bare_header_or_separator():
    chunk = make_chunk(0, LEAVE_TABLE, "leave.md", section="勤続年数ごとの付与日数")
    answer = ExtractiveProvider().generate("勤続年数が2年6ヶ月のとき付与日数は何日ですか？", [chunk])
    assert not answer.abstained
    assert "勤続年数: 2年6ヶ月 / 付与日数: 12日" in answer.text
    assert "|---|" not in answer.text and "| 勤続年数 | 付与日数 |" not in answer.text
    row = "| 2年6ヶ月 | 12日 |"
    citation = next(c for b in answer.blocks for c in b.citations if c.cited_text == row)
    assert LEAVE_TABLE[citation.start : citation.end] == row


def test_a_row_with_an_empty_cell_is_shown_without_it_and_each_row_on_its_own_line():
    """「| 3年以上5年未満 | 16日 |  |」 under 「| 勤続年数 | 付与日数 | 備考 |」: no 「備考: 」 left hanging, no row run into the next."""
    table = (
        "### 付与日数\n| 勤続年数 | 付与日数 | 備考 |\n|---|---|---|\n| 1年未満 | 10日 | 入社日に付与 |\n"
        "| 1年以上3年未満 | 12日 |  |\n| 3年以上5年未満 | 16日 |  |\n"
    )
    assert (
        table_answer(("勤続年数", "付与日数", "備考"), "| 3年以上5年未満 | 16日 |  |")
        == "勤続年数: 3年以上5年未満 / 付与日数: 16日"
    )
    answer = ExtractiveProvider().generate(
        "勤続年数が4年のとき付与日数は何日ですか？", [make_chunk(0, table, "leave.md", section="付与日数")]
    )
    shown = [line for line in answer.text.splitlines() if "付与日数: " in line]
    assert shown and all(line.count("勤続年数: ") == 1 and not line.rstrip().endswith(":") for line in shown), (
        answer.text
    )


COMMUTE_TABLE = (
    "### 第12条（通勤手当）\n自家用車で通勤する者には、片道の通勤距離に応じて次の額を支給する。\n\n"
    "| 片道通勤距離 | 月額 |\n|---|---|\n| 2km以上10km未満 | 4,200円 |\n| 10km以上15km未満 | 7,100円 |\n"
    "| 15km以上25km未満 | 12,900円 |\n| 25km以上 | 18,700円 |\n"
)


def test_a_quantity_the_question_states_picks_the_table_row_whose_bracket_holds_it():
    """「片道12km」 is in no row as written: the row of 10km以上15km未満 holds it, and its amount answers."""
    chunk = make_chunk(0, COMMUTE_TABLE, "wages.md", section="第12条（通勤手当）")
    answer = ExtractiveProvider().generate("自家用車で片道12km通勤しています。通勤手当は月いくら？", [chunk])
    assert not answer.abstained
    assert "片道通勤距離: 10km以上15km未満 / 月額: 7,100円" in answer.text
    assert "4,200円" not in answer.text and "12,900円" not in answer.text


OVERTIME_ARTICLE = (
    "時間外勤務手当は、所定労働時間を超えて勤務した時間について支給する。\n"
    "割増率は25％とし、基礎時間単価に乗じて計算する。\n"
    "２　1か月の時間外勤務が60時間を超えた部分の割増率は50％とする。\n"
)


@pytest.mark.parametrize(
    ("question", "first"),
    [
        # The exception (beyond 60 hours a month) matches the question's words best, but answers only that case.
        ("残業代って、普段の時給の何割増しだっけ？", "割増率は25％とし"),
        # A question that states the case gets the exception.
        (
            "残業が月60時間を超えたら、割増率は何％になりますか？",
            "２\u30001か月の時間外勤務が60時間を超えた部分の割増率は50％",
        ),
    ],
)
def test_asked_in_general_the_rule_answers_before_its_exception(question: str, first: str) -> None:
    chunk = make_chunk(0, OVERTIME_ARTICLE, "wages.md", section="第20条（割増賃金）")
    assert ExtractiveProvider().generate(question, [chunk]).blocks[0].text.startswith(first)


REFERENCE_CHECKS = (
    "リファレンスは面接の終わりに集めます。\n"
    "3 つのリファレンスが要求され、少なくとも 1 つは過去のマネージャーである必要があります。\n"
    "マネージャーが 1 人しかおらず、現在の会社にいる場合は、マネージャーのリファレンスを省いて構いません"
    "（ただし、合計で少なくとも 2 人分のリファレンスが必要です）。\n"
)


def test_asked_in_general_the_rule_answers_before_the_case_a_clause_sets() -> None:
    """「…場合は」 sets the case its sentence is for, as 「60時間を超えた部分」 does: its 2 人分 matches 「何人分」 best,
    and had been the whole answer to a question asked in general (the gitlab handbook's, at 高)."""
    chunk = make_chunk(0, REFERENCE_CHECKS, "hiring.md", section="リファレンス")
    blocks = [
        b.text for b in ExtractiveProvider().generate("候補者にはリファレンスを何人分求めますか？", [chunk]).blocks
    ]
    assert blocks[0].startswith("3 つのリファレンスが要求され")
    assert any(b.startswith("マネージャーが 1 人しかおらず") for b in blocks[1:])


def test_a_sentence_that_only_points_elsewhere_loses_to_the_content_it_points_to():
    pointer = make_chunk(
        0, "パスワードを忘れた場合の再設定方法は「ITサポートガイド」(it_support.md) を参照してください。", "security.md"
    )
    content = make_chunk(
        1,
        "パスワードを忘れた場合は、パスワードリセット画面から再設定するか、ITヘルプデスク（内線1234）に連絡してください。",
        "it_support.md",
    )
    answer = ExtractiveProvider().generate("パスワードを忘れたらどうすればいい？", [pointer, content])
    assert answer.blocks[0].text.startswith("パスワードを忘れた場合は、パスワードリセット画面")


def test_a_sentence_naming_another_retrieved_document_by_its_title_points_to_it():
    steps = replace(
        make_chunk(
            0,
            "1. 「ITサポートガイド」の「PCの不具合」の手順を試してください。\n"
            "2. 解決しない場合は、ITヘルプデスクでチケットを発行してください。",
            "equipment.md",
            "PCが故障したとき",
        ),
        title="備品・PC貸与ガイド",
    )
    guide = replace(
        make_chunk(
            1, "- まずはPCを再起動してください\n- 解決しない場合はITサポートに連絡してください", "it_support.md"
        ),
        section="PCの不具合",
        title="ITサポートガイド",
    )
    # The portal searches パソコン as the documents' PC (its vocabulary); the terms come with the question.
    terms = ["PC", "不具合"]
    answer = ExtractiveProvider().generate(
        "パソコンの調子がおかしいとき、最初に試すことは？", [steps, guide], expanded_terms=terms
    )
    assert "まずはPCを再起動してください" in answer.text
    # The same sentence when no retrieved document has that title: what it says counts as an answer again.
    elsewhere = replace(guide, title="ヘルプデスクのご案内")
    answer = ExtractiveProvider().generate(
        "パソコンの調子がおかしいとき、最初に試すことは？", [steps, elsewhere], expanded_terms=terms
    )
    assert answer.blocks[0].text.startswith("「ITサポートガイド」の「PCの不具合」の手順")


def test_a_list_item_is_read_with_the_item_it_is_nested_in():
    # Two lists of the same shape: which 「海外」 item answers depends on the item each is nested in.
    chunk = make_chunk(
        0,
        "- 社外研修は、次の期限までに申し込みます。\n"
        "  - 国内：開催の14日前\n"
        "  - 海外：開催の30日前\n"
        "- 出張の航空券は、次のタイミングで予約します。\n"
        "  - 国内：出発の7日前\n"
        "  - 海外：出発の21日前\n",
        "travel.md",
        "期限",
    )
    answer = ExtractiveProvider().generate("海外の社外研修は何日前までに申し込む？", [chunk])
    # The sentence leading into the list, then its item the question names (not the first item).
    assert answer.text.startswith("社外研修は、次の期限までに申し込みます。海外：開催の30日前")
    assert "21日前" not in answer.text


def test_a_list_item_that_answers_only_read_with_the_sentence_introducing_its_list_is_quoted_under_it():
    """「国際：少なくとも21日前」 alone shares one word with the question and means little; read with
    「出張者は…以下のタイミングで予約します」 it answers 「国際線は何日前までに予約する？」, and is
    quoted under that sentence. A question the list does not answer still finds nothing."""
    chunk = make_chunk(
        0,
        "出張者は理想的には以下のタイミングで予約します。\n- 国内：少なくとも14日前\n- 国際：少なくとも21日前",
        "travel.md",
        "出張",
    )
    answer = ExtractiveProvider().generate("国際線の飛行機は出発の何日前までに予約する？", [chunk])
    assert not answer.abstained
    assert answer.text == "出張者は理想的には以下のタイミングで予約します。国際：少なくとも21日前"
    assert ExtractiveProvider().generate("有給休暇は何日前までに申請する？", [chunk]).abstained


@pytest.mark.parametrize(
    ("text", "heading", "question", "start"),
    [
        # Not after the item above it (「国内線：出発の7日前」), which the question did not ask about.
        (
            "出張の手配は総務部が行います。\n\n航空券は、次のタイミングまでに予約します：\n\n"
            "- 国内線：出発の7日前\n- 国際線：出発の21日前\n\n宿泊は契約ホテルを使います。",
            "出張",
            "国際線は出発の何日前までに予約？",
            "航空券は、次のタイミングまでに予約します：\n国際線：出発の21日前",
        ),
        # Answering by itself, 「駐車違反の放置違反金」 alone reads as if such fines were paid: the sentence
        # introducing its list says they are not.
        (
            "次の費用は精算の対象としない。\n（１）私用を含む費用で、業務分を区分できないもの\n"
            "（２）交通違反の反則金及び駐車違反の放置違反金\n（３）自宅の光熱費・通信費",
            "対象とならない費用",
            "営業車で駐車違反の放置違反金を払った。経費で落ちる？",
            "次の費用は精算の対象としない。交通違反の反則金及び駐車違反の放置違反金",
        ),
        # A label ending in a colon says nothing the item does not: the item answers alone.
        (
            "**ステップ 2**：\n- 領収書を Navan で経費請求します。",
            "健康診断",
            "健康診断の費用は Navan で経費請求する？",
            "領収書を Navan で経費請求します。",
        ),
    ],
    ids=["cannot-stand-alone", "list-says-what-of-it", "label-only"],
)
def test_a_list_item_is_quoted_under_the_sentence_saying_what_its_list_is(text, heading, question, start):
    chunk = make_chunk(0, text, "rules.md", heading)
    assert ExtractiveProvider().generate(question, [chunk]).text.startswith(start)


def test_a_question_for_the_first_step_gets_the_first_step_that_says_what_is_asked():
    chunk = make_chunk(
        0,
        "作業中に負傷した場合は、次の手順で報告しなければならない。\n"
        "（１）被災者の救護を最優先とし、必要に応じて119番通報する\n"
        "（２）直ちに班長に報告し、班長は安全衛生課に連絡する\n"
        "（３）所属課長は、発生日から3日以内に報告書を作成し、工場長に提出する",
        "safety.md",
        "労働災害の報告",
    )
    answer = ExtractiveProvider().generate("工場でケガしちゃった。まず誰に言えばいい？", [chunk])
    # Who first: step (2), the first step naming someone to tell; not step (3), which shares more words.
    assert "直ちに班長に報告し" in answer.text and "所属課長" not in answer.text
    # Asked without 「まず」, the step that fits the question best answers, as before.
    answer = ExtractiveProvider().generate("労災の報告書は誰が作って誰に出す？", [chunk])
    assert "所属課長は、発生日から3日以内に報告書を作成し" in answer.text


def test_each_quantity_a_two_part_question_asks_for_gets_a_sentence():
    chunk = make_chunk(
        0,
        "リモートワークは週3日まで実施できます。実施には上長の承認が必要です。"
        "在宅勤務手当として月額4,000円を支給します。",
        "remote_work.md",
    )
    answer = ExtractiveProvider().generate("在宅勤務は週何日までできて、手当は月いくらですか？", [chunk])
    assert "週3日まで" in answer.text and "4,000円" in answer.text


def test_the_answer_to_a_documents_own_question_reads_that_questions_words():
    """An FAQ's answer (「過去30日以内…」) shares none of the asker's words: its question does.

    Read with its question it carries the number of days asked for, and wins over a
    first-ranked sentence that shares the words but states nothing; it is quoted under its question.
    """
    chunks = [
        make_chunk(0, "休暇の入力を間違えないように注意してください。休暇は勤怠システムで入力します。", "leave.md"),
        replace(
            make_chunk(1, "**休暇の入力を間違えたときは？**\n過去30日以内のエントリは各自で編集できます。", "faq.md"),
            score=0.9,
        ),
    ]
    answer = ExtractiveProvider(meaning=False).generate("休暇の入力を間違えたら何日前の分まで直せる？", chunks)
    texts = [b.text.strip() for b in answer.blocks]
    assert texts[-1] == "過去30日以内のエントリは各自で編集できます。"
    assert texts[0].endswith("間違えたときは？")


def test_a_sentence_opening_with_a_word_pointing_back_is_read_with_the_sentence_before():
    """「そのため、毎年最大5万円を…」 states the amount for what the sentence before it names
    (資格取得): it answers 「資格取得の補助はいくら？」, not the first chunk's amount for something else."""
    chunks = [
        make_chunk(0, "健康診断は毎年受けてください。健康診断の費用は1万円まで会社が負担します。", "health.md"),
        replace(
            make_chunk(1, "会社は社員の資格取得を応援しています。そのため、毎年最大5万円を支給します。", "growth.md"),
            score=0.9,
        ),
    ]
    answer = ExtractiveProvider(meaning=False).generate("資格取得の補助はいくら？", chunks)
    assert [b.text for b in answer.blocks] == [
        "会社は社員の資格取得を応援しています。",
        "そのため、毎年最大5万円を支給します。",
    ]


def test_a_sentence_ranked_first_only_for_its_fact_and_chunk_does_not_keep_the_answer_from_being_given():
    """The best chunk's cost sentence is about something else (health insurance) and fails the bar;
    the sentence about スキルアップ shares the question's words and is closer in meaning, so it
    answers, with the amount its chunk states."""
    chunks = [
        make_chunk(
            0, "## 健康保険\n\n補完医療の年間費用は、本人負担が24ユーロ、会社負担が120ユーロです。", "health.md"
        ),
        make_chunk(
            1,
            "## 成長のための基金\n\nあなたの成長は私たちにとって重要です。"
            "そのため、当社では毎年最大10,000ドルをキャリア開発のために提供しています。\n\n"
            "新しい資格でスキルアップしたい場合、この基金の補助を使えます。",
            "growth.md",
        ),
    ]
    answer = ExtractiveProvider().generate("スキルアップのための補助は年間いくらまで使える？", chunks)
    assert not answer.abstained
    assert "10,000ドル" in answer.text
    assert "ユーロ" not in answer.text


def test_shared_words_do_not_answer_when_a_sentence_above_is_closer_in_meaning():
    """Words in common with a table row (評価, and the expansion 人事評価) are chance when sentences ranked
    above it, which fail the bar, are closer to the question in meaning: nothing is quoted."""
    chunks = [
        make_chunk(
            0,
            "## 保存期間\n\n| 情報 | 保存期間 |\n|---|---|\n| 応募書類 | 選考終了から6ヶ月 |\n| 人事記録 | 退職日から5年 |",
        ),
        make_chunk(1, "## 分類\n\n| 分類 | 例 |\n|---|---|\n| 極秘 | 決算情報、人事評価 |", "security.md"),
    ]
    answer = ExtractiveProvider().generate(
        "上期の評価期間はいつからいつまでですか？", chunks, expanded_terms=["人事評価"]
    )
    assert answer.abstained
    assert "人事評価" not in answer.text


def test_a_runner_up_already_said_inside_a_quoted_sentence_is_not_quoted_again():
    chunk = make_chunk(
        0,
        "### ポモドーロテクニック\n\n"
        "ポモドーロテクニックは、時間を作業と休憩に分ける時間管理の方法です。"
        "作業を25分、休憩を5分とします。",
        "apps.md",
        "生産性 > ポモドーロテクニック",
    )
    answer = ExtractiveProvider().generate("ポモドーロテクニックってどういうやり方？", [chunk])
    texts = [b.text.strip() for b in answer.blocks]
    assert texts[0].startswith("ポモドーロテクニックは、")
    assert "ポモドーロテクニック" not in texts[1:]


def test_a_numbered_heading_already_said_by_a_quoted_sentence_is_not_quoted_after_it():
    """「3.4 試用期間」 after 「試用期間は入社日から3ヶ月です。」 adds nothing but a number the check cannot place."""
    chunk = make_chunk(
        0,
        "### 3.4 試用期間\n試用期間は入社日から3ヶ月です。給与・勤務条件は本採用後と同じです。"
        "リモートワークは原則として試用期間の終了後から利用できます。",
        "onboarding.md",
        "入社ガイド > 3.4 試用期間",
    )
    answer = ExtractiveProvider().generate("How long is the probation period?", [chunk], expanded_terms=["試用期間"])
    texts = [b.text.strip() for b in answer.blocks]
    assert any(text.startswith("試用期間は入社日から3ヶ月です。") for text in texts), texts
    assert "3.4 試用期間" not in texts


def test_an_amount_per_the_unit_asked_answers_a_rate_question():
    """「per night」 is answered by the amount stated per night, not by another hotel rule with a number."""
    chunks = [
        make_chunk(
            0, "## ホテル\n\nホテルに5泊以上滞在する場合、ドライクリーニングが許可されます。", "travel.md", "ホテル"
        ),
        replace(
            make_chunk(1, "## ホテル\n\nホテルの価格は通常300USD/泊の範囲内です。", "travel.md", "ホテル"), score=1.0
        ),
    ]
    answer = ExtractiveProvider().generate(
        "What is the hotel limit per night?", chunks, expanded_terms=["ホテル"], strict=True
    )
    assert "300USD/泊" in answer.text
    assert "ドライクリーニング" not in answer.text


def test_the_other_cases_of_an_asked_amount_in_the_same_section_are_quoted_before_another_sections():
    # 「ホテルは一晩いくらまで？」 does not say abroad or at home: the section states both limits.
    # The daily allowances of the next section score close too, and quoted instead of the
    # domestic limit they answered the question for travel abroad only.
    lodging = make_chunk(
        0,
        "海外出張の宿泊費は上限1泊25,000円です。"
        "会社が法人契約しているホテルは社内ポータルで確認できます。"
        "国内の宿泊費は上限1泊15,000円（税込）の実費精算です。",
        "travel.md",
        "出張旅費規程 > 宿泊費",
    )
    allowance = replace(
        make_chunk(
            1,
            "宿泊を伴う出張の日当は1日2,500円です。海外出張の日当は1日7,000円です。",
            "travel.md",
            "出張旅費規程 > 日当",
        ),
        document_id=10,
        score=0.95,
    )
    answer = ExtractiveProvider().generate("出張のホテルは一晩いくらまで泊まれる？", [lodging, allowance])
    assert [b.text for b in answer.blocks][:2] == [
        "海外出張の宿泊費は上限1泊25,000円です。",
        "国内の宿泊費は上限1泊15,000円（税込）の実費精算です。",
    ]


def test_two_sentences_read_together_are_as_close_to_the_question_as_the_sum_of_their_vectors():
    """_Meanings.read_together needs no new embedding: from the two similarities and the two vectors."""
    rng = np.random.default_rng(7)
    question, *sentences = (v / np.linalg.norm(v) for v in rng.normal(size=(3, 384)))
    meanings = _Meanings([float(s @ question) for s in sentences], np.stack(sentences))
    together = sentences[0] + sentences[1]
    assert meanings.read_together(0, 1) == pytest.approx(float(together @ question) / np.linalg.norm(together))
    assert meanings.of(1) == pytest.approx(float(sentences[1] @ question))
    assert meanings.read_together(0, 5) == 0.0 and meanings.of(5) == 0.0


LEAVE_OF_ABSENCE = (
    "私傷病休職の期間は、休職発令日における勤続年数に応じ、次のとおりとする。\n\n"
    "| 勤続年数 | 休職期間 |\n|---|---|\n| 1年未満 | 休職の対象としない |\n| 1年以上3年未満 | 6か月 |\n"
    "| 3年以上10年未満 | 1年 |\n| 10年以上 | 1年6か月 |\n\n"
    "２　第2条第1項第2号の休職期間は、その事由が存続する期間とする。\n"
    "３　復職後6か月以内に同一又は類似の傷病により再び欠勤した場合は、前の休職期間と通算する。\n"
)


def test_a_sentence_introducing_a_table_is_completed_by_the_row_holding_the_quantity_the_question_states():
    """「勤続12年…休職期間はどのくらい？」: the sentence that introduces the table states no period; of the chunk's
    sentences that state one, the row whose bracket holds 12年 answers, not 「復職後6か月以内に…」."""
    chunk = make_chunk(0, LEAVE_OF_ABSENCE, "leave.md", section="第3条（休職期間）")
    answer = ExtractiveProvider().generate(
        "勤続12年の社員が病気で休職することになったら、休職期間はどのくらい？", [chunk]
    )
    assert not answer.abstained
    assert "勤続年数: 10年以上 / 休職期間: 1年6か月" in answer.text


HELPDESK_TABLE = """| 項目 | 内容 |
|---|---|
| メール | helpdesk@example.co.jp |
| 内線 | 2200 |
| 外線 | 03-0000-9999 |
"""


@pytest.mark.parametrize(
    ("question", "first", "not_first"),
    [
        ("ITヘルプデスクの内線は？", "内線 / 内容: 2200", "helpdesk@"),
        ("ヘルプデスクのメールアドレスを教えて", "helpdesk@example.co.jp", "2200"),
    ],
    ids=["extension", "e-mail"],
)
def test_a_question_naming_a_kind_of_number_is_answered_by_the_row_of_that_kind(question, first, not_first):
    """An e-mail address is no answer to 「内線は？」, and an extension none to 「メールアドレスは？」."""
    chunk = make_chunk(0, HELPDESK_TABLE, "it.md", section="ITヘルプデスク")
    answer = ExtractiveProvider().generate(question, [chunk])
    assert not answer.abstained
    assert first in answer.blocks[0].text and not_first not in answer.blocks[0].text


def test_a_sentence_that_is_only_a_link_loses_to_the_sentence_saying_what_is_there():
    """「…については [ガイド](https://…)」 says where to read; the sentence after it says what the rule is."""
    chunk = make_chunk(
        0,
        "年金の任意拠出については [年金の任意拠出ガイド 2024年版](https://example.com/pension-guide)。"
        "任意拠出は、給与から毎月差し引かれます。",
        "pension.md",
        "年金",
    )
    answer = ExtractiveProvider().generate("年金の任意拠出について教えて", [chunk])
    assert answer.blocks[0].text == "任意拠出は、給与から毎月差し引かれます。"


@pytest.mark.parametrize(
    ("sentence", "pointer"),
    [
        ("任意拠出については [2024 ANW-gap pension guide](https://example.com/guide)", True),
        ("完全な詳細については[年金スキーム文書](https://example.com/doc)を確認してください", True),
        ("[ASR リソースフォルダ](https://example.com/folder)", True),
        # The link names what the sentence is about, and the sentence says what of it.
        (
            "[Home Office Items](/handbook/office/) のうち、1 品あたり 1,000 米ドルを超えるものは退職時に返却します。",
            False,
        ),
        ("| [Modern Health](https://example.com/mh) | 無料 | 年12回 |", False),  # a table's cell
        ("有給休暇は入社6か月後に10日付与します。", False),
    ],
)
def test_a_sentence_pointing_to_a_link_is_told_from_one_that_names_a_link(sentence, pointer):
    assert _only_a_link(sentence) is pointer


def test_a_list_item_of_the_same_document_completes_a_best_sentence_that_states_no_asked_unit():
    """The first passage matches 国際線 and states only hours; the same document's booking list states the
    days asked for, in an item that answers only as read with the sentence leading into its list: it is
    quoted too, not left out for sharing few words with the question."""
    flights = make_chunk(
        0,
        "連続飛行時間が5時間を超える国際線の場合、チームメンバーは標準エコノミーの次のクラスを予約できます。",
        "travel.md",
        "国際線",
    )
    booking = make_chunk(
        1,
        "出張者は理想的には以下のタイミングで予約します。\n- 国内：少なくとも14日前\n- 国際：少なくとも21日前",
        "travel.md",
        "事前購入",
    )
    answer = ExtractiveProvider().generate("国際線の飛行機は出発の何日前までに予約する？", [flights, booking])
    assert "国際：少なくとも21日前" in answer.text
    # Another document's list is no part of this rule.
    other = replace(booking, filename="visas.md", document_id=99)
    assert (
        "21日前"
        not in ExtractiveProvider().generate("国際線の飛行機は出発の何日前までに予約する？", [flights, other]).text
    )


def test_a_question_asking_which_cases_gets_the_whole_list_under_its_lead_sentence():
    """「どのような場合に使用できますか」 asks for every case the rule lists, not the one scored best; a question about
    one case still gets that case."""
    chunk = make_chunk(
        0,
        "**第7条（積立休暇）**\n時効により消滅する年次有給休暇は、1年につき5日を限度として積み立てることができる。\n"
        "２　積立休暇は、次の場合に限り使用できる。\n（１）本人の私傷病により連続5日以上休む場合\n"
        "（２）家族の介護または看護のために休む場合\n（３）会社が認めたボランティア活動に参加する場合\n"
        "３　積立休暇を使用するときは、証明書類を添えて申請すること。",
        "leave.md",
        "積立休暇",
    )
    blocks = [
        b.text.strip()
        for b in ExtractiveProvider().generate("積立休暇はどのような場合に使用できますか。", [chunk]).blocks
    ]
    assert blocks == [
        "２　積立休暇は、次の場合に限り使用できる。",
        "本人の私傷病により連続5日以上休む場合",
        "家族の介護または看護のために休む場合",
        "会社が認めたボランティア活動に参加する場合",
    ]
    one = ExtractiveProvider().generate("積立休暇はボランティア活動に参加するときにも使える？", [chunk]).text
    assert "ボランティア活動" in one and "私傷病" not in one


def test_a_close_runner_up_is_quoted_past_a_sentence_in_between_that_says_nothing_asked():
    """The best sentence is about the chair, not about returning it; the answer is the next document's
    sentence. A sentence of the best passage that scores between them, but shares too little with the
    question to answer it, is skipped rather than ending the runners-up."""
    question = "退職するとき、在宅勤務用に買った椅子は返却しないといけませんか？"
    chunks = [
        replace(
            make_chunk(
                0,
                "在宅勤務用の椅子は会社の費用で購入できます。\n退職後も会社の情報は口外しないでください。",
                "remote.md",
                "在宅勤務",
            ),
            score=1.0,
        ),
        replace(
            make_chunk(1, "在宅勤務用の備品は退職時に返却しなくてかまいません。", "offboarding.md", "退職"), score=0.65
        ),
    ]

    answer = ExtractiveProvider(meaning=False).generate(question, chunks)

    assert [b.text for b in answer.blocks] == [
        "在宅勤務用の椅子は会社の費用で購入できます。",
        "在宅勤務用の備品は退職時に返却しなくてかまいません。",
    ]


def test_a_condition_set_by_a_verb_and_to_is_not_a_question_of_its_own():
    """「社員寮に入ると、家賃はいくら？」 asks one thing: the fee of the dormitory, not what the dormitory is."""
    kinds = make_chunk(
        0,
        "第2条（寮等の種類）\n１　都市部社員寮：札幌、東京、大阪にある単身者用の寮\n"
        "２　借上げ社宅：会社が借り上げて従業員に貸与する民間の賃貸住宅\n",
        "dormitory.md",
        "第2条（寮等の種類）",
    )
    fees = make_chunk(
        1,
        "第5条（寮費）\n寮費は次のとおりとし、毎月の給与から控除する。\n"
        "| 種類 | 寮費（月額） |\n|---|---|\n| 都市部社員寮 | 20,000円 |\n| 借上げ社宅 | 家賃の50% |\n"
        "２　借上げ社宅の会社負担は、家賃の50%かつ月額60,000円を上限とする。\n",
        "dormitory.md",
        "第5条（寮費）",
    )
    answer = ExtractiveProvider().generate("都市部の社員寮に入ると、家賃って月いくら引かれますか？", [kinds, fees])
    assert "20,000円" in answer.blocks[0].text


def test_a_passage_restating_the_questions_date_is_completed_by_the_row_the_question_names():
    """「2027年4月入社の新卒は、いつ配属される？」: the page's intro restates 2027年4月 and carries no other date; the row
    labelled 配属, in the next chunk of the page, states the date asked, not the row of the training period."""
    intro = make_chunk(
        0,
        "# 新卒入社者研修\n本ページは2027年4月入社予定の方と、受入れ部署向けの案内です。\n",
        "training.md",
        "新卒入社者研修",
    )
    table = make_chunk(
        1,
        "## 研修の全体像\n| 項目 | 内容 |\n|---|---|\n| 研修期間 | 2027年4月1日〜6月30日の3か月間 |\n"
        "| 研修会場 | 本社 8階 |\n| 配属 | 2027年7月1日（木） |\n",
        "training.md",
        "研修の全体像",
    )
    answer = ExtractiveProvider().generate("2027年4月入社の新卒は、いつ部署に配属されますか？", [intro, table])
    assert "2027年7月1日" in answer.text


HOTEL_RATES = (
    "第5条（宿泊費）\n宿泊費は、1泊あたり次の金額を上限として実費を支給する。\n"
    "　（１）東京23区：12,000円\n　（２）大阪市・名古屋市・横浜市・京都市：11,000円\n"
    "　（３）福岡市：9,000円\n　（４）その他の国内：10,000円\n"
)


def test_the_item_naming_the_place_the_question_names_completes_the_sentence_leading_into_its_list():
    """「東京に出張するとき、ホテル代は一泊いくら？」: of the rates listed under the lead, the one of 東京23区, not
    the best-scored item (大阪市・名古屋市・… ranks first by meaning)."""
    chunk = make_chunk(0, HOTEL_RATES, "travel.txt", "第5条（宿泊費）")
    asked = analyse_question("東京に出張するとき、ホテル代は一泊いくらまで出ますか？").whole
    candidates = ExtractiveProvider()._rank(asked, [chunk], [], english=False)
    assert candidates[0].text.startswith("大阪市")
    lead = next(c for c in candidates if c.text.startswith("宿泊費は"))
    item = _best_item_under(candidates, lead, list(asked.types), list(asked.units), question=asked.text)
    assert item is not None and item.text == "東京23区：12,000円"


RAISES = (
    "第16条（昇給）\n昇給は、原則として毎年４月に、人事評価の結果に基づいて行う。\n"
    "２　評価と昇給の運用の細目は別に定める。\n\n附則\nこの規程は2026年4月1日から施行する。\n"
)


def test_an_article_title_or_the_date_a_rule_takes_effect_is_no_fact_that_completes_an_answer():
    """「4月の昇給で号俸っていくつ上がる？」: the rules say when raises are given, not by how much. Neither the
    number of 「第16条（昇給）」 nor the date the rules took effect is the count asked for."""
    chunk = make_chunk(0, RAISES, "pay.txt", "第16条（昇給）")
    answer = ExtractiveProvider().generate("4月の昇給で号俸っていくつ上がるんですか？", [chunk])
    assert "第16条" not in answer.text and "施行" not in answer.text


NOTICE_TITLE = "2026年度 予防接種 費用補助の申請受付を開始します"
NOTICE_TEXT = (
    f"■■ お知らせ ■■\n{NOTICE_TITLE}\n\n今年度も予防接種の費用を補助します。\n\n"
    "【補助額】\n上限は1人3,000円です。\n\n【申請期限】\n2027年2月15日までに申請してください。\n"
)


@pytest.mark.parametrize(
    ("question", "answering"),
    [
        ("補助の申請期限はいつ？", "2027年2月15日までに申請してください。"),
        ("補助額はいくら？", "上限は1人3,000円です。"),
    ],
)
def test_a_title_line_or_a_bracketed_label_does_not_answer(question, answering):
    # A plain-text notice: its title line and 【label】 lines name what the sentences under them are about. Read as
    # sentences, the deadline question got the amount and 「【申請期限】」, and the date was not quoted.
    chunk = replace(make_chunk(0, NOTICE_TEXT, "notice.txt"), title=NOTICE_TITLE)
    quoted = [b.text.strip() for b in ExtractiveProvider().generate(question, [chunk]).blocks]
    assert quoted[0] == answering
    assert NOTICE_TITLE not in quoted
