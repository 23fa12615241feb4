"""A gateway's own errors, in the bodies LiteLLM's proxy (1.110.2) sent on each of its four
routes in front of llama-cpp-python (tests/fixtures/http/litellm/), through the real adapters
and a real HTTP server on 127.0.0.1: its context-window error is the model failure
`context_exceeded`, its "no deployments available … cooldown" is infrastructure."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ledgerrate.providers.base import (
    ContextExceeded,
    InfraError,
    ModelError,
    RateLimited,
)
from ledgerrate.providers.gateway import cooldown_wait
from ledgerrate.providers.wire import ConfigError
from ledgerrate.testing.fake_shapes import FakeReply

FIXTURES = Path(__file__).parents[1] / "fixtures" / "http" / "litellm"
FAMILIES = ["openai", "openai-responses", "anthropic", "gemini"]
# The route's envelope for each family's cooldown reply: LiteLLM's Gemini and Responses routes
# answer in the OpenAI envelope.
COOLDOWN = {
    "openai": "cooldown_openai.json",
    "openai-responses": "cooldown_openai.json",
    "anthropic": "cooldown_anthropic.json",
    "gemini": "cooldown_openai.json",
}


def _body(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def _served(kit: SimpleNamespace, family: str, status: int, body: Any) -> Any:
    return kit.served(family, FakeReply(status=status, raw=body))


@pytest.mark.parametrize("family", FAMILIES)
def test_the_gateways_context_window_error_is_a_model_failure(
    kit: SimpleNamespace, family: str
) -> None:
    body = _body(f"context_window_{family.replace('-', '_')}.json")
    err = _served(kit, family, 400, body)
    assert isinstance(err, ContextExceeded) and isinstance(err, ModelError), err
    # the sizes come from the upstream server's words the gateway quotes
    assert err.context_tokens == 4096
    assert err.requested_tokens in (6020, 6026)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_gateways_verdict_counts_whatever_the_upstream_words(
    kit: SimpleNamespace, family: str
) -> None:
    """The gateway names the exception even when the upstream server's text is in no shape we
    know (here an upstream that says only "input is too long"): still the model's failure."""
    body = _body(f"context_window_{family.replace('-', '_')}.json")
    text = json.dumps(body)
    upstream = text[text.index("OpenAIException - ") : text.index("Please reduce")]
    changed = json.loads(text.replace(upstream, "UpstreamException - Input is too long. "))
    err = _served(kit, family, 400, changed)
    assert isinstance(err, ContextExceeded), err
    assert (err.requested_tokens, err.context_tokens) == (None, None)


@pytest.mark.parametrize("family", FAMILIES)
def test_all_deployments_in_cooldown_is_infrastructure(kit: SimpleNamespace, family: str) -> None:
    err = _served(kit, family, 429, _body(COOLDOWN[family]))
    assert isinstance(err, RateLimited) and isinstance(err, InfraError), err
    assert not isinstance(err, ConfigError | ModelError)
    assert err.retry_after == 5.0  # the wait the gateway names, absent a Retry-After header


def test_cooldown_wait_reads_only_the_gateways_cooldown() -> None:
    said = "No deployments available … Try again in 2.5 seconds … in cooldown"
    assert cooldown_wait(429, said) == 2.5
    assert cooldown_wait(429, "No deployments available for selected model; in cooldown") == 0.0
    assert cooldown_wait(429, "Rate limit reached for requests") is None
    assert cooldown_wait(400, "No deployments available … cooldown") is None
