from __future__ import annotations

from django.apps import AppConfig


class QaConfig(AppConfig):
    name = "qa"
    verbose_name = "Q&A"
