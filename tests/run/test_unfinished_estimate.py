"""An unfinished attempt of a self-hosted model is priced from an upper bound on each call's
server time, with its basis, never at $0 (2026-12: 14 calls over 115.7 s and 97.3 s cost $0)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
from decimal import Decimal

import yaml

from ledgerrate.core.cost import self_hosted_cost
from ledgerrate.core.edition import load_edition
from ledgerrate.core.io import append_jsonl, write_json
from ledgerrate.core.server_time import edition_server_time
from ledgerrate.generate.dataset import build_dataset
from ledgerrate.run import unfinished
from ledgerrate.schema import AttemptStart, InstancePrice, Mode, RunStatus
from ledgerrate.verify import estimates
from ledgerrate.verify.report import Report
from tests.run import toy
from tests.run.runkit import model

T0 = dt.datetime(2026, 12, 1, 22, 13, 40, 951225, tzinfo=dt.UTC)
# 2026-12's item-01: seven calls, each sent once the one before was answered.
OFFSETS = [0.0, 35.482047, 53.388489, 67.523185, 83.130009, 98.977728, 115.650329]


def _self_hosted(edition_factory):
    root = edition_factory(models=[model("m1", timeout_s=600)])
    edition = load_edition(root)
    instance = InstancePrice(
        instance="2-vCPU VM",
        hour_usd=Decimal("0.10"),
        assumption="assumed instance price",
        source_url="assumption",
        retrieved_at=edition.pricing.frozen_at,
    )
    pricing = edition.pricing.model_copy(update={"models": {}, "self_hosted": {"m1": instance}})
    return dataclasses.replace(edition, pricing=pricing)


def test_unfinished_calls_are_priced_from_a_bound_with_its_basis(edition_factory) -> None:
    edition = _self_hosted(edition_factory)
    spec = edition.manifest.model("m1")
    dataset = build_dataset(toy.TOY, 7, 2)
    log = edition.paths.root / "runs" / "toy.add.v1" / "m1" / "agentic.jsonl"
    log.parent.mkdir(parents=True)
    for call, offset in enumerate(OFFSETS):
        start = AttemptStart(
            run_id="r-" + "b0" * 12,
            sitting=1,
            item_id=dataset.items[0].id,
            attempt=1,
            call=call,
            started_at=T0 + dt.timedelta(seconds=offset),
            input_chars=2332,
            max_output_tokens=512,
        )
        append_jsonl(unfinished.started_path(log), start)
    (record,) = unfinished.account_unfinished(
        edition, toy.TOY, spec, Mode.agentic, dataset, "0" * 64, log, []
    )
    assert record.status == RunStatus.infra_excluded and record.cost_basis == "estimated"
    gaps = [round(b - a, 6) for a, b in itertools.pairwise(OFFSETS)]
    assert [c.latency_s for c in record.calls] == [*gaps, 600.0]
    assert all(c.latency_s > 0 and c.latency_estimate for c in record.calls)
    assert "next request" in record.calls[0].latency_estimate  # type: ignore[operator]
    assert "timeout_s = 600 s" in record.calls[-1].latency_estimate  # type: ignore[operator]
    for call in record.calls:
        assert call.cost == self_hosted_cost(call.latency_s, edition.pricing, "m1")
    assert record.cost.total_usd == sum(
        (c.cost.total_usd for c in record.calls), Decimal(0)
    ) and record.cost.total_usd > Decimal("0.019")
    # verify re-derives each bound from the recorded clocks, and names a changed one.
    report = Report()
    estimates._check_run(record, edition.manifest, report, "agentic.jsonl")
    assert report.ok and report.checked["estimated call times bounded by the recorded clocks"] == 7
    lowered = record.calls[-1].model_copy(update={"latency_s": 0.0})
    estimates._check_run(
        record.model_copy(update={"calls": [*record.calls[:-1], lowered]}),
        edition.manifest,
        report,
        "agentic.jsonl",
    )
    (found,) = report.mismatches
    assert found.record.endswith("call 6") and found.expected.startswith("600.0 s")
    # The serial-server reconstruction never takes a bound for a measured end.
    assert _no_measured_calls(edition)


def _no_measured_calls(edition) -> bool:
    root = edition.paths.root
    manifest = yaml.safe_load((root / "edition.yaml").read_text())
    manifest["models"][0]["local"] = {"distribution": "x", "file": "x.gguf", "n_ctx": 2048}
    manifest["models"][0]["concurrency"] = 1
    (root / "edition.yaml").write_text(yaml.safe_dump(manifest))
    write_json(root / "pricing.yaml", edition.pricing)  # JSON is YAML
    timed = edition_server_time(root, "m1")
    return timed.cells == [] and timed.open_calls == len(OFFSETS)
