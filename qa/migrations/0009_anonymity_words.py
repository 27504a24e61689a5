"""Everyday ways of saying "without giving my name" → 匿名, the word rules use.

「自分の名前は出したくない」「名乗らずに相談したい」 ask whether something can be done
anonymously; consultation and whistle-blowing rules say 匿名. Like
0008_everyday_words, these are workplace vocabulary, not sentences of the demo
corpus. Reviewers and owners edit them in the admin; an existing term is left as it is.
"""

from django.db import migrations

ANONYMITY_WORDS = {
    "名前を出": "匿名",
    "名前は出": "匿名",
    "名前を言わ": "匿名",
    "名前を伏せ": "匿名",
    "名乗らず": "匿名",
    "名乗らない": "匿名",
    "身元を明かさ": "匿名",
}


def add(apps, schema_editor) -> None:
    SynonymEntry = apps.get_model("qa", "SynonymEntry")
    for term, expansions in ANONYMITY_WORDS.items():
        SynonymEntry.objects.get_or_create(term=term, defaults={"expansions": expansions})


class Migration(migrations.Migration):
    dependencies = [("qa", "0008_everyday_words")]
    operations = [migrations.RunPython(add, migrations.RunPython.noop)]
