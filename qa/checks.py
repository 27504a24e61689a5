"""Django system checks for the Q&A app.

A cloud provider chosen without its API key is reported when the project
starts (``runserver``, ``migrate``, ``check``), not as a stack trace at the
first question.
"""

from __future__ import annotations

from typing import Any

from django.core import checks

from qa.types import ProviderConfigurationError


@checks.register()
def check_answer_provider(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Error ``qa.E001`` when the configured answer provider cannot be built."""
    from qa.providers import get_provider

    try:
        get_provider()
    except ProviderConfigurationError as exc:
        return [
            checks.Error(
                str(exc),
                hint="Set the API key in the environment, or RAG_PROVIDER=extractive for the offline provider.",
                id="qa.E001",
            )
        ]
    return []
