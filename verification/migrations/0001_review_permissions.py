"""Give the role groups the model permissions the review admin checks.

- ``reviewers``: view and change answers (the admin form only exposes the review
  fields, so "change" means review status, notes and assignment), view their
  citations and feedback; manage the synonym dictionary.
- ``owners``: manage the synonym dictionary.

Django creates Permission rows in a post_migrate signal, i.e. after all
migrations of a fresh database have run, so this migration creates the ones it
needs first (idempotently) instead of assuming they exist.
"""

from __future__ import annotations

from django.apps import apps as global_apps
from django.contrib.auth.management import create_permissions
from django.db import migrations

GRANTS: dict[str, list[tuple[str, str]]] = {
    "reviewers": [
        ("qa", "view_answer"),
        ("qa", "change_answer"),
        ("qa", "view_citation"),
        ("qa", "view_feedback"),
        ("qa", "add_synonymentry"),
        ("qa", "change_synonymentry"),
        ("qa", "delete_synonymentry"),
        ("qa", "view_synonymentry"),
    ],
    "owners": [
        ("qa", "add_synonymentry"),
        ("qa", "change_synonymentry"),
        ("qa", "delete_synonymentry"),
        ("qa", "view_synonymentry"),
    ],
}


def _permissions(apps, group_name: str) -> list:
    Permission = apps.get_model("auth", "Permission")
    wanted = GRANTS[group_name]
    found = []
    for app_label, codename in wanted:
        found.append(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    return found


def grant(apps, schema_editor) -> None:
    create_permissions(global_apps.get_app_config("qa"), verbosity=0, apps=apps, using=schema_editor.connection.alias)
    Group = apps.get_model("auth", "Group")
    for group_name in GRANTS:
        group, _ = Group.objects.get_or_create(name=group_name)
        group.permissions.add(*_permissions(apps, group_name))


def revoke(apps, schema_editor) -> None:
    Group = apps.get_model("auth", "Group")
    for group_name in GRANTS:
        group = Group.objects.filter(name=group_name).first()
        if group is not None:
            group.permissions.remove(*_permissions(apps, group_name))


class Migration(migrations.Migration):
    dependencies = [
        ("documents", "0002_role_groups"),
        ("qa", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
