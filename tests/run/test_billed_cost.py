"""Provider-billed cost (issue #47 §2): a reply's stated cost is recorded beside the computed
one, never instead of it, and each cell reconciles the two. Over HTTP to the fake provider on
127.0.0.1, which states each reply's cost as LiteLLM's proxy (`x-litellm-response-cost`) or
OpenRouter (`usage.cost`) does."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ledgerrate.core.cost import call_cost
from ledgerrate.core.edition import load_edition
from ledgerrate.core.io import read_jsonl
from ledgerrate.generate.register import register_edition
from ledgerrate.metrics.report import edition_results
from ledgerrate.providers.billed import reported_cost
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import CallRecord, RunRecord
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.testing.fake_shapes import Bill
from tests.run.runkit import model
from tests.verify import standalone_kit

FAMILIES = ["openai", "openai-responses", "anthropic", "gemini"]
# The edition's frozen prices (runkit.price): $2/M input (cached reads too, none priced apart)
# and $8/M output.
SAME = Bill(input_per_mtok="2.00", output_per_mtok="8.00", cached_per_mtok="2.00")


def _run(root: Path, lookup: Any) -> None:
    run_edition(
        root,
        RunOptions(modes=["single-shot"]),
        lookup=lookup,
        retry=RetryPolicy(base_s=0.001, cap_s=0.01),
        console=Console(file=io.StringIO(), width=200),
        show_progress=False,
    )


def _edition(edition_factory: Any, lookup: Any, family: str, bill: Bill | None) -> Path:
    with FakeProviderServer(bills=bill) as fake:
        root = edition_factory(models=[model("m", family, base_url=fake.base_url(family))], n=3)
        register_edition(root, lookup=lookup)
        _run(root, lookup)
    return root


def _cell(root: Path, lookup: Any) -> Any:
    from ledgerrate.metrics.meta import WorkloadMeta

    def meta(workload_id: str) -> Any:
        w = lookup(workload_id)
        return WorkloadMeta(w.id, w.title, w.unit, w.volume, w.judged, tuple(w.modes))

    cells = edition_results(root, lookup=meta).workloads[0].cells
    (cell,) = [c for c in cells if c.mode == "single-shot"]
    return cell


def _records(root: Path) -> list[RunRecord]:
    return read_jsonl(root / "runs" / "toy.add.v1" / "m" / "single-shot.jsonl", RunRecord)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_stated_cost_is_recorded_as_stated_and_reconciled(edition_factory, lookup, family):
    root = _edition(edition_factory, lookup, family, SAME)
    records = _records(root)
    pricing = load_edition(root).pricing
    assert len(records) == 3
    for record in records:
        (call,) = record.calls
        # as the gateway stated it: the shortest text of the double it computed
        assert call.billed_usd == Decimal(repr(SAME.amount(call.usage)))
        # the cost is still usage × the frozen prices, never the stated figure
        assert call.cost == call_cost(call.usage, call.latency_s, pricing, "m")
        assert abs(call.billed_usd - call.cost.model_usd) < Decimal("1e-12")
    billed = _cell(root, lookup).billed
    assert billed is not None
    assert (billed.calls, billed.calls_billed, billed.basis) == (3, 3, "reconciled")
    assert billed.computed_usd == sum(r.calls[0].cost.model_usd for r in records)
    assert billed.billed_usd == sum(r.calls[0].billed_usd for r in records)
    assert billed.difference_usd == billed.billed_usd - billed.computed_usd
    assert billed.agrees


@pytest.mark.parametrize("family", ["openai", "openai-responses"])
def test_openrouters_usage_cost_is_read_too(edition_factory, lookup, family):
    bill = Bill(
        input_per_mtok="2.00", output_per_mtok="8.00", cached_per_mtok="2.00", where="usage"
    )
    root = _edition(edition_factory, lookup, family, bill)
    for record in _records(root):
        (call,) = record.calls
        assert call.response["usage"]["cost"] == bill.amount(call.usage)
        assert call.billed_usd == Decimal(repr(bill.amount(call.usage)))
    assert _cell(root, lookup).billed.agrees


def test_a_bill_that_differs_is_shown_never_applied(edition_factory, lookup):
    """The gateway charges $2.50/M input where the frozen price is $2: the difference is the
    extra $0.50/M on every input token, and the cell's spend stays the computed one."""
    dearer = Bill(input_per_mtok="2.50", output_per_mtok="8.00", cached_per_mtok="2.50")
    root = _edition(edition_factory, lookup, "anthropic", dearer)
    cell = _cell(root, lookup)
    records = _records(root)
    inputs = sum(r.usage.input_tokens + r.usage.cached_input_tokens for r in records)
    assert cell.spend_usd == sum(r.cost.total_usd for r in records)
    billed = cell.billed
    assert billed is not None and billed.basis == "reconciled" and not billed.agrees
    assert abs(billed.difference_usd - Decimal("0.50") * inputs / 1_000_000) < Decimal("1e-12")


def test_no_stated_cost_leaves_records_and_cells_as_they_were(edition_factory, lookup):
    root = _edition(edition_factory, lookup, "openai", None)
    raw = (root / "runs" / "toy.add.v1" / "m" / "single-shot.jsonl").read_text(encoding="utf-8")
    assert "billed_usd" not in raw  # left out of the dump: sealed logs keep their bytes
    cell = _cell(root, lookup)
    assert cell.billed is None and "billed" not in cell.model_dump(mode="json")


def test_a_call_without_a_reply_makes_the_reconciliation_partial(edition_factory, lookup):
    with FakeProviderServer(bills=SAME) as fake:
        root = edition_factory(
            models=[
                model("m", "openai", api_model="fake-500-once", base_url=fake.base_url("openai"))
            ],
            n=2,
        )
        register_edition(root, lookup=lookup)
        _run(root, lookup)
    # a 500 is re-run (infra, outside the cell); so the counted calls all stated their cost
    assert _cell(root, lookup).billed.basis == "reconciled"
    with FakeProviderServer(bills=SAME, responder=_refuse_every_other()) as fake:
        root = edition_factory(
            "2026-08", models=[model("m", "openai", base_url=fake.base_url("openai"))], n=4
        )
        register_edition(root, lookup=lookup)
        _run(root, lookup)
    billed = _cell(root, lookup).billed
    assert billed.basis == "partly-reconciled" and billed.calls_billed < billed.calls


def _refuse_every_other() -> Any:
    from ledgerrate.testing.fake_shapes import FakeReply

    seen: list[int] = []

    def responder(_family: str, _body: dict[str, Any]) -> FakeReply | None:
        seen.append(1)
        if len(seen) % 2:
            return None
        # a context overflow: the model's failure, counted, with no reply that states a cost
        return FakeReply(
            status=400,
            raw={"error": {"message": "maximum context length is 10 tokens", "code": "x"}},
        )

    return responder


@pytest.mark.parametrize(
    ("headers", "body", "found"),
    [
        ({"x-litellm-response-cost": "3.0999999999999995e-05"}, {}, "3.0999999999999995e-05"),
        ({"x-litellm-response-cost": "0"}, {}, "0"),
        ({}, {"usage": {"cost": 0.00012}}, "0.00012"),
        ({"x-litellm-response-cost": "nan"}, {"usage": {"cost": 1}}, "1"),
        ({"x-litellm-response-cost": "-1"}, {}, None),
        ({}, {"usage": {"cost": None}}, None),  # LiteLLM's Responses route says null
        ({}, {"usage": {"cost": True}}, None),
        ({}, {"usage": {"cost": "0.5"}}, "0.5"),
        ({}, {}, None),
    ],
)
def test_reported_cost_reads_only_an_amount(headers, body, found) -> None:
    amount = reported_cost(headers, body)
    assert amount == (None if found is None else Decimal(found))


def test_the_field_is_left_out_of_a_record_without_it() -> None:
    old = {"step": 0, "started_at": "2026-11-01T00:00:00Z", "latency_s": 1.0}
    call = CallRecord.model_validate(old)
    assert "billed_usd" not in json.loads(call.model_dump_json())
    assert CallRecord.model_validate({**old, "billed_usd": "0.1"}).billed_usd == Decimal("0.1")


def _standalone() -> Any:
    return standalone_kit.load("standalone_figures.py", "standalone_figures_billed")


class _Lines:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str, str]] = []

    def __call__(self, status: str, check: str, detail: str, until: str | None = None) -> None:
        self.lines.append((status, check, detail))

    def of(self, check: str) -> list[tuple[str, str]]:
        return [(s, d) for s, c, d in self.lines if c == check]


def test_the_standalone_verifier_redoes_the_reconciliation(edition_factory, lookup):
    """From the logs alone (no package code), the same block as results.json states; an edited
    or dropped block is a mismatch."""
    sf = _standalone()
    dearer = Bill(input_per_mtok="2.50", output_per_mtok="8.00", cached_per_mtok="2.50")
    root = _edition(edition_factory, lookup, "openai", dearer)
    cell = _cell(root, lookup)
    logs = [
        json.loads(line)
        for line in (root / "runs" / "toy.add.v1" / "m" / "single-shot.jsonl").open()
    ]
    fresh = sf.cell_figures(
        ("toy.add.v1", "m", "single-shot"),
        logs,
        [],
        n_expected=3,
        is_reference=False,
        seed=0,
        reps=10,
        protocol_met=True,
    )
    # A token-priced cell: what the verifier's edition walk adds after `cell_figures`.
    fresh["time_priced"] = None
    published = cell.model_dump(mode="json")
    assert sf.same(published["billed"], fresh["billed"])
    assert fresh["billed"]["agrees"] is False and fresh["billed"]["basis"] == "reconciled"

    def compare(block: Any) -> list[tuple[str, str]]:
        shown = {k: v for k, v in published.items() if k != "billed"}
        if block is not None:
            shown["billed"] = block
        doc = {"workloads": [{"workload": "toy.add.v1", "cells": [shown]}]}
        lines = _Lines()
        sf.compare_cells("results.json", doc, {"toy.add.v1": {("m", "single-shot"): fresh}}, lines)
        return lines.of("cell billed cost")

    ((status, _),) = compare(published["billed"])
    assert status == "matched"
    ((status, detail),) = compare({**published["billed"], "difference_usd": "0"})
    assert status == "mismatched" and "difference_usd" in detail
    ((status, detail),) = compare(None)
    assert status == "mismatched" and "states none" in detail


def test_a_reply_the_model_failed_in_keeps_its_stated_cost(edition_factory, lookup):
    """An empty answer is the model's failure, but the reply was billed: its stated cost is
    recorded and counted in the cell's reconciliation like any other call's."""
    with FakeProviderServer(bills=SAME) as fake:
        root = edition_factory(
            models=[
                model("m", "anthropic", api_model="fake-empty", base_url=fake.base_url("anthropic"))
            ],
            n=2,
        )
        register_edition(root, lookup=lookup)
        _run(root, lookup)
    records = _records(root)
    assert records and all(r.status == "model-failure" for r in records)
    for record in records:
        (call,) = record.calls
        assert call.billed_usd == Decimal(repr(SAME.amount(call.usage)))
    billed = _cell(root, lookup).billed
    assert billed is not None and billed.basis == "reconciled" and billed.agrees
