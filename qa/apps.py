from __future__ import annotations

from django.apps import AppConfig


class QaConfig(AppConfig):
    name = "qa"
    verbose_name = "Q&A"

    def ready(self) -> None:
        # Registers the system checks (a cloud provider without its API key).
        from qa import checks  # noqa: F401
