"""The Content-Security-Policy: sent on every page, strict, and no page carries code it would block.

The policy allows scripts and styles from the portal's own origin only, so an
inline ``<script>``, ``<style>``, ``style=`` attribute, ``on…=`` handler or
``hx-on`` attribute (htmx evaluates those with ``eval``) would silently stop
working in the browser. This test reads every page a user can reach, as each
role, and fails on any of them; tests/browser/test_csp.py checks the browser
reports no violation.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client

from tests.documents.conftest import TRAVEL_MD, ingest
from tests.qa.answer_rows import make_answer

pytestmark = pytest.mark.django_db


def _directives(header: str) -> dict[str, list[str]]:
    parts = (part.split() for part in header.split(";") if part.strip())
    return {words[0]: words[1:] for words in parts}


class InlineCode(HTMLParser):
    """Collects what a strict CSP blocks: inline scripts and styles, style attributes, inline handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if tag == "script" and "src" not in names and dict(attrs).get("type") != "application/json":
            self.found.append(f"inline <script> at line {self.getpos()[0]}")
        if tag == "style":
            self.found.append(f"<style> at line {self.getpos()[0]}")
        for name, value in attrs:
            if name == "style" or name.startswith("on") or name.startswith("hx-on"):
                self.found.append(f"<{tag} {name}=...> at line {self.getpos()[0]}")
            if value and value.strip().lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}='javascript:...'> at line {self.getpos()[0]}")


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    return parser.found


def test_the_policy_is_strict_and_on_every_response(client):
    response = client.get("/accounts/login/")

    policy = _directives(response["Content-Security-Policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert "unsafe" not in response["Content-Security-Policy"]
    # API answers and redirects carry it too.
    assert "Content-Security-Policy" in client.get("/api/v1/health").headers
    assert "Content-Security-Policy" in client.get("/").headers


def test_htmx_is_told_not_to_inject_styles_or_evaluate_attributes(client, employee):
    client.force_login(employee)
    html = client.get("/").content.decode()

    assert '<meta name="htmx-config" content=\'{"includeIndicatorStyles": false, "allowEval": false}\'>' in html
    assert "/static/js/portal.js" in html


def _pages(employee, owner, admin_user) -> list[tuple[Client, str]]:
    answer = make_answer(employee)
    clarification = make_answer(
        employee,
        response_type="clarification",
        clarification={
            "message": "どちらの文書ですか？",
            "options": [{"document_id": 1, "filename": "a.md", "title": "A", "section": "", "score": 0.9}],
        },
    )
    flagged = make_answer(employee, confidence="low", flag_low_grounding=True)  # in the review queue
    document = ingest(owner, filename="travel.md", text=TRAVEL_MD)
    anonymous, as_employee, as_owner, as_admin = Client(), Client(), Client(), Client()
    as_employee.force_login(employee)
    as_owner.force_login(owner)
    as_admin.force_login(admin_user)
    return [
        (anonymous, "/accounts/login/"),
        (as_employee, "/"),
        (as_employee, f"/c/{answer.conversation_id}/"),
        (as_employee, f"/c/{clarification.conversation_id}/"),
        (as_owner, "/documents/"),
        (as_owner, "/documents/upload/"),
        (as_owner, f"/documents/{document.pk}/"),
        (as_owner, f"/documents/{document.pk}/delete/"),
        (as_admin, "/admin/"),
        (as_admin, "/admin/qa/answer/"),
        (as_admin, f"/admin/qa/answer/{flagged.pk}/change/"),
        (as_admin, "/admin/qa/answer/overview/"),
        (as_admin, "/admin/documents/document/"),
        (as_admin, f"/admin/documents/document/{document.pk}/change/"),
        (as_admin, "/admin/auth/user/"),
        (as_employee, "/api/docs/"),
    ]


def test_no_page_has_code_the_policy_would_block(employee, owner, admin_user):
    problems = {}
    for client, url in _pages(employee, owner, admin_user):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "Content-Security-Policy" in response.headers, url
        if found := inline_code(response.content.decode()):
            problems[url] = found
    assert problems == {}


def test_upload_error_fragment_has_no_inline_code(client, owner):
    client.force_login(owner)
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        "/documents/upload/", {"file": SimpleUploadedFile("empty.md", b"")}, headers={"HX-Request": "true"}
    )

    assert response.status_code == 400
    assert inline_code(response.content.decode()) == []
