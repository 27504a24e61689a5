"""Choosing the provider from settings, and the start-up check for missing keys."""

from __future__ import annotations

import pytest
from django.core import checks

from qa.checks import check_answer_provider
from qa.providers import get_provider
from qa.providers.anthropic_provider import AnthropicProvider
from qa.providers.extractive import ExtractiveProvider
from qa.providers.gemini_provider import GeminiProvider
from qa.types import ProviderConfigurationError


def test_default_is_the_offline_extractive_provider():
    provider = get_provider()
    assert isinstance(provider, ExtractiveProvider) and provider.name == "extractive"


def test_anthropic_is_built_from_settings(settings):
    settings.RAG_PROVIDER = "anthropic"
    settings.ANTHROPIC_API_KEY = "sk-test"
    settings.ANTHROPIC_MODEL = "claude-x"
    settings.ANTHROPIC_BASE_URL = "http://127.0.0.1:9"
    settings.RAG_PROVIDER_TIMEOUT = 7.5
    settings.RAG_PROVIDER_MAX_RETRIES = 4
    provider = get_provider()
    assert isinstance(provider, AnthropicProvider) and provider.model == "claude-x"
    assert str(provider.client.base_url).startswith("http://127.0.0.1:9")
    assert provider.client.timeout == 7.5 and provider.client.max_retries == 4


def test_gemini_is_built_from_settings(settings):
    settings.GEMINI_API_KEY = "g-test"
    settings.GEMINI_MODEL = "gemini-2.5-flash"
    provider = get_provider("gemini")
    assert isinstance(provider, GeminiProvider) and provider.model == "gemini-2.5-flash"


@pytest.mark.parametrize("name,key", [("anthropic", "ANTHROPIC_API_KEY"), ("gemini", "GEMINI_API_KEY")])
def test_missing_key_is_a_configuration_error_and_a_startup_check_error(settings, name, key):
    settings.RAG_PROVIDER = name
    setattr(settings, key, "")
    with pytest.raises(ProviderConfigurationError, match=key):
        get_provider()
    [error] = check_answer_provider()
    assert error.level == checks.ERROR and error.id == "qa.E001" and key in error.msg


def test_check_is_registered_and_silent_for_the_default():
    assert check_answer_provider() == []
    assert check_answer_provider in checks.registry.registry.get_checks()


def test_unknown_provider_name_is_a_configuration_error():
    with pytest.raises(ProviderConfigurationError, match="extractive"):
        get_provider("openai")
