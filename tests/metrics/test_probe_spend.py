"""The tools probes' spend reaches results.json per model, priced afresh, never in a cell."""

from __future__ import annotations

import datetime as dt
import io
import json
from decimal import Decimal
from pathlib import Path

from rich.console import Console

from ledgerrate.core.io import append_jsonl, write_yaml
from ledgerrate.metrics.console import print_tables
from ledgerrate.metrics.report import edition_results
from ledgerrate.schema import Cost, PricingTable, ProbeRecord, ProbeSpend, Usage
from ledgerrate.schema.records import CallRecord

REPO = Path(__file__).resolve().parents[2]
T0 = dt.datetime(2026, 7, 1, 0, 30, tzinfo=dt.UTC)


def _probe(calls: list[tuple[int, int]], stated: str) -> ProbeRecord:
    return ProbeRecord(
        edition="2026-07",
        model="cheap",
        started_at=T0,
        tools_received=True,
        evidence="the tool was called",
        calls=[
            CallRecord(
                step=step,
                started_at=T0,
                latency_s=1.0,
                usage=Usage(input_tokens=i, output_tokens=o),
                # The stated cost is never read: each call is priced afresh.
                cost=Cost(model_usd=Decimal(stated)),
            )
            for step, (i, o) in enumerate(calls)
        ],
    )


def _priced(edition: Path) -> None:
    write_yaml(
        edition / "pricing.yaml",
        PricingTable.model_validate(
            {
                "frozen_at": "2026-07-01T00:00:00Z",
                "models": {
                    "cheap": {
                        "input_per_mtok": "0.15",
                        "output_per_mtok": "0.60",
                        "source_url": "https://example.com/prices",
                        "retrieved_at": "2026-06-30T00:00:00Z",
                    }
                },
            }
        ),
    )


def test_each_models_probe_spend_is_its_calls_priced_afresh(build, lookup, tmp_path) -> None:
    runs, grades = build.graded_cell(13, model="cheap", mode="agentic")
    edition = build.write_edition(tmp_path, runs, grades)
    _priced(edition)
    append_jsonl(edition / "probes" / "cheap.jsonl", _probe([(100, 10), (200, 20)], "9"))
    append_jsonl(edition / "probes" / "cheap.jsonl", _probe([(1000, 1)], "9"))
    results = edition_results(edition, lookup, reps=200)
    # (100 + 200 + 1000) input tokens at $0.15/M and (10 + 20 + 1) output tokens at $0.60/M.
    expected = Decimal("0.000195") + Decimal("0.0000186")
    assert results.probe_spend == [ProbeSpend(model="cheap", probes=2, calls=3, usd=expected)]
    assert json.loads(results.model_dump_json())["probe_spend"] == [
        {"model": "cheap", "probes": 2, "calls": 3, "usd": "0.0002136"}
    ]
    # Infrastructure: no cell's spend or CPO moves for it.
    without = edition_results(build.write_edition(tmp_path / "bare", runs, grades), lookup, 200)
    assert results.workloads == without.workloads

    out = io.StringIO()
    print_tables(results, Console(file=out, width=230))
    assert (
        "tools probe spend (checking that each model's endpoint supports tools; never in CPO):\n"
        "  cheap: $0.0002136 over 2 probes (3 calls)"
    ) in out.getvalue()


def test_results_without_probes_keep_their_bytes(build, lookup, tmp_path) -> None:
    runs, grades = build.graded_cell(13)
    results = edition_results(build.write_edition(tmp_path, runs, grades), lookup, reps=200)
    assert results.probe_spend == []
    assert "probe_spend" not in json.loads(results.model_dump_json())
    out = io.StringIO()
    print_tables(results, Console(file=out, width=230))
    assert "probe spend" not in out.getvalue()


def test_the_bundled_editions_probe_spend() -> None:
    from ledgerrate.metrics.load import load_inputs

    # 2026-12: six probes of SmolLM2, two calls each, at its server time × $0.10 an hour.
    assert load_inputs(REPO / "editions" / "2026-12").probe_spend == [
        ProbeSpend(model="smollm2", probes=6, calls=12, usd=Decimal("0.005121712834"))
    ]
