"""Provider adapters, one per API family. `make_provider` is the only way stages obtain one."""

from __future__ import annotations

import httpx

from ledgerrate.providers.base import Provider
from ledgerrate.schema import ModelSpec, ProviderFamily


def make_provider(spec: ModelSpec, client: httpx.AsyncClient, api_key: str) -> Provider:
    """An adapter for `spec` over the injected client. Baselines are not made here."""
    if spec.provider == ProviderFamily.openai:
        from ledgerrate.providers.openai import OpenAIChat

        return OpenAIChat(spec, client, api_key)
    if spec.provider == ProviderFamily.anthropic:
        from ledgerrate.providers.anthropic import AnthropicMessages

        return AnthropicMessages(spec, client, api_key)
    if spec.provider == ProviderFamily.gemini:
        from ledgerrate.providers.gemini import GeminiGenerate

        return GeminiGenerate(spec, client, api_key)
    raise ValueError(f"no HTTP adapter for provider family {spec.provider}")
