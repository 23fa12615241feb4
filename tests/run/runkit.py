"""Helpers shared by the runner tests: a mini edition folder with toy workloads and stub models.

A module with a unique name (not `conftest`), so `from runkit import …` can never pick up
another folder's conftest when several test folders run in one session.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from ledgerrate.core.io import write_yaml

SENTINEL_KEY = "sk-SENTINEL-do-not-leak-7f3a9c"

NOW = dt.datetime.now(dt.UTC)


def model(mid: str, provider: str = "openai", **extra: Any) -> dict[str, Any]:
    if provider == "baseline":  # the reference solver's old spelling, which sealed editions hold
        return {"id": mid, "name": mid, "provider": "baseline", "family": "reference", **extra}
    if provider == "reference":  # the reference solver: no provider, `solver: reference`
        return {"id": mid, "name": mid, "solver": "reference", "family": "reference", **extra}
    return {
        "id": mid,
        "name": mid,
        "provider": provider,
        "family": provider,
        "api_model": extra.pop("api_model", mid),
        "base_url": extra.pop("base_url", "http://127.0.0.1:9"),
        "api_key_env": extra.pop("api_key_env", "TOY_API_KEY"),
        "sampling": {"temperature": 0},
        **extra,
    }


def price(inp: str = "2.00", out: str = "8.00") -> dict[str, Any]:
    return {
        "input_per_mtok": inp,
        "output_per_mtok": out,
        "source_url": "https://example.invalid/prices",
        "retrieved_at": (NOW - dt.timedelta(days=30)).isoformat(),
    }


def write_manifest(
    root: Path, opens: dt.datetime, workloads: list[dict[str, Any]], models: list[dict[str, Any]]
) -> None:
    """`edition.yaml` of the edition folder `root`: its window opens at `opens` for 72 hours."""
    write_yaml(
        root / "edition.yaml",
        {
            "id": root.name,
            "date": opens.date().isoformat(),
            "methodology_version": "1.0",
            "window": {
                "opens": opens.isoformat(),
                "closes": (opens + dt.timedelta(hours=72)).isoformat(),
            },
            "workloads": workloads,
            "models": models,
        },
    )


def write_edition(
    root: Path,
    *,
    models: list[dict[str, Any]],
    workloads: list[str] = ("toy.add.v1",),  # type: ignore[assignment]
    prices: dict[str, Any] | None = None,
    compute: bool = True,
    opens: dt.datetime | None = None,
    n: int = 4,
) -> Path:
    opens = opens or NOW - dt.timedelta(hours=1)
    write_manifest(
        root,
        opens,
        [
            {"id": w, "n": n, **({"n_reason": "test fixture: a small n"} if n != 15 else {})}
            for w in workloads
        ],
        models,
    )
    table: dict[str, Any] = {
        "frozen_at": opens.isoformat(),
        "models": prices
        if prices is not None
        else {m["id"]: price() for m in models if m.get("provider", "baseline") != "baseline"},
    }
    if compute:
        table["compute"] = {
            "vcpu_hour_usd": "0.05",
            "source_url": "https://example.invalid/compute",
            "retrieved_at": opens.isoformat(),
        }
    write_yaml(root / "pricing.yaml", table)
    return root
