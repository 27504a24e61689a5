from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from qa.presenters import answer_payload
from qa.services import answer_question


class Command(BaseCommand):
    help = "Ask a question through the whole pipeline and print the answer with its footnotes (or --json)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("question")
        parser.add_argument("--user", default="", help="ask as this user (default: the first superuser)")
        parser.add_argument("--json", action="store_true", help="print the API's JSON body")

    def handle(self, *args: object, **options: object) -> None:
        User = get_user_model()
        if options["user"]:
            user = User.objects.filter(username=options["user"]).first()
            if user is None:
                raise CommandError(f"no user named {options['user']!r}")
        else:
            user = User.objects.filter(is_superuser=True).order_by("pk").first()
            if user is None:
                raise CommandError("no superuser: pass --user")
        try:
            result = answer_question(user=user, text=str(options["question"]))
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        payload = answer_payload(result)
        if options["json"]:
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2))
            return
        self.stdout.write(_as_text(payload))


def _as_text(payload: dict) -> str:
    lines = [f"Q: {payload['question']}", ""]
    if payload["response_type"] == "clarification":
        lines.append(payload["clarification"]["message"])
        lines += [f"  - {o['filename']} ({o['section']})" for o in payload["clarification"]["options"]]
    else:
        lines.append(payload["answer"])
    lines.append("")
    for c in payload["citations"]:
        mark = "✓" if c["quote_verified"] else "✗"
        lines.append(f"[{c['n']}] {c['filename']} — {c['section']} {mark}")
        lines.append(f"    「{c['cited_text']}」")
    lines.append("")
    lines.append(f"confidence: {payload['confidence']}   type: {payload['response_type']}")
    for warning in payload["verification"].get("warnings", []):
        lines.append(f"warning: {warning}")
    if payload["flags"]:
        lines.append(f"flags: {', '.join(payload['flags'])}")
    return "\n".join(lines)
