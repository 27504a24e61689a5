from __future__ import annotations

from django.db import migrations

from documents.keyword_index import postgres_drop_sql, postgres_schema_sql


def create(apps, schema_editor) -> None:
    # The PostgreSQL keyword index (on SQLite, 0003's FTS5 table is the index).
    if schema_editor.connection.vendor == "postgresql":
        for statement in postgres_schema_sql():
            schema_editor.execute(statement)


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        for statement in postgres_drop_sql():
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("documents", "0005_indexing_progress")]
    operations = [migrations.RunPython(create, drop)]
