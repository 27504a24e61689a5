from __future__ import annotations

from django.apps import AppConfig


class DocumentsConfig(AppConfig):
    name = "documents"
    verbose_name = "Documents"

    def ready(self) -> None:
        # Project-wide ORM behaviour; the app every other one builds on registers it.
        from ragportal import lookups

        lookups.register()
