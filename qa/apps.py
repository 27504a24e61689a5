from __future__ import annotations

from django.apps import AppConfig


class QaConfig(AppConfig):
    name = "qa"
    verbose_name = "Q&A"

    def ready(self) -> None:
        # Registers the system checks (a cloud provider without its API key).
        from documents.signals import live_documents_changed
        from qa import checks  # noqa: F401
        from qa.tasks import calibration_schedule

        # The live documents changed: recalibrate in the background (qa.tasks).
        live_documents_changed.connect(calibration_schedule, dispatch_uid="qa.calibration_schedule")
