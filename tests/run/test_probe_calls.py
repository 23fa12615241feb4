"""The tools probe records its calls as an attempt does (`run.calls`): timed from when the request
left its slot, with what it keeps apart from an attempt (unreported usage stays unknown, a failed
call's text is sealed against the keys)."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from ledgerrate.providers.base import Completion, CompletionRequest, InfraError, ToolCall
from ledgerrate.providers.clock import request_leaves
from ledgerrate.run import probe
from ledgerrate.schema import ModelPrice, ModelSpec, PricingTable, Usage, UsageBasis

QUEUED_S = 0.4  # how long a request waits for its slot before it leaves
KEY = "sk-probe-test-key-0123456789"

SPEC = ModelSpec.model_validate(
    {
        "id": "m",
        "name": "m",
        "provider": "openai",
        "family": "openai",
        "api_model": "m",
        "base_url": "http://127.0.0.1:9",
        "api_key_env": "PROBE_TEST_KEY",
        "sampling": {"temperature": 0},
    }
)
PRICE = ModelPrice(
    input_per_mtok=Decimal("1"),
    output_per_mtok=Decimal("1"),
    source_url="https://example.test/prices",
    retrieved_at="2026-07-01T00:00:00Z",
)
PRICING = PricingTable(frozen_at="2026-07-01T00:00:00Z", models={"m": PRICE})


async def queued(request: CompletionRequest) -> Completion:
    """As the runner's slot holder does: the request waits, then is marked as leaving."""
    await asyncio.sleep(QUEUED_S)
    request_leaves()
    calls = [ToolCall(id="c1", name=probe.TOOL.name, arguments={"token": probe.TOKEN})]
    return Completion(
        text="",
        tool_calls=calls if request.tools else [],
        raw={"ok": True},
        usage=None,  # a server that reports no usage
        http_status=200,
    )


def test_a_probe_call_is_timed_from_when_it_left_its_slot() -> None:
    result = asyncio.run(probe.probe_tools(queued, SPEC, "e", PRICING, []))
    assert result.ok
    latencies = [c.latency_s for c in result.record.calls]
    assert all(latency < QUEUED_S / 2 for latency in latencies), latencies


def test_a_probe_keeps_unreported_usage_unknown() -> None:
    result = asyncio.run(probe.probe_tools(queued, SPEC, "e", PRICING, []))
    assert all(c.usage_basis is UsageBasis.none for c in result.record.calls)
    assert result.record.usage == Usage()  # never estimated into infrastructure spend


def test_a_failed_probe_call_never_keeps_the_key() -> None:
    async def refused(_request: CompletionRequest) -> Completion:
        raise InfraError(f"upstream echoed {KEY}", status=502, raw={"error": f"bad {KEY}"})

    result = asyncio.run(probe.probe_tools(refused, SPEC, "e", PRICING, [KEY]))
    assert not result.ok
    text = result.record.model_dump_json()
    assert KEY not in text and "upstream echoed" in text
