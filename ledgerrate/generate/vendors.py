"""What `ledgerrate new` assumes about each hosted API family, in one table each.

`VENDORS` maps an API family (the `provider:` an edition spells) to the vendor it reaches by
default: the vendor family written into `family:`, the public base URL, the conventional name of
the key's environment variable, and the **price database's provider id** (genai-prices), so
that the one mapping from our family names to the database's lives here and nowhere else.

`SAMPLING_EXCEPTIONS` lists the models known to refuse `temperature: 0`; each row carries the
page that documents it. Every other model is sent temperature 0 (standard §3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Vendor:
    family: str
    """The vendor family written to `family:` (a judge of the same family is disclosed)."""
    base_url: str
    """The vendor's public API base URL, in the adapter's convention."""
    key_env: str
    """The environment variable conventionally holding the vendor's key."""
    price_provider: str
    """The price database's provider id (genai-prices `Provider.id`)."""


VENDORS: dict[str, Vendor] = {
    "openai": Vendor("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "openai"),
    "openai-responses": Vendor("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "openai"),
    "anthropic": Vendor("anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY", "anthropic"),
    "gemini": Vendor(
        "google", "https://generativelanguage.googleapis.com", "GEMINI_API_KEY", "google"
    ),
}


@dataclass(frozen=True)
class SamplingException:
    families: frozenset[str]
    model: re.Pattern[str]
    note: str
    source: str


OPENAI_REASONING = SamplingException(
    families=frozenset({"openai", "openai-responses"}),
    # o1, o3, o4-mini and the GPT-5 reasoning models; `gpt-5-chat…` is a chat model and takes it.
    model=re.compile(r"^(o[1-9]([.-]|$)|gpt-5(?!-chat)([.-]|$))"),
    note=(
        "No temperature is sent: OpenAI's reasoning models accept only their default sampling "
        "(a request with temperature 0 is refused: 'Unsupported value: temperature does not "
        "support 0 with this model. Only the default (1) value is supported'), so the provider "
        "default applies."
    ),
    source="https://platform.openai.com/docs/guides/reasoning",
)

SAMPLING_EXCEPTIONS: tuple[SamplingException, ...] = (OPENAI_REASONING,)


def sampling_for(api_family: str, api_model: str) -> tuple[dict[str, object], str]:
    """The sampling settings and their note for a model: temperature 0 unless it refuses it."""
    for exception in SAMPLING_EXCEPTIONS:
        if api_family in exception.families and exception.model.search(api_model.lower()):
            return {}, f"{exception.note} Source: {exception.source}"
    return {"temperature": 0}, ""
