"""The analyser side of the corpus vocabulary (documents.vocabulary): pure, no database, no model."""

from __future__ import annotations

from documents.vocabulary import (
    analyse,
    boundaries,
    document_terms,
    kanji_spellings,
    katakana,
    noun_form,
    synonym_groups,
    unvoiced,
    verb_nouns,
)


def test_a_documents_compound_terms_come_whole_with_their_reading():
    found = document_terms("# 経費精算ガイド\n\n経費精算の申請は支払日から1ヶ月以内です。時間外手当は月末締めです。")
    terms = {t.text: t for t in found.counts}
    assert terms["経費精算"].reading == "ケイヒセイサン"
    assert terms["時間外手当"].reading == "ジカンガイテアテ"
    assert found.counts[terms["経費精算"]] == 2  # heading and text
    assert terms["経費精算"] in found.in_headings


def test_numbers_particles_and_symbols_are_not_terms():
    texts = {t.text for t in document_terms("申請は3日以内に、必ず「はい」と答えること。").counts}
    assert "申請" in texts
    assert not texts & {"3", "3日", "は", "に", "「", "はい"}


def test_variant_spellings_share_a_normalised_form():
    normalised = {w.surface: w.normalized for w in analyse("締切と〆切と締め切り")}
    assert normalised["締切"] == normalised["〆切"] == normalised["締め切り"]


def test_kana_becomes_katakana_and_nothing_else_changes():
    assert katakana("けいひせいさんのVPN、経費") == "ケイヒセイサンノVPN、経費"


def test_a_compound_also_gives_the_words_it_is_made_of():
    texts = {t.text: t.reading for t in document_terms("申請期限は月末です。").counts}
    assert texts["申請期限"] == "シンセイキゲン"
    assert texts["期限"] == "キゲン"


def test_a_compound_never_runs_across_a_line_or_a_symbol():
    texts = {t.text for t in document_terms("## 育児休業\n育児休業は人事部（内線2300）へ").counts}
    assert "育児休業育児休業" not in texts
    assert "人事部内線" not in texts


def test_readings_compare_without_voicing_at_a_seam_but_not_at_the_start():
    assert unvoiced("タテカエバライ") == unvoiced("タテカエハライ")  # 立替払い as said and as its words join
    assert unvoiced("ジタイ") != unvoiced("シタイ")  # 事態 is not したい


def test_word_boundaries_of_kana_input():
    cuts = boundaries("けいひせいさんのきげん")
    assert {0, 7, 8, 11} <= cuts  # 経費精算 | の | 期限


def test_a_word_found_only_inside_compounds_is_recorded_as_a_piece_not_a_word():
    found = document_terms("ナイトタイムではなく昼に。デートナイトなどの予定。ホテルを予約し、ホテル代を払う。")
    texts = {t.text for t in found.counts}
    standalone = {t.text for t in found.standalone}
    assert {"ナイト", "ナイトタイム", "デートナイト", "ホテル", "ホテル代"} <= texts
    assert "ナイト" not in standalone  # only ever part of ナイトタイム and デートナイト
    assert {"ナイトタイム", "デートナイト", "ホテル", "ホテル代"} <= standalone


def test_a_verb_or_adjective_typed_in_hiragana_gets_its_kanji_spelling_in_the_same_form():
    assert kanji_spellings("パスワードわすれた", min_chars=3) == {"わすれ": "忘れ"}
    assert kanji_spellings("PCがこわれたら", min_chars=3) == {"こわれ": "壊れ"}
    assert kanji_spellings("しめきりは？", min_chars=3) == {"しめきり": "締め切り"}
    assert kanji_spellings("ながい会議", min_chars=3) == {"ながい": "長い"}


def test_a_form_the_dictionary_normalises_to_another_word_or_a_short_one_is_left_alone():
    assert kanji_spellings("何日もらえる", min_chars=3) == {}  # its normal form 貰う is not もらえる
    assert kanji_spellings("申請できますか", min_chars=3) == {}  # でき: shorter than asked
    assert kanji_spellings("忘れた", min_chars=3) == {}  # already in kanji
    assert kanji_spellings("", min_chars=3) == {}


def test_synonyms_share_a_group_of_the_dictionary_and_a_compound_has_none():
    assert set(synonym_groups("朝ごはん")) & set(synonym_groups("朝食"))
    assert set(synonym_groups("切符")) & set(synonym_groups("チケット"))
    assert not set(synonym_groups("切符")) & set(synonym_groups("朝食"))
    assert synonym_groups("経費精算の申請") == ()
    [word] = [w for w in analyse("上司", synonyms=True) if w.noun]
    assert set(word.synonyms) & set(synonym_groups("上長"))
    assert [w.synonyms for w in analyse("上司")] == [()]  # a document's words are not looked up


def test_a_verbs_continuative_form_is_the_noun_that_names_its_act():
    assert noun_form("引っ越す", "五段-サ行") == "引っ越し"
    assert noun_form("申し込む", "五段-マ行") == "申し込み"
    assert noun_form("立て替える", "下一段-ア行") == "立て替え"
    assert noun_form("来る", "カ行変格") == ""


def test_the_verbs_of_a_question_come_with_the_nouns_the_dictionary_knows_for_them():
    found = {typed: noun.surface for typed, noun in verb_nouns("来月引っ越すので、立て替えた分を払い戻してもらえる？")}
    assert found == {"引っ越す": "引っ越し", "立て替え": "立て替え", "払い戻し": "払い戻し"}  # もらえる only helps
    # Typed in hiragana, a verb counts when its kanji spelling reads as typed.
    assert {typed: noun.surface for typed, noun in verb_nouns("ひっこすときは")} == {"ひっこす": "引っ越し"}
    assert synonym_groups("引っ越し") == verb_nouns("引っ越す")[0][1].synonyms
