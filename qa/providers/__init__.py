"""Answer providers: ``get_provider()`` returns the one chosen by ``RAG_PROVIDER``.

``extractive`` (default, offline), ``anthropic`` (Claude, native citations) or
``gemini`` (google-genai, quotes located in their chunks). All implement
``qa.providers.base.Provider``.
"""

from __future__ import annotations

from qa.providers.base import ABSTAIN_EN, ABSTAIN_JA, Provider
from qa.types import ProviderConfigurationError

PROVIDER_NAMES = ("extractive", "anthropic", "gemini")


def get_provider(name: str | None = None, *, timeout: float | None = None) -> Provider:
    """Build the provider ``name`` (default: ``settings.RAG_PROVIDER``) from Django settings.

    Reads ANTHROPIC_* / GEMINI_* (key, model, base URL), RAG_PROVIDER_TIMEOUT
    (seconds; ``timeout`` overrides it) and RAG_PROVIDER_MAX_RETRIES. Raises ProviderConfigurationError
    for an unknown name or a cloud provider without its API key. The SDK
    modules are imported only for the provider chosen.
    """
    from django.conf import settings

    chosen = (name or settings.RAG_PROVIDER or "extractive").strip().lower()
    timeout = float(settings.RAG_PROVIDER_TIMEOUT if timeout is None else timeout)
    retries = int(settings.RAG_PROVIDER_MAX_RETRIES)
    if chosen == "extractive":
        from qa.providers.extractive import ExtractiveProvider

        return ExtractiveProvider()
    if chosen == "anthropic":
        from qa.providers.anthropic_provider import AnthropicProvider

        return AnthropicProvider(
            api_key=settings.ANTHROPIC_API_KEY,
            model=settings.ANTHROPIC_MODEL,
            base_url=settings.ANTHROPIC_BASE_URL,
            timeout=timeout,
            max_retries=retries,
        )
    if chosen == "gemini":
        from qa.providers.gemini_provider import GeminiProvider

        return GeminiProvider(
            api_key=settings.GEMINI_API_KEY,
            model=settings.GEMINI_MODEL,
            base_url=settings.GEMINI_BASE_URL,
            timeout=timeout,
            max_retries=retries,
        )
    raise ProviderConfigurationError(f"Unknown RAG_PROVIDER {chosen!r}; choose one of {', '.join(PROVIDER_NAMES)}.")


__all__ = ["ABSTAIN_EN", "ABSTAIN_JA", "PROVIDER_NAMES", "Provider", "get_provider"]
