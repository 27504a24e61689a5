from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from qa.examples import EXAMPLE_USERNAME
from qa.services import example_answers_load


class Command(BaseCommand):
    help = (
        "Store example answers (a JSON list written by make_example_answers) in the review queue, marked 例 and "
        f"asked by the user '{EXAMPLE_USERNAME}' (created inactive, without a password). Idempotent: an example "
        "already stored is skipped. `load_demo` loads the demo's; a portal without the demo has none."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the example answers file")

    def handle(self, *args: object, **options: object) -> None:
        path = Path(str(options["path"]))
        if not path.is_file():
            raise CommandError(f"{path} not found")
        try:
            examples = json.loads(path.read_text("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CommandError(f"{path.name}: not UTF-8 JSON: {exc}") from exc
        user, created = get_user_model().objects.get_or_create(username=EXAMPLE_USERNAME, defaults={"is_active": False})
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        stored = example_answers_load(examples=examples, user=user)
        self.stdout.write(f"{path.name}: {stored} example answers stored ({len(examples) - stored} already there)")
