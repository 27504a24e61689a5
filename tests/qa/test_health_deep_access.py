"""``/api/v1/health/deep`` names a drifting document only to staff who may read it.

The security report (issue 20, item 9): any staff user, an owner included, read the
file names of restricted documents there. Decision: the file name follows the
portal's read rule (``visible_documents``; superusers read everything); other staff
still get the document's counts, under ``"(restricted document)"``.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User

from documents.roles import OWNERS_GROUP
from qa.api import RESTRICTED_DOCUMENT
from tests.conftest import _user, as_user
from tests.documents.conftest import TRAVEL_MD, WIFI_TXT, ingest
from tests.documents.test_recovery import lose_dense_index

pytestmark = pytest.mark.django_db


def _names(api, user: User) -> dict[str, dict[str, int]]:
    response = as_user(api, user).get("/api/v1/health/deep")
    assert response.status_code == 200, response.content
    return {entry["filename"]: entry["counts"] for entry in response.json()["index"]["documents"]}


def test_deep_health_names_restricted_documents_only_to_staff_who_may_read_them(api, admin_user):
    managers = Group.objects.get_or_create(name="managers")[0]
    ingest(admin_user, "secret-plan.md", TRAVEL_MD, groups=[managers])
    ingest(admin_user, "wifi.txt", WIFI_TXT)
    lose_dense_index()
    staff_owner = _user("staff_owner", OWNERS_GROUP, is_staff=True)
    staff_manager = _user("staff_manager", managers.name, is_staff=True)

    for_owner = _names(api, staff_owner)
    assert set(for_owner) == {"wifi.txt", RESTRICTED_DOCUMENT}
    assert for_owner[RESTRICTED_DOCUMENT]["dense_missing"] > 0  # the counts stay: the operator still sees the drift
    assert "secret-plan" not in str(for_owner)

    assert set(_names(api, staff_manager)) == {"wifi.txt", "secret-plan.md"}
    assert set(_names(api, admin_user)) == {"wifi.txt", "secret-plan.md"}
