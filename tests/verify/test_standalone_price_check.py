"""The price database cross-checks: the frozen prices beside genai-prices' (differences said,
never applied), and the standalone verifier's recipe for a call's database cost agreeing with
what genai-prices itself computes, so an outsider re-derives `price-database.json` without it."""

from __future__ import annotations

import datetime as dt
import json
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.generate import price_database as db
from ledgerrate.generate.price_check import model_check, report_lines
from ledgerrate.schema import ModelPrice, ModelSpec, PricingTable, Usage
from tests.verify import standalone_kit

REPO = Path(__file__).resolve().parents[2]
AT = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)


sf = standalone_kit.load("standalone_figures.py", "standalone_figures_pc")

# One of each kind the database holds: plain rates, cache writes, prompt-size tiers, a
# separate reasoning rate, a per-request fee.
MODELS = [
    ("openai", "gpt-4o-mini"),
    ("anthropic", "claude-3-5-haiku-latest"),
    ("google", "gemini-2.5-pro"),
    ("perplexity", "sonar-deep-research"),
    ("perplexity", "sonar-pro"),
]


def _published(provider: str, api_model: str) -> dict[str, Any]:
    """The model's entry as price-database.json publishes it."""
    found = db.lookup(provider, api_model, AT)
    assert found.model is not None
    return json.loads(
        json.dumps(
            {
                "known": True,
                "database": {c: r.model_dump(mode="json") for c, r in found.rates.items()},
                "per_request_usd": None
                if found.per_request_usd is None
                else str(found.per_request_usd),
            }
        )
    )


@pytest.mark.parametrize(("provider", "api_model"), MODELS)
def test_the_recipe_agrees_with_genai_prices(provider: str, api_model: str) -> None:
    published = _published(provider, api_model)
    rng = random.Random(f"{provider}/{api_model}")
    usages = [Usage(), Usage(input_tokens=250_000, output_tokens=10)]  # above the tiers
    for _ in range(60):
        output = rng.randrange(0, 40_000)
        usages.append(
            Usage(
                input_tokens=rng.randrange(0, 260_000),
                cached_input_tokens=rng.choice([0, rng.randrange(0, 50_000)]),
                cache_write_tokens=rng.choice([0, rng.randrange(0, 20_000)]),
                output_tokens=output,
                reasoning_tokens=rng.choice([0, rng.randrange(0, output + 1)]),
            )
        )
    for usage in usages:
        theirs = db.database_cost(provider, api_model, usage, AT)
        ours = sf.database_call_cost(usage.model_dump(mode="json"), published)
        assert ours == theirs, (usage, ours, theirs)


def _spec(api_model: str, provider: str = "openai") -> ModelSpec:
    return ModelSpec(
        id="m",
        name=api_model,
        provider=provider,
        family="openai",
        api_model=api_model,
        base_url="https://api.openai.com/v1",
        api_key_env="OPENAI_API_KEY",
        sampling={"temperature": 0},
    )


def _table(**prices: str) -> PricingTable:
    return PricingTable(
        frozen_at=AT,
        models={
            "m": ModelPrice(
                source_url="https://openai.com/api/pricing/",
                retrieved_at=AT - dt.timedelta(days=1),
                **{k: Decimal(v) for k, v in prices.items()},
            )
        },
    )


def test_a_frozen_price_that_differs_is_listed_never_applied() -> None:
    table = _table(input_per_mtok="0.20", output_per_mtok="0.60")
    check = model_check(_spec("gpt-4o-mini"), table, AT)
    assert check.known and check.model == "gpt-4o-mini"
    assert check.differences == [
        "input: frozen $0.2, database $0.15 per 1M tokens",
        # Unpriced cached input is billed at the input price by the table.
        "cached_input: frozen $0.2, database $0.075 per 1M tokens",
    ]
    assert table.models["m"].input_per_mtok == Decimal("0.20")  # untouched
    same = model_check(
        _spec("gpt-4o-mini"),
        _table(input_per_mtok="0.15", cached_input_per_mtok="0.075", output_per_mtok="0.6"),
        AT,
    )
    assert same.differences == []


def test_tiers_and_unknown_models_are_said() -> None:
    tiered = model_check(
        _spec("gemini-2.5-pro", "gemini"),
        _table(input_per_mtok="1.25", cached_input_per_mtok="0.125", output_per_mtok="10"),
        AT,
    )
    assert any("more than 200,000 input tokens" in d for d in tiered.differences)
    unknown = model_check(
        _spec("acme-unheard-of-1"), _table(input_per_mtok="1", output_per_mtok="2"), AT
    )
    assert not unknown.known and "does not know 'acme-unheard-of-1'" in unknown.reason
    local = _spec("smollm2-135m").model_copy(
        update={"base_url": "http://127.0.0.1:8765/v1", "local": object()}
    )
    priced = _table(input_per_mtok="1", output_per_mtok="2")
    assert "served on this machine" in model_check(local, priced, AT).reason


def test_register_prints_the_differences() -> None:
    from ledgerrate.schema import PriceCheck

    check = PriceCheck(
        edition="e",
        database="genai-prices",
        database_version="0.2.5",
        at=AT,
        models={
            "m": model_check(
                _spec("gpt-4o-mini"), _table(input_per_mtok="0.2", output_per_mtok="0.6"), AT
            )
        },
    )
    lines = report_lines(check)
    assert lines[0] == f"prices beside genai-prices 0.2.5 at {AT.isoformat()}:"
    assert "2 difference(s) from gpt-4o-mini" in lines[1]
    assert lines[2] == "    - input: frozen $0.2, database $0.15 per 1M tokens"


class Recorded:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str]] = []

    def __call__(self, status: str, check: str, detail: str, until: str | None = None) -> None:
        self.rows.append((status, check, detail))


def _edition_data(tmp_path: Path, published_usd: str) -> Path:
    folder = tmp_path / "data" / "e"
    (folder / "runs" / "w.x.v1" / "m").mkdir(parents=True)
    calls = [
        {"usage": {"input_tokens": 1000, "output_tokens": 300}, "cost": {"model_usd": "0.00033"}}
    ]
    run = {"item_id": "i1", "attempt": 1, "finished_at": "t", "run_id": "r-1", "sitting": 1,
           "status": "completed", "calls": calls, "kind": "registered"}  # fmt: skip
    (folder / "runs" / "w.x.v1" / "m" / "single-shot.jsonl").write_text(json.dumps(run) + "\n")
    (folder / "edition.yaml").write_text(
        json.dumps({"id": "e", "workloads": [{"id": "w.x.v1", "n": 1}]})
    )
    (folder / "pricing.yaml").write_text("{}")
    doc = {
        "models": {"m": _published("openai", "gpt-4o-mini")},
        "cells": [
            {"workload": "w.x.v1", "model": "m", "mode": "single-shot", "calls": 1,
             "ledgerrate_usd": "0.00033", "database_usd": published_usd,
             "difference_usd": str(Decimal(published_usd) - Decimal("0.00033"))}
        ],
    }  # fmt: skip
    (folder / "price-database.json").write_text(json.dumps(doc))
    return folder


def test_the_standalone_verifier_rederives_each_cell(tmp_path: Path) -> None:
    # 1000 × $0.15 + 300 × $0.60 per 1M = $0.00033.
    good = Recorded()
    folder = _edition_data(tmp_path / "a", "0.00033")
    sf.check_price_check(sf.Edition.read(folder), folder, good)
    assert [r[0] for r in good.rows] == ["matched"]
    bad = Recorded()
    folder = _edition_data(tmp_path / "b", "0.00030")
    sf.check_price_check(sf.Edition.read(folder), folder, bad)
    assert [r[0] for r in bad.rows] == ["mismatched"]
