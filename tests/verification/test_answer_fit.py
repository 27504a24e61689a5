"""Does the answer answer the question: types asked for, key terms, meaning; and what the verdict does with it."""

from __future__ import annotations

import pytest

from qa.types import AnswerBlock, Citation, RetrievedChunk
from verification.answer_fit import answer_fit
from verification.quantities import MONEY_UNITS
from verification.answer_types import (
    CONTACT,
    COST,
    DATE,
    EMAIL,
    NAME,
    NUMBER,
    PHONE,
    PAY,
    QUANTITY,
    STEPS,
    asked_types,
    asked_units,
    carries,
    carries_units,
    question_parts,
)
from verification.flags import WARNING_ANSWER_MISMATCH
from verification.verdict import verify


@pytest.mark.parametrize(
    ("question", "types"),
    [
        ("経費精算の締め切りはいつ？", [DATE]),
        ("有給休暇は何日もらえますか？", [QUANTITY]),
        ("休みを取りたいときは誰に言えばいい？", [CONTACT]),
        ("パスワードを忘れたらどうすればいい？", [STEPS]),
        ("How many days of paid leave do I get?", [QUANTITY]),
        ("社員食堂について", []),
        ("入館用のカードをなくしたらお金はかかる？", [COST]),
        ("Is there a fee for a new ID card?", [COST]),
        ("家から会社のシステムにつなぐときに起動するアプリの名前は？", [NAME]),
        ("自分の名前は出したくない。大丈夫？", []),  # 名前 here is not what is asked for
        # Which one of a kind is answered by a name; どれくらい and どのように ask something else.
        ("カフェの Wi-Fi で使う VPN はどれ？", [NAME]),
        ("どのツールを使えばいい？", [NAME]),
        ("Which VPN should I use at a cafe?", [NAME]),
        ("どれくらい休める？", [QUANTITY]),
        ("どのように申請する？", [STEPS]),
        # Which time of year is a date asked, answered by 「3月」, not by a name.
        ("有給の時季変更をお願いされるのはどの時期ですか？", [DATE]),
        # Whether time away is paid: answered by 有給/無給 or 賃金を支給, not by an amount.
        ("子どもの看病で休むときの休みって、給料は出るの？", [PAY]),
        ("選挙の投票に行く時間って給料出るの？", [PAY]),
        ("給料日はいつ？", [DATE]),
    ],
)
def test_what_a_question_asks_for(question: str, types: list[str]) -> None:
    assert asked_types(question) == types


def test_each_quantity_of_a_two_part_question_is_asked_for_in_its_unit() -> None:
    units = asked_units("在宅勤務は週何日までできて、手当は月いくらですか？")
    assert units == [frozenset({"day", "business_day"}), MONEY_UNITS]
    assert asked_units("入社初日は何時に行けばいい？") == [frozenset({"clock"})]


@pytest.mark.parametrize(
    ("answer_type", "text", "expected"),
    [
        (DATE, "経費精算は支払日から1ヶ月以内に申請してください。", True),
        (DATE, "領収書は必ず添付してください。", False),
        (CONTACT, "申請は勤怠くんから上長に提出します。", True),
        (CONTACT, "有効期限を過ぎた休暇の買い取りは行いません。", False),
        # Where to go, by the name the documents quote, whatever the name (no company's suffix is listed).
        (CONTACT, "休暇の申請は「HRナビ」から行います。", True),
        (CONTACT, "貸出は「ITくん」で予約します。", True),
        (CONTACT, "当社では「勤怠くん」を導入しています。", False),
        (STEPS, "パスワードリセット画面から再設定してください。", True),
        (COST, "再発行の手数料として1,000円を給与から差し引きます。", True),
        (COST, "受験料は、合格した場合に全額を補助します。", True),
        (COST, "社員証を忘れた場合は、1階受付で一時入館カードを受け取ってください。", False),
        (PAY, "子の看護等休暇のうち、1年度につき3日までは有給とし、残りは無給とする。", True),
        (PAY, "会社は、通算5日間に限り、通常の賃金を支給する。", True),
        (PAY, "子の看護等休暇は、1時間単位で取得することができる。", False),
        (NAME, "VPNクライアント「AOBA Connect」を起動します。", True),
        (NAME, "社内システムを利用するときは、必ず会社のVPNに接続してください。", False),
        (NAME, "手順は「社内Wi-Fi・VPN利用ガイド」(network_vpn.md) にまとめています。", False),  # a pointer, not a name
    ],
)
def test_what_carries_an_answer_type(answer_type: str, text: str, expected: bool) -> None:
    assert carries(answer_type, text) is expected


def test_the_six_everyday_questions_are_judged() -> None:
    assert not answer_fit("経費精算の締め切りはいつ？", "領収書は必ず添付してください。事前承認が必要です。").fits
    assert answer_fit("経費精算の締め切りはいつ？", "経費精算は支払日から1ヶ月以内に申請してください。").fits
    assert not answer_fit("休みを取りたいときは誰に言えばいい？", "有効期限を過ぎた休暇の買い取りは行いません。").fits
    assert answer_fit("休みを取りたいときは誰に言えばいい？", "申請は勤怠くんから上長に提出します。").fits
    missing = answer_fit(
        "在宅勤務は週何日までできて、手当は月いくらですか？", "在宅勤務手当として月額4,000円を支給します。"
    )
    assert "type" in missing.failed
    assert answer_fit("有給休暇は何日？", "有給休暇は10日です。", similarity=0.70).failed == ["meaning"]


ATTENDANCE = "## 有給休暇\n有給休暇は入社6ヶ月後に10日付与されます。\n有給休暇の買い取りは行いません。\n"


def _verdict(question: str, quote: str) -> object:
    chunk = RetrievedChunk(
        chunk_id=1,
        document_id=1,
        version_id=1,
        filename="attendance.md",
        section="有給休暇",
        text=ATTENDANCE,
        similarity=0.95,
    )
    start = ATTENDANCE.index(quote)
    block = AnswerBlock(f"{quote}(attendance.md)", [Citation(0, quote, start, start + len(quote))])
    return verify(blocks=[block], chunks=[chunk], top_similarity=0.95, thresholds=(0.88, 0.83), question=question)


def test_an_answer_beside_the_question_is_not_high_and_says_so() -> None:
    fitting = _verdict("有給休暇は何日もらえますか？", "有給休暇は入社6ヶ月後に10日付与されます。")
    assert fitting.confidence == "high" and "answer_mismatch" not in fitting.flags
    beside = _verdict("有給休暇は何日もらえますか？", "有給休暇の買い取りは行いません。")
    assert beside.confidence != "high"
    assert "answer_mismatch" in beside.flags
    assert WARNING_ANSWER_MISMATCH in beside.warnings


def test_an_english_question_answered_from_japanese_quotes_is_never_high() -> None:
    # Across languages the question's key terms cannot be checked against the quotes.
    verdict = _verdict("How many days of paid leave do I get?", "有給休暇は入社6ヶ月後に10日付与されます。")
    assert verdict.confidence == "medium"
    assert "answer_mismatch" not in verdict.flags


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "在宅勤務は週何日までできて、手当は月いくらですか？",
            ["在宅勤務は週何日までできて", "在宅勤務の手当は月いくらですか？"],
        ),
        ("試用期間の長さと給料日を教えて。", ["試用期間の長さを教えて。", "試用期間の給料日を教えて。"]),
        (
            "住宅手当と配偶者の家族手当はそれぞれ月いくらですか？",
            ["住宅手当は月いくらですか？", "配偶者の家族手当は月いくらですか？"],
        ),
        ("コアタイムと休憩時間を教えてください。", ["コアタイムを教えてください。", "休憩時間を教えてください。"]),
        # One question each: と joins the modifiers of one thing, quotes, or a condition.
        ("時間外労働と休日労働の合計の上限は？", ["時間外労働と休日労働の合計の上限は？"]),
        ("みんな早く帰ろうと決まっている曜日は？", ["みんな早く帰ろうと決まっている曜日は？"]),
        ("上長と相談して決めますか？", ["上長と相談して決めますか？"]),
        # A clause ending in と、 is a question of its own only after a noun (「残業の割増率と、…」): after a
        # verb or a copula it sets the condition of the one question, and 「あと、」 is "after".
        ("残業の割増率と、深夜の割増率は？", ["残業の割増率", "深夜の割増率は？"]),
        (
            "都市部の社員寮に入ると、家賃って月いくら引かれますか？",
            ["都市部の社員寮に入ると、家賃って月いくら引かれますか？"],
        ),
        ("経費は何円以上だと、先に上司の承認がいるの？", ["経費は何円以上だと、先に上司の承認がいるの？"]),
        ("警察に電話したあと、会社のどこに連絡すればいい？", ["警察に電話したあと、会社のどこに連絡すればいい？"]),
        (
            "How long is the probation period and when is payday?",
            ["How long is the probation period and when is payday?"],
        ),
    ],
)
def test_a_two_part_question_is_split_into_questions_that_stand_alone(question: str, parts: list[str]) -> None:
    assert question_parts(question) == parts


def test_a_two_part_question_answered_for_one_part_does_not_fit() -> None:
    question = "試用期間の長さと給料日を教えて。"
    assert "terms" in answer_fit(question, "試用期間は入社日から3ヶ月です。").failed
    assert answer_fit(question, "試用期間は入社日から3ヶ月です。給料日は毎月25日です。").fits


def test_a_phone_number_question_is_answered_by_a_number_not_by_the_word_madoguchi() -> None:
    assert PHONE in asked_types("社外相談窓口の電話番号は？")
    assert carries(PHONE, "電話: 03-0000-2300（平日 9:00〜20:00）")
    assert not carries(PHONE, "社外窓口に寄せられた相談は、氏名を会社に伝えません。")


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("ITヘルプデスクの内線は？", PHONE),
        ("What is the extension number of the IT helpdesk?", PHONE),
        ("ヘルプデスクのメールアドレスを教えて", EMAIL),
        ("What is the helpdesk's e-mail address?", EMAIL),
    ],
)
def test_a_question_naming_a_kind_of_number_is_answered_only_by_a_number_of_that_kind(question: str, kind: str) -> None:
    asked = asked_types(question)
    assert kind in asked and NUMBER not in asked
    extension, mail = "| 内線 | 2200 |", "| メール | helpdesk@example.co.jp |"
    assert carries(kind, extension if kind == PHONE else mail)
    assert not carries(kind, mail if kind == PHONE else extension)


@pytest.mark.parametrize(
    "number",
    [
        "03(1234)5678",
        "(03) 1234-5678",
        "電話: (215) 689-3885",
        "+81-3-1234-5678",
        "+1 215 942 8226",
        "+31-(0)70-8888 500",
    ],
)
def test_a_telephone_number_is_one_however_it_is_written(number: str) -> None:
    assert carries(PHONE, f"ホットライン: {number}（24時間）")


@pytest.mark.parametrize(
    "text", ["2024-04-01 から", "受付 10:00-18:00", "(1) 申請書を出す", "1-2日で届きます", "第3条(2)"]
)
def test_dates_times_and_list_numbers_are_not_telephone_numbers(text: str) -> None:
    assert not carries(PHONE, text)


def test_a_question_naming_no_kind_of_number_takes_any() -> None:
    assert NUMBER in asked_types("ヘルプデスクの番号は？")
    assert carries(NUMBER, "| 内線 | 2200 |") and carries(NUMBER, "helpdesk@example.co.jp")


@pytest.mark.parametrize(
    ("question", "units"),
    [
        ("What are the lunch hours of the staff cafeteria?", [frozenset({"clock"})]),
        ("What are the core hours at the Tokyo office?", [frozenset({"clock"})]),  # a flextime's fixed hours
        ("Until what age of my child can I take childcare leave?", [frozenset({"age"})]),
        ("On what day of the month is salary paid?", [frozenset({"day"})]),
        ("How many days do I have to submit it?", [frozenset({"day", "business_day"})]),
    ],
)
def test_english_questions_ask_for_clock_times_ages_and_days(question: str, units: list[frozenset[str]]) -> None:
    assert asked_units(question) == units


@pytest.mark.parametrize(
    ("question", "units"),
    [
        # What is counted stands between "how many" / "number of" and its unit.
        (
            "What is the maximum number of paid leave days I can hold?",
            [frozenset({"day", "business_day"})],
        ),
        ("How many business days does a refund take?", [frozenset({"day", "business_day"})]),
        ("How many overtime hours can I work?", [frozenset({"hour", "minute"})]),
        ("How many years must I have worked here?", [frozenset({"year"})]),
        ("How many nights can I stay?", [frozenset({"night"})]),
        # ...but never a verb or a counted "times": these name no other unit.
        ("How many times a year can I use it?", [frozenset({"times"})]),
        ("How many can I take per month?", []),
    ],
)
def test_english_counts_ask_for_the_unit_named_after_what_is_counted(
    question: str, units: list[frozenset[str]]
) -> None:
    assert asked_units(question) == units


def test_how_long_asks_for_a_length_of_time() -> None:
    (duration,) = asked_units("How long is the probation period?")
    assert carries_units(duration, "試用期間は入社日から3ヶ月です。")
    assert carries_units(duration, "暑熱作業では1時間ごとに15分の休憩を与える。")
    assert not carries_units(duration, "上限は1泊10,500円です。")


def test_a_year_of_the_calendar_is_no_length_of_time() -> None:
    """「1996 年の…法」 and 「2015 年 5 月 1 日以降」 name years of the calendar: they do not answer how long, or 何年
    a count of years asks for; 「何年に」 and "which year" ask for one."""
    (duration,) = asked_units("In Japan, how long must my employment be expected to last?")
    assert not carries_units(duration, "1996 年の Health Insurance Portability and Accountability Act に基づく。")
    assert carries_units(duration, "31 日以上の雇用予定")
    (years,) = asked_units("年金を満額もらうには何年くらい払い込まないといけない？")
    assert not carries_units(years, "2015 年 5 月 1 日以降、民間医療保険に初めて加入した場合")
    assert carries_units(years, "全額給付には 25 年以上の拠出が必要")
    for question in ("この制度は何年に始まった？", "Which year did the plan start?", "何年度から適用？"):
        (calendar,) = asked_units(question)
        assert carries_units(calendar, "この制度は2019年4月に始まりました。")
        assert not carries_units(calendar, "勤続3年以上の社員が対象です。")


@pytest.mark.parametrize(
    "question",
    [
        "What is the minimum password length?",
        "How long must a password be?",
        "How many characters does my password need?",
        "What is the minimum パスワード length?",  # its words already written as the documents write them
    ],
)
def test_a_password_is_as_long_as_its_characters(question: str) -> None:
    (length,) = asked_units(question)
    assert carries_units(length, "12文字以上とすること")
    assert not carries_units(length, "パスワードを10回連続して誤入力した場合、アカウントは30分間ロックされる。")


def test_how_many_tenths_is_answered_by_a_ratio_however_it_is_written() -> None:
    (percent,) = asked_units("残業代って何割増しになるの？")
    assert carries_units(percent, "時間外労働には2割5分以上の割増賃金を支払う。")
    assert carries_units(percent, "深夜労働は25%増しとする。")
    assert not carries_units(percent, "休憩は30分とする。")
    (minutes,) = asked_units("休憩は何分？")
    assert not carries_units(minutes, "修理費の2分の1を負担する。")


def test_a_day_of_the_month_is_a_calendar_day_not_a_count_of_business_days() -> None:
    (day,) = asked_units("What day of the month is payday?")
    assert carries_units(day, "賃金は、毎月1日から末日までを計算期間とし、これを翌月25日に支払う。")
    assert not carries_units(day, "給与明細書は、支払日の3営業日前までに掲載する。")


@pytest.mark.parametrize(
    "amount",
    [
        "1人あたり100ドル",
        "上限は300米ドル",
        "$125まで",
        "24 EUR",
        "€50",
        "£20",
        "15,000円",
        "| 一般 | USD 40 | USD 140 |",
    ],
)
def test_how_much_is_answered_by_an_amount_in_any_currency(amount: str) -> None:
    """An international company's rules state amounts in dollars or euros: those answer 「いくら」 too."""
    (money,) = asked_units("ワーキンググループボーナスは1人いくら？")
    assert carries_units(money, amount)
    assert not carries_units(money, "申請は5日前までに行います")


def test_a_counter_question_is_answered_only_by_a_number_with_that_counter() -> None:
    (digits,) = asked_units("リモート接続のときに入れるコードは何桁？")
    assert carries_units(digits, "認証アプリに表示される6桁のコードを入力します。")
    assert not carries_units(digits, "全体会議と部署ミーティングを行うため、リモートワークはできません。")
    (distance,) = asked_units("何キロ以上離れていたら出張になる？")
    assert carries_units(distance, "通常の勤務地から片道100km以上の移動を出張とします。")


@pytest.mark.parametrize(
    ("question", "units"),
    [
        ("もだんへるすのせらぴーはねんになんかい？", [frozenset({"times"})]),
        ("けいひせいさんはなんにちまで？", [frozenset({"day", "business_day"})]),
        ("なんじかんまで残業できる？", [frozenset({"hour", "minute"})]),
        ("なんにんまで参加できる？", [frozenset({"person"})]),
    ],
)
def test_a_question_typed_in_kana_asks_for_the_same_units(question: str, units: list[frozenset[str]]) -> None:
    assert asked_units(question) == units
    assert "quantity" in asked_types(question)


@pytest.mark.parametrize(
    "question",
    ["S評価になる人の割合ってどれくらい？", "業績評価と行動評価の比率は？", "What share of staff get an S rating?"],
)
def test_a_question_about_a_proportion_is_answered_by_a_percentage(question: str) -> None:
    """「割合はどれくらい？」 asks for a share: a sentence that merely names the topic is no answer."""
    assert asked_units(question) == [frozenset({"percent"})]
    assert "type" not in answer_fit(question, "評価ごとの分布の目安は、Sが5%、Aが20%とする。").failed
    assert "type" in answer_fit(question, "昇給は、毎年4月1日付で、人事評価の結果に基づき行う。").failed


@pytest.mark.parametrize(
    ("question", "stated", "answers"),
    [
        # A length of time from or within an event is stated in days, weeks or months alike.
        (
            "辞める前の最後の経費精算は、退職日の何日前までに出せばいい？",
            "退職日の少なくとも 1 週間前までに提出してください。",
            True,
        ),
        ("退職するときは何日前までに申し出る？", "退職を希望する者は、1 か月前までに申し出ること。", True),
        ("申請は何日以内に出す？", "申請は発生から 2 週間以内に提出します。", True),
        ("なんにちまえまでに予約する？", "国内出張は 3 日前までに予約します。", True),
        ("産休は出産予定日の何週間前から取れる？", "産前休業は出産予定日の 42 日前から取得できます。", True),
        ("海外に引っ越すなら何か月前から手続きを始める？", "移転の申請は 90 日前までに提出してください。", True),
        ("育休は何週間取れる？", "育児休業は最長 112 日取得できます。", True),
        ("How many weeks of parental leave can I take?", "育児休業は最長 112 日取得できます。", True),
        # A day of the month is a day: weeks do not answer 「締め日は何日？」, nor a count of business days,
        # and a plain count of months is answered in months.
        ("給与計算の締め日って何日？", "給与は入社から 1 週間後に登録されます。", False),
        ("払い戻しは何営業日かかる？", "払い戻しには 1 週間ほどかかります。", False),
        ("購入期間は何か月？", "購入期間は 180 日です。", False),
    ],
)
def test_a_length_of_time_from_an_event_is_answered_in_days_weeks_or_months(
    question: str, stated: str, answers: bool
) -> None:
    (units,) = asked_units(question)
    assert carries_units(units, stated) is answers


def test_a_date_the_question_states_itself_does_not_answer_when():
    """「2027年4月入社の新卒は、いつ配属される？」: a passage restating 2027年4月 carries no other date."""
    question = "2027年4月入社の新卒は、いつ部署に配属されますか？"
    echo = answer_fit(question, "本ページは2027年4月入社予定の方と、受入れ部署向けの案内です。")
    assert "type" in echo.failed and echo.missing_types == ["date"]
    assert "type" not in answer_fit(question, "配属は2027年7月1日（木）です。").failed
    # One span states the year with the month and day: the question has stated the year only.
    assert "type" not in answer_fit(question, "配属日：2027/07/01").failed


def test_a_list_of_times_answers_which_time_of_year():
    """「どの時期ですか？」 had been read as asking for a name: the sentence announcing 「次の時期」 was quoted without
    the times it lists, and the answer warned that it did not fit."""
    question = "有給休暇の時季変更をお願いされることがあるのはどの時期ですか？"
    answer = (
        "次の時期は申請が集中するため、業務に大きな支障があるときに限り、別の日に変更をお願いすることがあります（時季変更）。"
        "3月（引っ越しシーズンで入電が増えるクライアントがあるため）"
    )
    assert answer_fit(question, answer).fits
