"""Document names compared as NFKC + case folding (documents.filenames.name_key), and the indexing queue's admin proxy."""

from __future__ import annotations

import unicodedata

from django.db import migrations, models


def _key(name: str) -> str:
    # documents.filenames.name_key as of this migration (a migration must not change with the code).
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def fill_keys(apps, schema_editor) -> None:
    Document = apps.get_model("documents", "Document")
    taken: set[str] = set()
    for document in Document.objects.order_by("pk"):
        key = _key(document.filename)
        if key in taken:
            # Look-alike names stored before this rule: both stay; the later one keeps its own key.
            key = f"{key}\x00{document.pk}"[:255]
        taken.add(key)
        Document.objects.filter(pk=document.pk).update(name_key=key)


class Migration(migrations.Migration):
    dependencies = [
        ("documents", "0006_keyword_tables_postgres"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [
        migrations.AddField(
            model_name="document",
            name="name_key",
            field=models.CharField(editable=False, max_length=255, null=True),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="document",
            name="name_key",
            field=models.CharField(editable=False, max_length=255, unique=True),
        ),
        migrations.CreateModel(
            name="IndexingTask",
            fields=[],
            options={
                "verbose_name": "索引作成の待ち行列",
                "verbose_name_plural": "索引作成の待ち行列",
                "proxy": True,
                "indexes": [],
                "constraints": [],
            },
            bases=("django_tasks_database.dbtaskresult",),
        ),
    ]
