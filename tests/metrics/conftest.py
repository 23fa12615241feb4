"""Fixture records for the metrics tests: built from the schema, never from a live run."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.core.io import append_jsonl, write_json, write_yaml
from ledgerrate.metrics.cells import CellData, assemble_cell
from ledgerrate.metrics.load import grades_frame, runs_frame
from ledgerrate.metrics.meta import WorkloadMeta
from ledgerrate.schema import (
    Cost,
    EditionManifest,
    GradeRecord,
    JudgeBlock,
    PricingTable,
    Registration,
    RunRecord,
    Usage,
    WorkloadRegistration,
)

EDITION = "2026-07"
WL = "extract.invoice.v1"
DATASET = "d" * 64
GRADER = "9" * 64
RUBRIC = "7" * 64
T0 = dt.datetime(2026, 7, 1, 1, 0, tzinfo=dt.UTC)


def run_record(
    item: str,
    *,
    model: str = "cheap",
    mode: str = "single-shot",
    workload: str = WL,
    sitting: int = 1,
    attempt: int = 1,
    status: str = "completed",
    usd: str = "0.01",
    compute: str = "0",
    basis: str = "measured",
    usage_basis: str = "provider_reported",
    dataset_hash: str = DATASET,
    simulated: bool = False,
    latency: float = 2.0,
    kind: str = "registered",
) -> RunRecord:
    key = f"{workload}|{model}|{mode}|{item}|{sitting}|{attempt}"
    return RunRecord(
        run_id="r-" + hashlib.sha256(key.encode()).hexdigest()[:16],
        edition=EDITION,
        sitting=sitting,
        kind=kind,  # type: ignore[arg-type]
        workload=workload,
        model=model,
        mode=mode,  # type: ignore[arg-type]
        item_id=item,
        attempt=attempt,
        started_at=T0 + dt.timedelta(hours=sitting, minutes=attempt),
        finished_at=T0 + dt.timedelta(hours=sitting, minutes=attempt, seconds=latency),
        latency_s=latency,
        status=status,  # type: ignore[arg-type]
        simulated=simulated,
        dataset_hash=dataset_hash,
        prompt_hash="e" * 64,
        request={},
        usage=Usage(input_tokens=100, output_tokens=20),
        usage_basis=usage_basis,  # type: ignore[arg-type]
        cost=Cost(model_usd=Decimal(usd), compute_usd=Decimal(compute)),
        cost_basis=basis,  # type: ignore[arg-type]
    )


def grade_record(
    run: RunRecord,
    outcome: str = "pass",
    *,
    revision: int = 1,
    judge_usd: str | None = None,
    diagnostics: dict[str, Any] | None = None,
    grader_hash: str = GRADER,
    rubric_hash: str = RUBRIC,
) -> GradeRecord:
    judge = None
    if judge_usd is not None:
        judge = JudgeBlock(
            judge_model="judge",
            rubric_hash=rubric_hash,
            anon_id="x1",
            cost=Cost(model_usd=Decimal(judge_usd)),
        )
    return GradeRecord(
        run_id=run.run_id,
        edition=run.edition,
        sitting=run.sitting,
        workload=run.workload,
        model=run.model,
        mode=run.mode,
        item_id=run.item_id,
        revision=revision,
        graded_at=T0 + dt.timedelta(days=1, minutes=revision),
        outcome=outcome,  # type: ignore[arg-type]
        checks=[],
        diagnostics=diagnostics or {},
        judge=judge,
        grader_hash=grader_hash,
    )


def items(n: int = 15) -> list[str]:
    return [f"item-{i:02d}" for i in range(1, n + 1)]


def graded_cell(
    passes: int, *, n: int = 15, usd: str = "0.01", **run_kw: Any
) -> tuple[list[RunRecord], list[GradeRecord]]:
    """A complete sitting: the first `passes` items pass, the rest fail."""
    runs = [run_record(i, usd=usd, **run_kw) for i in items(n)]
    grades = [grade_record(r, "pass" if k < passes else "fail") for k, r in enumerate(runs)]
    return runs, grades


def assemble(
    runs: Iterable[RunRecord], grades: Iterable[GradeRecord] = (), n: int = 15
) -> CellData:
    runs = list(runs)
    first = runs[0]
    key = (first.workload, first.model, str(first.mode))
    return assemble_cell(key, runs_frame(runs), grades_frame(grades), n)


def meta(workload_id: str) -> WorkloadMeta:
    return WorkloadMeta(
        id=workload_id,
        title="Extract invoices",
        unit="Process 1,000 invoices",
        volume=1000,
        judged=False,
        modes=("single-shot", "agentic"),
    )


def manifest(models: list[dict[str, Any]] | None = None) -> EditionManifest:
    def api(model_id: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": model_id,
            "name": model_id.title(),
            "provider": "openai",
            "family": "openai",
            "api_model": model_id,
            "base_url": "https://api.example.invalid/v1",
            "api_key_env": "EXAMPLE_KEY",
            **extra,
        }

    default = [
        api("cheap"),
        api("big", flagship=True),
        {"id": "ref", "name": "Reference", "provider": "baseline", "family": "baseline"},
    ]
    return EditionManifest.model_validate(
        {
            "id": EDITION,
            "date": "2026-07-04",
            "methodology_version": "1.0",
            "window": {"opens": "2026-07-01T00:00:00Z", "closes": "2026-07-03T00:00:00Z"},
            "workloads": [{"id": WL, "n": 15}],
            "models": models if models is not None else default,
        }
    )


def registration(dataset_hash: str = DATASET) -> Registration:
    return Registration(
        edition=EDITION,
        registered_at=T0,
        edition_hash="1" * 64,
        pricing_hash="2" * 64,
        workloads={
            WL: WorkloadRegistration(
                workload_hash="3" * 64,
                prompt_hash="4" * 64,
                rubric_hash=RUBRIC,
                grader_hash=GRADER,
                generator_hash="5" * 64,
                dataset_hash=dataset_hash,
                seed_commitment="6" * 64,
                n_items=15,
            )
        },
        toolchain_version="0.1.0",
    )


def write_edition(
    root: Path,
    runs: Iterable[RunRecord],
    grades: Iterable[GradeRecord],
    *,
    registered: bool = True,
) -> Path:
    edition = root / EDITION
    write_yaml(edition / "edition.yaml", manifest())
    write_yaml(
        edition / "pricing.yaml",
        PricingTable.model_validate({"frozen_at": "2026-07-01T00:00:00Z"}),
    )
    if registered:
        write_json(edition / "registration.json", registration())
    for record in runs:
        append_jsonl(
            edition / "runs" / record.workload / record.model / f"{record.mode}.jsonl", record
        )
    for record in grades:
        append_jsonl(
            edition / "grades" / record.workload / record.model / f"{record.mode}.jsonl", record
        )
    return edition


class Build:
    """The builders, handed to tests as one fixture (test files cannot import each other)."""

    run = staticmethod(run_record)
    grade = staticmethod(grade_record)
    items = staticmethod(items)
    graded_cell = staticmethod(graded_cell)
    assemble = staticmethod(assemble)
    meta = staticmethod(meta)
    manifest = staticmethod(manifest)
    registration = staticmethod(registration)
    write_edition = staticmethod(write_edition)
    EDITION = EDITION
    WL = WL
    DATASET = DATASET


@pytest.fixture
def build() -> type[Build]:
    return Build


@pytest.fixture
def lookup() -> Callable[[str], WorkloadMeta]:
    return meta
