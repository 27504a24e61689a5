from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("qa", "0011_corpus_calibration"),
    ]

    operations = [
        migrations.AddField(
            model_name="answer",
            name="is_example",
            field=models.BooleanField(default=False, verbose_name="例"),
        ),
    ]
