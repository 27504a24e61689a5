from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from qa.glossary import glossary_read, synonyms_load


class Command(BaseCommand):
    help = (
        'Load wording pairs from a glossary file (UTF-8 JSON: {"entries": {"term": "expansion, expansion"}}) into '
        "the synonym dictionary: new terms are added, an existing term's expansions overwritten, other terms left "
        "alone (idempotent). The portal ships no glossary; `load_demo` loads the demo's."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the glossary file")

    def handle(self, *args: object, **options: object) -> None:
        path = Path(str(options["path"]))
        if not path.is_file():
            raise CommandError(f"{path} not found")
        try:
            loaded = synonyms_load(entries=glossary_read(path))
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        except ValidationError as exc:
            raise CommandError(f"{path.name}: {'; '.join(exc.messages)}") from exc
        self.stdout.write(
            f"{path.name}: {loaded.total} glossary entries loaded "
            f"({loaded.created} new, {loaded.updated} changed, {loaded.unchanged} unchanged)"
        )
