"""Provider adapters, one family per module, listed in `families.py` (ARCHITECTURE.md §3).
`make_provider` is the only way stages obtain one."""

from __future__ import annotations

import httpx

from ledgerrate.providers.base import Provider
from ledgerrate.schema import ModelSpec


def make_provider(spec: ModelSpec, client: httpx.AsyncClient, api_key: str) -> Provider:
    """An adapter for `spec` over the injected client. Baselines are not made here."""
    from ledgerrate.providers import families

    return families.get(spec.provider).make(spec, client, api_key)
