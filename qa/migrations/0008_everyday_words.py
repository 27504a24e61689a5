"""Once added everyday Japanese wording pairs to the synonym dictionary; now adds nothing.

Its rows were written against the demo corpus, so they are demo data in
documents/demo_corpus/glossary.json, loaded by `load_demo` only, and a fresh
install starts with an empty dictionary. Kept so the migration graph stays
intact; 0010_glossary_remove_shipped_synonyms deletes the rows on installs
that ran it.
"""

from __future__ import annotations

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("qa", "0007_answer_queue_name")]
