"""The live fake provider: real sockets, every family, scripted faults, a two-step tool loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from ledgerrate.core.cost import usage_cost
from ledgerrate.core.tools import ToolSpec
from ledgerrate.providers import make_provider
from ledgerrate.providers.base import (
    Completion,
    CompletionRequest,
    InfraError,
    Message,
    ModelError,
    ProviderError,
    RateLimited,
    TimedOut,
)
from ledgerrate.providers.wire import ConfigError
from ledgerrate.schema import ModelPrice, PricingTable, Usage
from ledgerrate.testing import (
    DEFAULT_TEXT,
    DEFAULT_USAGE,
    FakeProviderServer,
    FakeReply,
    FakeToolCall,
)

FAMILIES = ("openai", "anthropic", "gemini", "openai-responses")
KEY = "fake-key-0123456789"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeProviderServer]:
    with FakeProviderServer(slow_s=3.0) as server:
        yield server


def _call(
    kit: SimpleNamespace,
    server: FakeProviderServer,
    family: str,
    model: str,
    request: CompletionRequest | None = None,
    times: int = 1,
    key: str = KEY,
    **spec_kw: Any,
) -> list[Completion | ProviderError]:
    """`times` identical calls in a row over one client; results or errors, in order."""
    spec = kit.spec(family, api_model=model, base_url=server.base_url(family), **spec_kw)

    async def go() -> list[Completion | ProviderError]:
        out: list[Completion | ProviderError] = []
        async with httpx.AsyncClient() as client:
            provider = make_provider(spec, client, key)
            for _ in range(times):
                try:
                    out.append(await provider.complete(request or kit.simple_request()))
                except ProviderError as exc:
                    out.append(exc)
        return out

    return kit.run(go())


@pytest.mark.parametrize("family", FAMILIES)
def test_default_reply_round_trip(
    kit: SimpleNamespace, fake: FakeProviderServer, family: str
) -> None:
    (c,) = _call(kit, fake, family, f"plain-{family}")
    assert isinstance(c, Completion)
    assert c.text == DEFAULT_TEXT
    assert c.usage == DEFAULT_USAGE[family]
    seen = [r for r in fake.requests if r.model == f"plain-{family}"]
    assert len(seen) == 1
    assert seen[0].body == make_provider(
        kit.spec(family, api_model=f"plain-{family}"), httpx.AsyncClient(), KEY
    ).request_body(kit.simple_request())  # type: ignore[attr-defined]


def test_default_usage_costs_to_the_cent() -> None:
    price = ModelPrice(
        input_per_mtok=Decimal("1.00"),
        output_per_mtok=Decimal("4.00"),
        cached_input_per_mtok=Decimal("0.10"),
        source_url="https://example.test/prices",
        retrieved_at="2026-07-01T00:00:00Z",
    )
    table = PricingTable(frozen_at="2026-07-01T00:00:00Z", models={"m": price})
    for family in FAMILIES:
        # 1000 × $1 + 200 × $0.10 + 300 × $4, per million tokens.
        assert usage_cost(DEFAULT_USAGE[family], table, "m").model_usd == Decimal("0.00222")


def _tool() -> ToolSpec:
    return ToolSpec(
        name="lookup_vendor",
        description="Find a vendor by name.",
        parameters={"type": "object", "properties": {"name": {"type": "string"}}},
        run=lambda args: "vendor 7: Acme GmbH",
    )


@pytest.mark.parametrize("family", FAMILIES)
def test_two_step_tool_loop(kit: SimpleNamespace, fake: FakeProviderServer, family: str) -> None:
    model = f"fake-tool.{family}"
    tool = _tool()
    messages = [Message(role="user", content="Who is vendor 7?")]
    (first,) = _call(kit, fake, family, model, CompletionRequest("sys", messages, [tool]))
    assert isinstance(first, Completion)
    assert [c.name for c in first.tool_calls] == ["lookup_vendor"]
    call = first.tool_calls[0]
    messages += [
        Message(role="assistant", content=first.text, tool_calls=first.tool_calls, raw=first.raw),
        Message(
            role="tool",
            content=tool.run(call.arguments),
            tool_call_id=call.id,
            tool_name=call.name,
        ),
    ]
    (second,) = _call(kit, fake, family, model, CompletionRequest("sys", messages, [tool]))
    assert isinstance(second, Completion)
    assert second.tool_calls == []
    assert second.text == "fake final answer; last tool result: vendor 7: Acme GmbH"
    assert second.usage == DEFAULT_USAGE[family]
    assert len([r for r in fake.requests if r.model == model]) == 2


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize(
    ("model", "cls", "status"),
    [
        ("fake-429-once", RateLimited, 429),
        ("fake-500-once", InfraError, 500),
        ("fake-503-once", InfraError, 503),
        ("fake-529-once", InfraError, 529),
    ],
)
def test_once_faults_then_ok(
    kit: SimpleNamespace,
    fake: FakeProviderServer,
    family: str,
    model: str,
    cls: type[Exception],
    status: int,
) -> None:
    request = kit.simple_request(messages=[Message(role="user", content=f"{family} {model}")])
    err, ok = _call(kit, fake, family, model, request, times=2)
    assert type(err) is cls
    assert err.status == status
    if status == 429:
        assert err.retry_after == 1.0
    assert isinstance(ok, Completion) and ok.text == DEFAULT_TEXT


@pytest.mark.parametrize("family", FAMILIES)
def test_malformed_empty_and_no_usage(
    kit: SimpleNamespace, fake: FakeProviderServer, family: str
) -> None:
    (torn,) = _call(kit, fake, family, "fake-malformed")
    assert type(torn) is InfraError
    assert isinstance(torn.raw, str) and torn.raw.startswith('{"id": "torn')
    (empty,) = _call(kit, fake, family, "fake-empty")
    assert type(empty) is ModelError
    assert empty.usage == Usage(input_tokens=DEFAULT_USAGE[family].input_tokens)
    (bare,) = _call(kit, fake, family, "fake-no-usage")
    assert isinstance(bare, Completion) and bare.usage is None


@pytest.mark.parametrize("family", FAMILIES)
def test_slow_trips_the_client_timeout(
    kit: SimpleNamespace, fake: FakeProviderServer, family: str
) -> None:
    started = time.monotonic()
    (err,) = _call(kit, fake, family, "fake-slow", timeout_s=0.3)
    assert type(err) is TimedOut
    assert isinstance(err, InfraError)
    assert "raise models[" in str(err)
    assert "0.3 s" in str(err)
    assert time.monotonic() - started < 2.5


@pytest.mark.parametrize("family", FAMILIES)
def test_missing_key_is_a_config_error(
    kit: SimpleNamespace, fake: FakeProviderServer, family: str
) -> None:
    (err,) = _call(kit, fake, family, "plain", key="")
    assert type(err) is ConfigError
    # With no key, no credentials header is sent (a loopback server may need none); a server
    # that wants one refuses with 401.
    assert err.status == 401


def test_key_in_query_string_is_refused(fake: FakeProviderServer) -> None:
    url = f"{fake.base_url('gemini')}/v1beta/models/m:generateContent?key=abc"
    response = httpx.post(url, json={"contents": []}, headers={"x-goog-api-key": "abc"})
    assert response.status_code == 400


def test_headers_are_recorded(kit: SimpleNamespace, fake: FakeProviderServer) -> None:
    _call(kit, fake, "anthropic", "headers-check")
    (request,) = [r for r in fake.requests if r.model == "headers-check"]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"


def test_the_responses_family_is_served_on_its_own_path(
    kit: SimpleNamespace, fake: FakeProviderServer
) -> None:
    _call(kit, fake, "openai-responses", "responses-check")
    (request,) = [r for r in fake.requests if r.model == "responses-check"]
    assert (request.family, request.path) == ("openai-responses", "/v1/responses")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["store"] is False


def test_responder_decides_and_falls_back(kit: SimpleNamespace) -> None:
    def responder(family: str, body: dict[str, Any]) -> FakeReply | None:
        if body.get("model") == "custom":
            return FakeReply(
                text="",
                tool_calls=[FakeToolCall("run_sql", {"query": "SELECT 1"})],
                usage=Usage(input_tokens=5, cache_write_tokens=7, output_tokens=2),
            )
        if body.get("model") == "quota":
            return FakeReply(status=429, headers={"Retry-After": "4"})
        return None

    with FakeProviderServer(responder=responder) as server:
        (custom,) = _call(kit, server, "openai", "custom")
        (limited,) = _call(kit, server, "anthropic", "quota")
        (default,) = _call(kit, server, "anthropic", "anything")
    assert isinstance(custom, Completion)
    assert custom.tool_calls[0].arguments == {"query": "SELECT 1"}
    assert custom.usage == Usage(input_tokens=5, cache_write_tokens=7, output_tokens=2)
    assert isinstance(limited, RateLimited) and limited.retry_after == 4.0
    assert isinstance(default, Completion) and default.text == DEFAULT_TEXT
    assert server.errors == []


def test_rate_limiter_answers_429_past_the_burst(kit: SimpleNamespace) -> None:
    with FakeProviderServer(rate_limit_per_s=2, burst=2) as server:
        results = _call(kit, server, "gemini", "plain", times=3)
    assert [type(r).__name__ for r in results] == ["Completion", "Completion", "RateLimited"]
    limited = results[2]
    assert isinstance(limited, RateLimited)
    assert limited.retry_after is not None and 0 < limited.retry_after <= 0.5


def test_concurrent_requests(kit: SimpleNamespace, fake: FakeProviderServer) -> None:
    spec = kit.spec("openai", api_model="many", base_url=fake.base_url("openai"))

    async def go() -> list[Completion]:
        async with httpx.AsyncClient() as client:
            provider = make_provider(spec, client, KEY)
            requests = [
                kit.simple_request(messages=[Message(role="user", content=str(i))])
                for i in range(100)
            ]
            return await asyncio.gather(*(provider.complete(r) for r in requests))

    results = kit.run(go())
    assert all(r.text == DEFAULT_TEXT for r in results)
    assert len([r for r in fake.requests if r.model == "many"]) == 100


@pytest.mark.slow
def test_sustains_two_thousand_requests(kit: SimpleNamespace, fake: FakeProviderServer) -> None:
    """The throughput benchmark's load: 2,000 calls, 32 in flight, none lost or failed."""
    spec = kit.spec("anthropic", api_model="bulk", base_url=fake.base_url("anthropic"))

    async def go() -> list[Completion]:
        limits = httpx.Limits(max_connections=32)
        async with httpx.AsyncClient(limits=limits) as client:
            provider = make_provider(spec, client, KEY)
            gate = asyncio.Semaphore(32)

            async def one(i: int) -> Completion:
                async with gate:
                    message = Message(role="user", content=str(i))
                    return await provider.complete(kit.simple_request(messages=[message]))

            return await asyncio.gather(*(one(i) for i in range(2000)))

    results = kit.run(go())
    assert len(results) == 2000
    assert all(r.usage == DEFAULT_USAGE["anthropic"] for r in results)
    assert len([r for r in fake.requests if r.model == "bulk"]) == 2000
