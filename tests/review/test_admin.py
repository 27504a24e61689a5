"""The review queue in the admin: who gets in, what each filter shows, what a reviewer may change."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.test import Client

from documents.models import DocumentVersion
from qa.models import Answer, Feedback
from tests.review.conftest import cite, client_for, snapshot

pytestmark = pytest.mark.django_db

QUEUE = "/admin/qa/answer/"


@pytest.fixture
def cases(make_answer, rate, reviewer, outsider, attendance) -> SimpleNamespace:
    fabricated = make_answer(
        "経費精算の締め日はいつですか？",
        confidence=Answer.Confidence.LOW,
        flag_fabricated_source=True,
        answer_text="company_policy.mdによると月末です。",
    )
    ungrounded = make_answer(
        "在宅勤務の申請方法は？",
        confidence=Answer.Confidence.MEDIUM,
        flag_low_grounding=True,
        answer_text="関連する文書を十分に見つけられませんでした",
        original_answer_text="上長にメールで申請します。",
        provider="gemini",
        model_name="gemini-2.5-flash",
    )
    disliked = make_answer("PCの貸与期間は？", confidence=Answer.Confidence.HIGH)
    rate(disliked, outsider, Feedback.Rating.DOWN, comment="古い情報です")
    low = make_answer("慶弔休暇は何日ですか？", confidence=Answer.Confidence.LOW, flag_no_citation=True)
    good = make_answer(
        "有給休暇は入社後いつ付与されますか？", confidence=Answer.Confidence.HIGH, retrieved=[snapshot(attendance)]
    )
    cite(good, attendance, "入社6ヶ月後に10日付与されます。")
    rate(good, outsider, Feedback.Rating.UP)
    return SimpleNamespace(fabricated=fabricated, ungrounded=ungrounded, disliked=disliked, low=low, good=good)


def listed(response: HttpResponse) -> set[Answer]:
    assert response.status_code == 200
    return set(response.context["cl"].result_list)


def test_each_doubtful_answer_appears_under_its_filter_and_the_good_one_nowhere(cases, reviewer_client):
    everything = listed(reviewer_client.get(QUEUE))
    assert everything == {cases.fabricated, cases.ungrounded, cases.disliked, cases.low}

    assert listed(reviewer_client.get(QUEUE, {"flag": "fabricated_source"})) == {cases.fabricated}
    assert listed(reviewer_client.get(QUEUE, {"flag": "low_grounding"})) == {cases.ungrounded}
    assert listed(reviewer_client.get(QUEUE, {"feedback": "down"})) == {cases.disliked}
    assert listed(reviewer_client.get(QUEUE, {"confidence": "low"})) == {cases.fabricated, cases.low}
    assert listed(reviewer_client.get(QUEUE, {"provider": "gemini"})) == {cases.ungrounded}
    # 👍 was given only to the good answer, which is not in the queue at all.
    assert listed(reviewer_client.get(QUEUE, {"feedback": "up"})) == set()


def test_list_shows_columns_and_counts_per_filter_option(cases, reviewer_client):
    html = reviewer_client.get(QUEUE).content.decode()

    assert "経費精算の締め日はいつですか？" in html
    assert "有給休暇は入社後いつ付与されますか？" not in html
    assert "存在しない出典 (1)" in html  # facet count next to the flag option
    assert "根拠不足 (1)" in html
    assert "👎 低評価 (1)" in html
    assert "gemini / gemini-2.5-flash" in html
    assert "未対応 (4)" in html


def test_search_covers_question_and_answer_text(cases, reviewer_client):
    assert listed(reviewer_client.get(QUEUE, {"q": "慶弔"})) == {cases.low}
    assert listed(reviewer_client.get(QUEUE, {"q": "company_policy"})) == {cases.fabricated}
    # The provider's original (replaced) answer is searchable too.
    assert listed(reviewer_client.get(QUEUE, {"q": "メールで申請"})) == {cases.ungrounded}


def test_anonymous_and_employee_are_sent_to_the_admin_login(cases, employee):
    assert Client().get(QUEUE).url.startswith("/admin/login/")
    response = client_for(employee).get(QUEUE)
    assert response.status_code == 302 and response.url.startswith("/admin/login/")


def test_staff_without_the_reviewer_role_gets_403(cases, db):
    staff = User.objects.create_user("staff", password="correct-horse-battery", is_staff=True)
    client = client_for(staff)

    for url in (QUEUE, f"{QUEUE}{cases.fabricated.pk}/change/", f"{QUEUE}overview/", f"{QUEUE}export.csv"):
        assert client.get(url).status_code == 403, url


def test_reviewer_cannot_add_or_delete_answers_or_touch_documents(cases, reviewer_client, attendance):
    assert reviewer_client.get(f"{QUEUE}add/").status_code == 403
    assert reviewer_client.get(f"{QUEUE}{cases.low.pk}/delete/").status_code == 403
    response = reviewer_client.post(f"{QUEUE}{cases.low.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403 and Answer.objects.filter(pk=cases.low.pk).exists()
    assert reviewer_client.get(f"/admin/documents/document/{attendance.document_id}/change/").status_code == 403
    # No delete action offered either.
    assert "delete_selected" not in reviewer_client.get(QUEUE).content.decode()


def form_data(response: HttpResponse) -> dict[str, Any]:
    """The POST data the change page would submit as is (review fields and inline management forms)."""
    data: dict[str, Any] = {}
    form = response.context["adminform"].form
    for name in form.fields:
        value = form[name].value()
        data[name] = "" if value is None else value
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        for name in formset.management_form.fields:
            data[f"{formset.prefix}-{name}"] = formset.management_form[name].value()
        for sub in formset.forms:
            for name in sub.fields:
                value = sub[name].value()
                if value is not None:
                    data[sub.add_prefix(name)] = value
    return data


def test_reviewer_changes_status_notes_and_assignee_but_not_the_answer(cases, reviewer, reviewer_client):
    url = f"{QUEUE}{cases.fabricated.pk}/change/"
    data = form_data(reviewer_client.get(url))
    assert set(data) >= {"review_status", "review_notes", "assigned_to"}
    data.update(
        review_status=Answer.ReviewStatus.NEEDS_DOCUMENT_FIX,
        review_notes="規程に締め日の記載がない",
        assigned_to=reviewer.pk,
        # Fields a reviewer must not be able to change, even by crafting the POST.
        answer_text="書き換えた回答",
        question="書き換えた質問",
        confidence="high",
        flag_fabricated_source="",
    )

    response = reviewer_client.post(url, data)

    assert response.status_code == 302, response.context and response.context["adminform"].form.errors
    cases.fabricated.refresh_from_db()
    assert cases.fabricated.review_status == Answer.ReviewStatus.NEEDS_DOCUMENT_FIX
    assert cases.fabricated.review_notes == "規程に締め日の記載がない"
    assert cases.fabricated.assigned_to == reviewer
    assert cases.fabricated.answer_text == "company_policy.mdによると月末です。"
    assert cases.fabricated.question == "経費精算の締め日はいつですか？"
    assert cases.fabricated.confidence == Answer.Confidence.LOW
    assert cases.fabricated.flag_fabricated_source is True


def test_assignee_must_be_a_reviewer(cases, reviewer_client, employee):
    url = f"{QUEUE}{cases.low.pk}/change/"
    data = form_data(reviewer_client.get(url))
    data["assigned_to"] = employee.pk

    response = reviewer_client.post(url, data)

    assert response.status_code == 200 and "assigned_to" in response.context["adminform"].form.errors
    cases.low.refresh_from_db()
    assert cases.low.assigned_to is None


def test_bulk_actions_update_rows_and_report_counts(cases, reviewer, reviewer_client):
    chosen = [cases.fabricated.pk, cases.low.pk]

    response = reviewer_client.post(QUEUE, {"action": "mark_resolved", "_selected_action": chosen}, follow=True)

    assert "2 件の回答を「解決済み」にしました" in response.content.decode()
    assert set(Answer.objects.filter(review_status="resolved").values_list("pk", flat=True)) == set(chosen)

    response = reviewer_client.post(QUEUE, {"action": "assign_to_me", "_selected_action": chosen[:1]}, follow=True)

    assert "1 件の回答を自分に割り当てました" in response.content.decode()
    assert Answer.objects.get(pk=chosen[0]).assigned_to == reviewer


def test_evidence_page_shows_everything_stored_and_escapes_it(make_answer, rate, attendance, outsider, reviewer_client):
    answer = make_answer(
        "<script>alert('q')</script>有給は？",
        expanded_query="有給 年次有給休暇 年休",
        confidence=Answer.Confidence.LOW,
        flag_low_grounding=True,
        answer_text="関連する文書を十分に見つけられませんでした",
        original_answer_text="有給は20日です。<img src=x onerror=alert(1)>",
        retrieved=[snapshot(attendance, score=0.0328, similarity=0.8421)],
        # The shape of verification.verdict.Verdict.to_dict().
        verification={
            "confidence": "low",
            "flags": ["low_grounding"],
            "warnings": ["回答の根拠が不十分です"],
            "needs_review": True,
            "grounded_ratio": 0.25,
            "citation_presence": {"has_citation": False, "citation_quality": "none"},
            "quote_checks": [
                {
                    "block": 0,
                    "citation": 0,
                    "chunk_index": 0,
                    "verified": False,
                    "start": None,
                    "end": None,
                    "reason": "not_found",
                    "found_in_chunk": None,
                },
            ],
            "sentences": [
                {
                    "text": "有給は20日です。",
                    "start": 0,
                    "end": 9,
                    "supported": False,
                    "reason": "数値「20日」が根拠にない",
                    "missing": ["20日"],
                },
            ],
            "replaced_text": "関連する文書を十分に見つけられませんでした",
            "retrieval_confidence": "medium",
        },
        warnings=["回答の根拠が不十分です"],
    )
    cite(answer, attendance, "入社6ヶ月後に10日付与されます。")
    rate(answer, outsider, Feedback.Rating.DOWN, comment="<b>違う</b>")

    html = reviewer_client.get(f"/admin/qa/answer/{answer.pk}/change/").content.decode()

    for visible in (
        "有給 年次有給休暇 年休",  # expanded query
        "関連する文書を十分に見つけられませんでした",  # what the user saw
        "有給は20日です。",  # what the provider said
        "数値「20日」が根拠にない（根拠にない語: 20日）",  # sentence verdict with the missing terms
        "<td>原文に見つからない</td>",  # quote check row, in words
        "25%",  # grounded ratio
        "回答の根拠が不十分です",  # warning
        "0.033",
        "0.842",  # snapshot scores
        "勤怠規程 &gt; 有給休暇",  # section, escaped
        "原文と一致",  # quote check of the citation
        "&lt;b&gt;違う&lt;/b&gt;",  # feedback comment, escaped
    ):
        assert visible in html, visible
    assert "<script>alert('q')</script>" not in html and "&lt;script&gt;" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<b>違う</b>" not in html


def test_evidence_survives_reindexing_the_cited_document(make_answer, attendance, reviewer_client):
    quote = "入社6ヶ月後に10日付与されます。"
    answer = make_answer(confidence=Answer.Confidence.LOW, retrieved=[snapshot(attendance)])
    cite(answer, attendance, quote)
    # Re-index: a new version with different text replaces the old one, whose chunks go away.
    document = attendance.document
    old_version = attendance.version
    new_text = "年次有給休暇は入社3ヶ月後に12日付与されます。"
    new_version = DocumentVersion.objects.create(
        document=document,
        number=2,
        file="documents/x/attendance-v2.md",
        original_name="attendance.md",
        sha256="1" * 64,
        text=new_text,
    )
    document.live_version = new_version
    document.save(update_fields=["live_version"])
    new_version.chunks.create(document=document, ordinal=0, text=new_text, start=0, end=len(new_text))
    old_version.delete()

    html = reviewer_client.get(f"/admin/qa/answer/{answer.pk}/change/").content.decode()

    assert answer.citations.get().chunk is None
    assert quote in html  # the citation's own copy
    assert "申請は3日前までに行ってください。" in html  # the retrieved snapshot's text
    assert "再索引などで削除済み" in html
    assert "12日付与" not in html
