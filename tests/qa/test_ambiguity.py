"""When a question's own words single out no document (qa.ambiguity), and the options offered then. No database."""

from __future__ import annotations

import pytest

from qa.ambiguity import GENERIC_TERM_DOCUMENTS, content_terms, is_facet, is_generic, question_length
from qa.decision import clarification_options
from qa.types import RetrievedChunk

# Folded texts of the documents retrieval considered, by document id: 上限 appears in four.
DOCUMENTS = {
    1: ["出張旅費規程\n宿泊費\n国内の宿泊費は上限1泊15,000円です。"],
    2: ["福利厚生ガイド\n人間ドック\n人間ドックの費用は上限30,000円まで補助します。"],
    3: ["時間外労働ガイド\n原則の上限\n時間外労働の上限は月45時間です。"],
    4: ["pc・備品貸与ガイド\n紛失\n修理費の2分の1(上限50,000円)を負担していただきます。"],
    5: ["リモートワーク規程\n費用\n在宅勤務手当として月額4,000円を支給します。"],
}


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("上限はいくら？", ["上限"]),
        ("上限は何時間？", ["上限"]),  # 何時間 asks, it names nothing
        ("何日前までに申請すればいい？", ["申請"]),
        ("出張の宿泊費の上限はいくら？", ["出張", "宿泊費", "上限"]),
        ("VPNの接続先は何ですか？", ["vpn", "接続先"]),
        ("How do I apply for remote work?", ["apply", "remote", "work"]),
        ("なくしたらどうすればいい？", []),
        ("休みは何日もらえる？", ["休み"]),  # a noun before は names the topic
        ("何日休める？", []),  # the same stem as a verb only asks
        ("締め切りはいつ？", ["締め切り"]),  # an aspect word written with kana stays whole
        ("問い合わせ先は？", ["問い合わせ先"]),
    ],
)
def test_content_terms_leave_out_particles_interrogatives_and_function_words(question, terms):
    assert content_terms(question) == terms


def test_question_length_counts_letters_kana_kanji_and_digits_only():
    assert question_length("上限はいくら？") == 6
    assert question_length("How do I apply?") == 11
    assert question_length("ＶＰＮ　の 接続先") == 7


@pytest.mark.parametrize(
    ("question", "generic"),
    [
        ("上限はいくら？", True),  # one term, in four documents
        ("上限は何時間？", True),
        ("出張の宿泊費の上限はいくら？", False),  # three terms narrow it down
        ("在宅勤務手当はいくらですか？", False),  # a term only one document uses
        ("退職金はいくらですか？", False),  # a term no document uses: nothing to offer
        ("なくしたらどうすればいい？", True),  # names nothing at all
        ("上限について、もう少しくわしく教えてもらえますか？", False),  # not short: it says more than its term
    ],
)
def test_a_short_question_is_generic_when_its_one_term_is_common(question, generic):
    assert GENERIC_TERM_DOCUMENTS == 4
    assert is_generic(question, DOCUMENTS) is generic


def test_with_fewer_documents_than_the_threshold_a_term_in_all_of_them_is_generic():
    three = {k: DOCUMENTS[k] for k in (1, 3, 4)}
    assert is_generic("上限はいくら？", three)
    assert not is_generic("宿泊費はいくら？", three)  # one of the three


def _hit(chunk_id: int, document_id: int, score: float) -> RetrievedChunk:
    return RetrievedChunk(chunk_id, document_id, document_id, f"doc{document_id}.md", "", "", score=score)


HITS = [_hit(31, 3, 0.9), _hit(32, 3, 0.8), _hit(21, 2, 0.7), _hit(11, 1, 0.95), _hit(41, 4, 0.5), _hit(51, 5, 0.4)]


def test_a_generic_question_offers_every_document_best_first_at_most_four():
    options = clarification_options(HITS, gap=0.03, generic=True)
    assert [o.document_id for o in options] == [1, 3, 2, 4]
    assert [o.chunk_id for o in options] == [11, 31, 21, 41]  # each document's first hit


def test_a_question_that_is_not_short_is_never_asked_back():
    assert clarification_options(HITS, gap=0.03, short=False, generic=True) == []
    tie = [_hit(11, 1, 1.0), _hit(21, 2, 0.999)]
    assert clarification_options(tie, gap=0.03, short=False) == []
    assert [o.document_id for o in clarification_options(tie, gap=0.03)] == [1, 2]


def test_one_document_is_no_choice():
    assert clarification_options([_hit(11, 1, 0.9), _hit(12, 1, 0.8)], gap=0.5, generic=True) == []


def test_without_a_tie_a_specific_short_question_is_answered():
    assert clarification_options(HITS, gap=0.03) == []  # 0.95 vs 0.9: more than 3% apart
    assert clarification_options(HITS, gap=0.0) == []


@pytest.mark.parametrize(
    ("term", "facet"),
    [("申請方法", True), ("補助", True), ("上限", True), ("申請期限", True), ("経費精算", False), ("有給休暇", False)],
)
def test_aspect_words_and_their_compounds_are_facets(term: str, facet: bool) -> None:
    assert is_facet(term) is facet


def test_a_short_question_of_aspect_words_used_by_two_documents_is_generic() -> None:
    documents = {
        1: ["経費精算ガイド\n申請方法\n経費くんから申請します。"],
        2: ["備品貸与ガイド\n申請方法\nポータルから申請します。"],
    }
    assert is_generic("申請方法を教えて", documents)
    assert not is_generic("経費精算の申請方法を教えて", documents)


def test_a_verb_that_names_the_topic_makes_a_short_question_clear() -> None:
    assert content_terms("1日に働く決まりの時間は何時間？") == ["働く", "決ま", "時間"]
    assert content_terms("パスワードを忘れたら？") == ["パスワード", "忘れ"]
    assert content_terms("申請方法を教えて") == ["申請方法"]  # 教えて only asks
    documents = {n: ["時間 勤務時間 所定労働時間"] for n in range(5)}
    assert is_generic("時間は何時間？", documents)
    assert not is_generic("1日に働く決まりの時間は何時間？", documents)


def test_a_short_question_of_several_aspect_words_names_no_document_either() -> None:
    documents = {
        1: ["経費精算ガイド\n提出書類\n申請に必要な書類は領収書です。"],
        2: ["入社手続きガイド\n提出書類\n入社前に必要な書類を提出します。"],
    }
    assert is_generic("必要な書類は？", documents)
    assert not is_generic("経費精算に必要な書類は？", documents)  # 経費精算 names the document


def test_an_aspect_asked_in_everyday_words_is_found_under_the_glossary_word_the_documents_use() -> None:
    documents = {
        1: ["経費精算ガイド\n申請期限\n申請期限は支払日から1ヶ月以内です。"],
        2: ["出張旅費規程\n申請\n出張申請の期限は出発の3営業日前です。"],
    }
    assert is_generic("締め切りはいつ？", documents, spellings=["期限", "申請期限"])
    assert not is_generic("経費精算の締め切りはいつ？", documents, spellings=["期限", "申請期限"])
    one = {1: documents[1]}
    assert not is_generic("締め切りはいつ？", one)  # 締め切り itself is not in it
    assert is_generic("締め切りはいつ？", one, spellings=["期限", "申請期限"])


def test_an_aspect_word_no_document_writes_as_asked_names_no_document_either() -> None:
    """「手続きは？」 where the documents write 手続, 「必要書類」 where they write 必要な書類: still only aspects."""
    documents = {
        1: ["退職・休職規程\n退職の手続\n退職届を所属長に提出する。"],
        2: ["育児・介護休業等に関する規程\n申出の手続\n休業開始予定日の1か月前までに申し出る。必要な書類を添付する。"],
    }
    assert is_generic("手続きは？", documents)
    assert is_generic("必要書類", documents)
    assert not is_generic("退職の手続きは？", documents)  # 退職 names the document


def test_an_aspect_word_alone_names_no_document_even_where_only_one_of_those_in_view_writes_it() -> None:
    """「連絡先」 alone: one policy's table has a 連絡先 column, and the question still names no policy."""
    documents = {
        1: ["ハラスメント防止規程\n相談窓口\n| 窓口 | 担当者 | 連絡先 |\n| 人事総務部 | 佐藤 | 内線 1120 |"],
        2: ["社内システム利用ガイド\nITヘルプデスク\n| 内線 | 2200 |"],
        3: ["旅費規程\n宿泊費\n宿泊費は1泊10,000円を上限とする。"],
    }
    assert is_generic("連絡先", documents)
    assert not is_generic("ハラスメントの連絡先", documents)  # ハラスメント names the document
