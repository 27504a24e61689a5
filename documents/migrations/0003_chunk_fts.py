from __future__ import annotations

from django.db import migrations

from documents.keyword_index import CREATE_SQL, DROP_SQL


def create(apps, schema_editor) -> None:
    # SQLite FTS5; on PostgreSQL, 0006 creates the keyword tables.
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(CREATE_SQL)


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(DROP_SQL)


class Migration(migrations.Migration):
    dependencies = [("documents", "0002_role_groups")]
    operations = [migrations.RunPython(create, drop)]
