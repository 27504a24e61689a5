"""Roles are Django groups: every signed-in user is an employee; owners upload; reviewers review."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User

OWNERS_GROUP = "owners"
REVIEWERS_GROUP = "reviewers"


def is_owner(user: User | AnonymousUser) -> bool:
    return bool(user.is_authenticated and (user.is_superuser or user.groups.filter(name=OWNERS_GROUP).exists()))


def is_reviewer(user: User | AnonymousUser) -> bool:
    return bool(user.is_authenticated and (user.is_superuser or user.groups.filter(name=REVIEWERS_GROUP).exists()))
