"""Per-user rate limit on asking (each question may call an LLM)."""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle


class AskRateThrottle(UserRateThrottle):
    """Scope "ask": ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["ask"]`` (env ``RAG_ASK_RATE``), keyed by user.

    The rate is read when a request is throttled, not when the class is
    imported, so a changed setting takes effect without a restart of the class.
    """

    scope = "ask"

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return None if rate is None else str(rate)
