"""Provider adapters, one family per module, listed in `families.py` (ARCHITECTURE.md §3).
`make_provider` is the only way stages obtain one.

Importing the package loads the registry, so any code that reaches an adapter also knows every
family's `provider:` spelling."""

from __future__ import annotations

import httpx

from ledgerrate.providers import families
from ledgerrate.providers.base import Provider
from ledgerrate.schema import ModelSpec


def make_provider(spec: ModelSpec, client: httpx.AsyncClient, api_key: str) -> Provider:
    """An adapter for `spec` over the injected client. Baselines are not made here."""
    return families.get(spec.provider).make(spec, client, api_key)
