from __future__ import annotations

from django.apps import AppConfig


class VerificationConfig(AppConfig):
    name = "verification"
    verbose_name = "Review"

    def ready(self) -> None:
        # The owners' pages show the review side's "needs a document fix" answers.
        from documents.notices import register_notice_source
        from verification.queue import fix_notices

        register_notice_source(fix_notices)
