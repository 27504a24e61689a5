"""Search keywords from the configured cloud provider (optional LLM query expansion).

``llm_keywords(question)`` asks the provider chosen by ``RAG_PROVIDER`` for up
to ``MAX_KEYWORDS`` search keywords. It raises on any failure (missing key,
HTTP error, timeout, an answer that is not a JSON list of strings):
``qa.expansion.expand`` catches that and keeps the dictionary expansion, so a
flaky provider can never fail a question. The offline ``extractive`` provider
has no model to ask; calling this with it configured raises
ProviderConfigurationError (callers only pass it for cloud providers).

Retries and the timeout come from the same settings as answering
(RAG_PROVIDER_MAX_RETRIES, RAG_PROVIDER_TIMEOUT).
"""

from __future__ import annotations

import json
import re

from django.conf import settings

from qa.types import ProviderConfigurationError

MAX_KEYWORDS = 8
MAX_TOKENS = 256

KEYWORD_PROMPT = (
    "あなたは社内文書の検索を手伝います。利用者の質問に答えを含む文書を見つけるための検索キーワードを、"
    f"最大{MAX_KEYWORDS}個挙げてください。言い換え・正式名称・関連する制度名を含め、"
    "質問にない事実を作らないでください。"
    '出力は JSON の文字列配列だけにしてください（例: ["有給休暇", "年次有給休暇"]）。説明は書かないでください。'
)

CLOUD_PROVIDERS = ("anthropic", "gemini")

# A JSON array somewhere in a reply (models sometimes wrap it in a code fence or a sentence).
_JSON_ARRAY = re.compile(r"\[.*\]", re.S)


def is_enabled() -> bool:
    """True when settings ask for LLM expansion and the configured provider is a cloud one."""
    return bool(settings.RAG_LLM_EXPANSION) and _provider_name() in CLOUD_PROVIDERS


def llm_keywords(question: str) -> list[str]:
    """Up to ``MAX_KEYWORDS`` distinct, non-empty keywords for ``question``; raises on any failure."""
    name = _provider_name()
    if name == "anthropic":
        raw = _ask_anthropic(question)
    elif name == "gemini":
        raw = _ask_gemini(question)
    else:
        raise ProviderConfigurationError(f"LLM query expansion needs a cloud provider, not {name!r}.")
    return clean_keywords(raw)


def clean_keywords(raw: object) -> list[str]:
    """Validate a model's reply: a list of strings, stripped, de-duplicated, at most ``MAX_KEYWORDS``.

    Raises ValueError for anything that is not a list of strings.
    """
    if not isinstance(raw, list) or not all(isinstance(k, str) for k in raw):
        raise ValueError(f"expected a JSON list of strings, got {type(raw).__name__}")
    keywords: list[str] = []
    for keyword in raw:
        keyword = keyword.strip()
        if keyword and keyword not in keywords:
            keywords.append(keyword)
    return keywords[:MAX_KEYWORDS]


def parse_keyword_list(text: str) -> object:
    """The JSON array in ``text`` (the whole reply, or the first ``[...]`` inside it); raises ValueError."""
    text = (text or "").strip()
    try:
        return json.loads(text)
    except ValueError:
        match = _JSON_ARRAY.search(text)
        if match is None:
            raise ValueError("no JSON list in the reply") from None
        return json.loads(match.group(0))


def _provider_name() -> str:
    return (settings.RAG_PROVIDER or "extractive").strip().lower()


def _ask_anthropic(question: str) -> object:
    import anthropic

    if not settings.ANTHROPIC_API_KEY:
        raise ProviderConfigurationError("LLM query expansion with anthropic needs ANTHROPIC_API_KEY.")
    client = anthropic.Anthropic(
        api_key=settings.ANTHROPIC_API_KEY,
        base_url=settings.ANTHROPIC_BASE_URL or None,
        timeout=float(settings.RAG_PROVIDER_TIMEOUT),
        max_retries=int(settings.RAG_PROVIDER_MAX_RETRIES),
    )
    response = client.messages.create(
        model=settings.ANTHROPIC_MODEL,
        max_tokens=MAX_TOKENS,
        system=KEYWORD_PROMPT,
        messages=[{"role": "user", "content": question}],
    )
    text = "".join(getattr(block, "text", "") for block in response.content if getattr(block, "type", None) == "text")
    return parse_keyword_list(text)


def _ask_gemini(question: str) -> object:
    from google import genai
    from google.genai import types as genai_types

    if not settings.GEMINI_API_KEY:
        raise ProviderConfigurationError("LLM query expansion with gemini needs GEMINI_API_KEY.")
    retries = int(settings.RAG_PROVIDER_MAX_RETRIES)
    client = genai.Client(
        api_key=settings.GEMINI_API_KEY,
        http_options=genai_types.HttpOptions(
            base_url=settings.GEMINI_BASE_URL or None,
            timeout=max(1, int(float(settings.RAG_PROVIDER_TIMEOUT) * 1000)),  # the SDK wants milliseconds
            retry_options=genai_types.HttpRetryOptions(attempts=retries + 1),
        ),
    )
    response = client.models.generate_content(
        model=settings.GEMINI_MODEL,
        contents=question,
        config=genai_types.GenerateContentConfig(
            system_instruction=KEYWORD_PROMPT,
            response_mime_type="application/json",
            response_schema=list[str],
            temperature=0.0,
        ),
    )
    parsed = getattr(response, "parsed", None)
    if isinstance(parsed, list):
        return parsed
    return parse_keyword_list(response.text or "")
