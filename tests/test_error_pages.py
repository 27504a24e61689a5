"""The 403, 404 and 500 pages: the portal's layout and language, with a way back to the chat."""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory
from django.views.defaults import server_error


pytestmark = pytest.mark.django_db


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)  # Client.login has no request, which django-axes needs
    return client


def test_reviewer_on_the_documents_page_gets_the_portal_403(reviewer):
    response = _signed_in(reviewer).get("/documents/")
    body = response.content.decode()
    assert response.status_code == 403
    assert "アクセスできません" in body
    assert 'class="topbar"' in body  # the portal's header, with the user's navigation
    assert 'href="/"' in body and "質問ページに戻る" in body
    assert "403 Forbidden" not in body


def test_unknown_page_gets_the_portal_404_in_the_chosen_language(employee):
    client = _signed_in(employee)
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert "ページが見つかりません" in response.content.decode()
    assert "質問ページに戻る" in response.content.decode()

    english = client.get("/no-such-page/", headers={"accept-language": "en"})
    assert english.status_code == 404
    assert "Page not found" in english.content.decode()
    assert "Back to the questions page" in english.content.decode()


def test_another_users_conversation_is_the_portal_404(employee, outsider):
    from tests.qa.answer_rows import make_answer

    answer = make_answer(employee)
    response = _signed_in(outsider).get(f"/c/{answer.conversation_id}/")
    assert response.status_code == 404
    assert "ページが見つかりません" in response.content.decode()


def test_server_error_page_renders_without_a_request_context():
    response = server_error(RequestFactory().get("/"))
    body = response.content.decode()
    assert response.status_code == 500
    assert "サーバーエラー" in body
    assert 'href="/"' in body and "質問ページに戻る" in body
    assert 'href="/static/css/portal.css"' in body or "portal" in body


def test_a_form_sent_without_its_csrf_token_gets_the_portal_page_not_djangos(employee):
    client = Client(enforce_csrf_checks=True)
    client.force_login(employee)
    response = client.post("/ask/", {"text": "有給休暇は何日もらえますか？"})
    body = response.content.decode()
    assert response.status_code == 403
    assert "フォームの有効期限が切れました" in body
    assert "CSRF verification failed" not in body
    assert "質問ページに戻る" in body


def test_a_database_outage_outside_a_view_gets_the_503_page_not_the_500_page():
    """handler500 sees what failed: a lock or connection failure in a middleware (saving the session) is a 503 too."""
    from django.db import OperationalError

    from ragportal.database_unavailable import server_error as portal_server_error

    try:
        raise OperationalError("database is locked")
    except OperationalError:
        response = portal_server_error(RequestFactory().get("/"))
    body = response.content.decode()
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert "データベースに一時的に接続できません。しばらくしてからもう一度お試しください。" in body
    assert "質問ページに戻る" in body

    try:
        raise ValueError("a bug")
    except ValueError:
        response = portal_server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert "サーバーエラー" in response.content.decode()
