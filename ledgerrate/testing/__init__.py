"""Test doubles shipped with the package, so tests and benchmarks share one fake provider."""

from __future__ import annotations

from ledgerrate.testing.fake_provider import (
    FakeProviderServer,
    FakeRequest,
    TokenBucket,
    script_for,
    scripted_client,
)
from ledgerrate.testing.fake_shapes import (
    DEFAULT_TEXT,
    DEFAULT_USAGE,
    FAMILIES,
    FakeReply,
    FakeToolCall,
)

__all__ = [
    "DEFAULT_TEXT",
    "DEFAULT_USAGE",
    "FAMILIES",
    "FakeProviderServer",
    "FakeReply",
    "FakeRequest",
    "FakeToolCall",
    "TokenBucket",
    "script_for",
    "scripted_client",
]
