"""End to end through the real adapters and a real HTTP server (the fake provider)."""

from __future__ import annotations

import io
from collections import Counter
from decimal import Decimal
from pathlib import Path

from rich.console import Console

from ledgerrate.core.io import read_jsonl
from ledgerrate.generate.register import register_edition
from ledgerrate.run import bodies
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import CostBasis, RunRecord, RunStatus, Usage, UsageBasis
from ledgerrate.testing.fake_provider import FakeProviderServer
from tests.run.runkit import SENTINEL_KEY, model, price

FAST = RetryPolicy(base_s=0.001, cap_s=2.0)
# What the fake reports per successful call (ledgerrate.testing.fake_shapes.DEFAULT_USAGE).
OPENAI_USAGE = Usage(
    input_tokens=1000, cached_input_tokens=200, output_tokens=300, reasoning_tokens=100
)
ANTHROPIC_USAGE = Usage(input_tokens=1000, cached_input_tokens=200, output_tokens=300)
# Worked by hand from the prices below, per call:
#   oa: 1000 × $2 + 200 × $0.50 (cached) + 300 × $8 = $4,500 per 1M calls → $0.0045
#   an: 1000 × $3 + 200 × $3 (no cached price: input) + 300 × $15 = $8,100 → $0.0081
OA_CALL, AN_CALL = Decimal("0.0045"), Decimal("0.0081")


def _all(root: Path) -> list[RunRecord]:
    return [r for p in sorted((root / "runs").rglob("*.jsonl")) for r in read_jsonl(p, RunRecord)]


def test_two_workloads_two_families_both_modes(edition_factory, lookup) -> None:
    with FakeProviderServer() as fake:
        root = edition_factory(
            models=[
                model("oa", "openai", api_model="fake-tool", base_url=fake.base_url("openai")),
                model(
                    "an",
                    "anthropic",
                    api_model="fake-503-once.e2e",
                    base_url=fake.base_url("anthropic"),
                ),
            ],
            workloads=["toy.add.v1", "toy.sub.v1"],
            prices={
                "oa": {**price("2", "8"), "cached_input_per_mtok": "0.5"},
                "an": price("3", "15"),
            },
            n=3,
        )
        register_edition(root, lookup=lookup)
        out = io.StringIO()
        summary = run_edition(
            root, RunOptions(concurrency=4), lookup=lookup, retry=FAST, console=Console(file=out)
        )
        seen = fake.requests
    recs = _all(root)
    assert summary.missing == 0
    cells = Counter((r.workload, r.model, r.mode) for r in recs)
    for wid in ("toy.add.v1", "toy.sub.v1"):
        for mode in ("single-shot", "agentic"):
            assert cells[(wid, "oa", mode)] == 3  # no faults: one attempt per item
            assert cells[(wid, "an", mode)] == 6  # each item: a 503, then its retry
    for r in recs:
        if r.model == "oa":
            assert r.status == "completed" and r.attempt == 1
            calls = 1 if r.mode == "single-shot" else 2  # agentic: a tool call, then the answer
            assert len(r.calls) == calls
            assert r.usage == sum([OPENAI_USAGE] * calls, Usage())
            assert r.cost.model_usd == OA_CALL * calls
            assert r.usage_basis == UsageBasis.provider_reported and r.cost_basis == "measured"
            if r.mode == "agentic":
                assert r.answer and r.answer.startswith("fake final answer")
                assert r.steps[0].tool_results[0].call.name == "add"
                assert not r.steps[0].tool_results[0].ok  # `add` without arguments: an error
        else:
            assert len(r.calls) == 1
            if r.attempt == 1:
                assert r.status == RunStatus.infra_excluded and r.calls[0].http_status == 503
                assert r.usage == Usage() and r.cost.model_usd == 0
                assert r.cost_basis == CostBasis.estimated  # nothing reported: not a measurement
            else:
                assert r.attempt == 2 and r.status == "completed" and r.answer == "fake reply"
                assert r.usage == ANTHROPIC_USAGE and r.cost.model_usd == AN_CALL
                assert r.cost_basis == "measured"
        request = bodies.whole(r, root).request
        assert request and "messages" in request
    total = sum((r.cost.model_usd for r in recs), Decimal(0))
    assert total == 2 * 3 * (OA_CALL + 2 * OA_CALL) + 2 * 2 * 3 * AN_CALL
    # every request carried the key in its header, and nothing written or printed holds it
    assert len(seen) == 2 * 3 * 3 + 2 * 2 * 3 * 2
    assert all(SENTINEL_KEY in " ".join(q.headers.values()) for q in seen)
    for path in root.rglob("*"):
        if path.is_file():
            assert SENTINEL_KEY not in path.read_text(errors="replace"), path
    assert SENTINEL_KEY not in out.getvalue()


def test_429_honours_retry_after(edition_factory, lookup) -> None:
    with FakeProviderServer() as fake:
        root = edition_factory(
            models=[model("oa", api_model="fake-429-once", base_url=fake.base_url("openai"))],
            n=1,
        )
        register_edition(root, lookup=lookup)
        run_edition(
            root,
            RunOptions(modes=["single-shot"]),
            lookup=lookup,
            retry=FAST,
            console=Console(file=io.StringIO()),
        )
        seen = fake.requests
    first, second = _all(root)
    assert (first.status, second.status) == (RunStatus.infra_excluded, RunStatus.completed)
    assert first.calls[0].http_status == 429
    # the server said Retry-After: 1; the retry waited at least that long
    waited = (second.started_at - first.finished_at).total_seconds()
    assert waited >= 0.95, waited
    assert len(seen) == 2
