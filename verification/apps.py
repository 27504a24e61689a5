from __future__ import annotations

from django.apps import AppConfig


class VerificationConfig(AppConfig):
    """The verification app: pure checks in ``verification/``, the reviewers' side in ``verification/review/``."""

    name = "verification"
    verbose_name = "Review"

    def ready(self) -> None:
        # The review queue's admin lives in the review package, where the admin's
        # autodiscovery (which imports ``<app>.admin``) does not look: register it here.
        import verification.review.admin  # noqa: F401
        from documents.notices import register_notice_source
        from verification.review.notices import fix_notices

        # The owners' pages show the review side's "needs a document fix" answers.
        register_notice_source(fix_notices)
