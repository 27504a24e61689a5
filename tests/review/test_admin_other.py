"""The other admin pages this feature owns: synonyms, conversations, documents."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from qa.models import SynonymEntry
from tests.review.conftest import client_for

pytestmark = pytest.mark.django_db


def test_reviewers_and_staff_owners_maintain_the_synonym_dictionary(reviewer, owner):
    owner.is_staff = True  # the admin itself is for staff; the group grants the model rights
    owner.save(update_fields=["is_staff"])

    for user, term in ((reviewer, "テスト用語A"), (owner, "テスト用語B")):
        response = client_for(user).post(
            "/admin/qa/synonymentry/add/", {"term": term, "expansions": "年次有給休暇, 有休"}
        )
        assert response.status_code == 302, (user, response.context and response.context["adminform"].form.errors)
    entry = SynonymEntry.objects.get(term="テスト用語A")
    assert entry.expansion_list() == ["年次有給休暇", "有休"]

    response = client_for(reviewer).post(f"/admin/qa/synonymentry/{entry.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302 and not SynonymEntry.objects.filter(pk=entry.pk).exists()


def test_conversations_are_for_superusers_only_and_read_only(make_answer, reviewer, admin_user):
    answer = make_answer("他人の会話")
    url = f"/admin/qa/conversation/{answer.conversation_id}/change/"

    assert client_for(reviewer).get("/admin/qa/conversation/").status_code == 403
    assert client_for(reviewer).get(url).status_code == 403
    admin = client_for(admin_user)
    assert "他人の会話" in admin.get("/admin/qa/conversation/").content.decode()
    response = admin.post(url, {"title": "書き換え"})
    assert response.status_code == 403
    answer.conversation.refresh_from_db()
    assert answer.conversation.title == "他人の会話"


def test_document_admin_lists_documents_and_their_chunks(attendance, admin_user, reviewer):
    admin = client_for(admin_user)

    listing = admin.get("/admin/documents/document/", {"q": "attendance"}).content.decode()
    version_page = admin.get(f"/admin/documents/documentversion/{attendance.version_id}/change/").content.decode()

    assert "attendance.md" in listing and "勤怠規程" in listing
    assert "勤怠規程 &gt; 有給休暇" in version_page  # the chunk inline, escaped
    assert client_for(reviewer).get("/admin/documents/document/").status_code == 403
    staff = User.objects.create_user("staff2", password="correct-horse-battery", is_staff=True)
    assert client_for(staff).get("/admin/qa/synonymentry/").status_code == 403
