"""A small edition with two priced models, built by the real stages against the fake provider.

The bundled editions hold only the reference baselines, so the compare page, a flagship-vs-
cheapest pair and agentic steps with tool calls need an edition with language models in it:
`cheap` (openai family) and the flagship `big` (anthropic family) answer extraction items with
the item's ground truth read from the regenerated dataset (so they pass and qualify), except
that `big` answers one item with hostile markup (a fail, shown escaped on its drill-down page),
and three more in agentic mode (so one of its cells does not qualify);
in the agentic month-end workload both follow the fake provider's `fake-tool` script (a tool
call with empty arguments, then a final answer: a fail). Nothing here is shown as a measurement
outside the test: the figures are whatever the real metrics stage computes from these runs.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

import yaml

from ledgerrate.generate.escrow import RECIPIENTS_ENV
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.testing.fake_shapes import FakeReply

EXTRACT = "extract.invoice.v1"
MONTH_END = "execute.month-end.v1"
HOSTILE = '</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
KEY_ENV = "LR_BROWSER_FAKE_KEY"


def _price(inp: str, out: str, at: str) -> dict[str, Any]:
    return {
        "input_per_mtok": inp,
        "output_per_mtok": out,
        "source_url": "https://example.invalid/prices",
        "retrieved_at": at,
    }


def _write(folder: Path, base_urls: dict[str, str]) -> dt.datetime:
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    opens, closes = now - dt.timedelta(hours=1), now + dt.timedelta(hours=2)
    common = {"api_key_env": KEY_ENV, "sampling": {"temperature": 0}}
    manifest = {
        "id": folder.name,
        # Dated before the bundled editions so the home page keeps showing the newest of them.
        "date": "2026-10-15",
        "methodology_version": "1.0",
        "window": {"opens": opens.isoformat(), "closes": closes.isoformat()},
        "workloads": [
            # The standard's n: a cell of fewer items never qualifies, and the compare page, the
            # calculator and the qualifying filter need qualifying cells.
            {"id": EXTRACT, "n": 15},
            {"id": MONTH_END, "n": 2, "n_reason": "test fixture: a small n"},
        ],
        "models": [
            {
                "id": "reference",
                "name": "Reference baseline",
                "provider": "baseline",
                "family": "reference",
            },
            {
                "id": "cheap",
                "name": "Cheap model",
                "provider": "openai",
                "family": "openai",
                "api_model": "fake-tool.cheap",
                "base_url": base_urls["openai"],
                **common,
            },
            {
                "id": "big",
                "name": "Big model",
                "provider": "anthropic",
                "family": "anthropic",
                "api_model": "fake-tool.big",
                "base_url": base_urls["anthropic"],
                "flagship": True,
                **common,
            },
        ],
    }
    at = opens.isoformat()
    pricing = {
        "frozen_at": at,
        "models": {"cheap": _price("0.10", "0.40", at), "big": _price("10", "40", at)},
        "compute": {
            "vcpu_hour_usd": "0.0475",
            "source_url": "test fixture: an assumed compute price",
            "retrieved_at": at,
        },
    }
    folder.mkdir(parents=True)
    (folder / "edition.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    (folder / "pricing.yaml").write_text(yaml.safe_dump(pricing, sort_keys=False))
    return closes


def _user_text(body: dict[str, Any]) -> str:
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(p.get("text", "") for p in content if isinstance(p, dict))
    return "\n".join(parts)


def build_two_model_edition(folder: Path) -> Path:
    """Register, run (against the fake provider), grade and release the seeds of the edition."""
    from ledgerrate.generate.register import register_edition
    from ledgerrate.generate.seeds import dataset_for, release_seeds
    from ledgerrate.grade.stage import grade_edition
    from ledgerrate.run.scheduler import RunOptions, run_edition
    from ledgerrate.workloads import get

    answers: dict[str, str] = {}
    order: list[str] = []

    def responder(family: str, body: dict[str, Any]) -> FakeReply | None:
        text = _user_text(body)
        for user, answer in answers.items():
            if user in text:
                # `big` fails its first item in both modes, and three more with tools (11 of
                # 15: a cell that does not qualify, for the Qualifying filter to find).
                failed = order[:4] if "tools" in body else order[:1]
                hostile = family == "anthropic" and user in failed
                return FakeReply(text=HOSTILE if hostile else answer)
        return None  # month-end: the `fake-tool` script

    os.environ[KEY_ENV] = "fake-key-for-the-browser-test"
    with FakeProviderServer(responder=responder) as fake:
        closes = _write(
            folder, {"openai": fake.base_url("openai"), "anthropic": fake.base_url("anthropic")}
        )
        # The test suite escrows seeds to a test key; run alone, the fixture keeps them in a
        # temporary folder and says so.
        escrowed = bool(os.environ.get(RECIPIENTS_ENV))
        kept = None if escrowed else "test fixture: a temporary folder"
        register_edition(folder, seeds_kept_elsewhere=kept)
        dataset = dataset_for(folder, EXTRACT)
        workload = get(EXTRACT)
        for item in dataset.items:
            user = workload.prompt(item).user
            answers[user] = json.dumps(item.truth)
            order.append(user)
        run_edition(folder, RunOptions(concurrency=2), show_progress=False)
        assert fake.errors == [], fake.errors
    grade_edition(folder)
    release_seeds(folder, now=closes + dt.timedelta(seconds=1))
    return folder
