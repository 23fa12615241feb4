"""`ledgerrate reproduce`: a cell run again live, recorded apart, never pooled with the result."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import read_jsonl
from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate.register import register_edition
from ledgerrate.grade.stage import grade_edition
from ledgerrate.metrics.meta import WorkloadMeta
from ledgerrate.metrics.report import edition_results
from ledgerrate.metrics.reproductions import reproduction_sittings
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.reproduce import reproduce_cell
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import GradeRecord, RunRecord
from tests.run import stub, toy
from tests.run.runkit import model, write_edition

FAST = RetryPolicy(max_attempts=3, base_s=0.001, cap_s=0.01)
CELL = "toy.add.v1/m1/single-shot"


def meta(workload_id: str) -> WorkloadMeta:
    w = toy.lookup(workload_id)
    return WorkloadMeta(w.id, w.title, w.unit, w.volume, w.judged, tuple(w.modes))


def quiet() -> Console:
    return Console(file=io.StringIO())


def run(root: Path, **kw: Any) -> None:
    options = kw.pop("options", RunOptions(modes=["single-shot"]))
    run_edition(
        root,
        options,
        lookup=toy.lookup,
        provider_factory=stub.factory(stub.sum_script),
        retry=FAST,
        console=quiet(),
        show_progress=False,
        **kw,
    )


def reproduce(root: Path, cell: str = CELL, **kw: Any) -> Any:
    kw.setdefault("lookup", toy.lookup)
    return reproduce_cell(
        root,
        cell,
        provider_factory=stub.factory(kw.pop("script", stub.sum_script)),
        retry=FAST,
        console=quiet(),
        show_progress=False,
        **kw,
    )


def snapshot(root: Path, skip: str = "reproductions") -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.relative_to(root).as_posix().startswith(skip)
    }


@pytest.fixture
def finished(edition_factory) -> Path:
    """A registered edition whose single-shot cells have run and been graded."""
    root = edition_factory(models=[model("m1"), model("ref", "baseline")])
    register_edition(root, lookup=toy.lookup)
    run(root)
    grade_edition(root, lookup=toy.lookup)
    return root


def test_reproduction_is_written_apart_and_changes_no_result(finished: Path) -> None:
    root = finished
    before_files = snapshot(root)
    before = edition_results(root, meta, reps=200)

    summary = reproduce(root)

    paths = EditionPaths(root)
    log = paths.reproductions("toy.add.v1", "m1", "single-shot")
    assert summary.log == log and summary.sitting == 1
    assert summary.cell.finished == summary.cell.items == 4
    # Nothing outside reproductions/ changed, byte for byte: runs/, grades/, registration…
    assert snapshot(root) == before_files
    written = sorted(p.relative_to(root).as_posix() for p in (root / "reproductions").rglob("*"))
    assert written == [
        "reproductions/toy.add.v1",
        "reproductions/toy.add.v1/m1",
        "reproductions/toy.add.v1/m1/single-shot.jsonl",
        "reproductions/toy.add.v1/m1/single-shot.started",  # each request's start, fsynced
    ]
    repro = read_jsonl(log, RunRecord)
    registered = read_jsonl(paths.runs("toy.add.v1", "m1", "single-shot"), RunRecord)
    assert len(repro) == 4
    assert {r.kind for r in repro} == {"reproduction"} and {r.sitting for r in repro} == {1}
    assert {r.kind for r in registered} == {"registered"}
    # Reproduction sitting 1 and registered sitting 1 never share an id (nor, so, a grade).
    assert not {r.run_id for r in repro} & {r.run_id for r in registered}
    # Same registered items and prompts, a real cost from the frozen table.
    assert {(r.item_id, r.prompt_hash, r.dataset_hash) for r in repro} == {
        (r.item_id, r.prompt_hash, r.dataset_hash) for r in registered
    }
    assert all(r.cost.model_usd == registered[0].cost.model_usd > 0 for r in repro)
    assert not any(r.outside_window for r in repro)

    # Grading the reproduction goes to its own grade log; the published figures stay the same.
    grade_edition(root, lookup=toy.lookup)
    grades = read_jsonl(paths.reproduction_grades("toy.add.v1", "m1", "single-shot"), GradeRecord)
    assert {g.run_id for g in grades} == {r.run_id for r in repro}
    assert snapshot(root, skip="reproductions") == before_files
    assert edition_results(root, meta, reps=200) == before
    (row,) = reproduction_sittings(repro, grades)
    assert (row.runs, row.graded, row.passed) == (4, 4, 4)


def test_each_call_opens_a_new_reproduction_sitting(finished: Path) -> None:
    reproduce(finished)
    second = reproduce(finished, items=["item-01,item-03"])
    assert second.sitting == 2 and second.cell.items == 2
    log = EditionPaths(finished).reproductions("toy.add.v1", "m1", "single-shot")
    by_sitting = [(r.sitting, r.item_id) for r in read_jsonl(log, RunRecord)]
    assert sorted(s for s, _ in by_sitting) == [1, 1, 1, 1, 2, 2]
    assert sorted(i for s, i in by_sitting if s == 2) == ["item-01", "item-03"]
    rows = reproduction_sittings(read_jsonl(log, RunRecord))
    assert [(r.sitting, r.runs) for r in rows] == [(1, 4), (2, 2)]
    assert all(r.graded == 0 and r.not_graded == r.runs for r in rows)


def test_baseline_cell_reproduces_with_compute_cost(finished: Path) -> None:
    summary = reproduce(finished, "toy.add.v1/ref/single-shot")
    log = EditionPaths(finished).reproductions("toy.add.v1", "ref", "single-shot")
    recs = read_jsonl(log, RunRecord)
    assert summary.cell.finished == 4 and len(recs) == 4
    assert all(r.kind == "reproduction" and r.cost_basis == "compute" for r in recs)


def test_registration_mismatch_is_refused(finished: Path) -> None:
    drifted = dataclasses.replace(toy.TOY, prompt_template="changed", generator_sources=())
    with pytest.raises(UsageProblem) as info:
        reproduce(finished, lookup=lambda w: drifted)
    for name in ("workload hash", "prompt hash", "generator hash"):
        assert name in str(info.value)
    assert not (finished / "reproductions").exists()


def test_a_changed_price_table_is_refused(finished: Path) -> None:
    pricing = finished / "pricing.yaml"
    pricing.write_text(pricing.read_text().replace("8.00", "9.00"))
    with pytest.raises(UsageProblem, match=r"pricing\.yaml changed"):
        reproduce(finished)
    assert not (finished / "reproductions").exists()


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("toy.add.v1/m1", "expected workload/model/mode"),
        ("toy.nope.v1/m1/single-shot", "unknown workload 'toy.nope.v1'"),
        ("toy.add.v1/m9/single-shot", "unknown model 'm9'"),
        ("toy.add.v1/ref/agentic", "is not a cell"),
        ("toy.add.v1/m1/agentic", "no registered runs"),
    ],
)
def test_bad_cells_are_refused(finished: Path, cell: str, message: str) -> None:
    with pytest.raises(UsageProblem, match=re.escape(message)):
        reproduce(finished, cell)
    assert not (finished / "reproductions").exists()


def test_unknown_items_are_refused(finished: Path) -> None:
    with pytest.raises(UsageProblem, match="unknown item 'item-99'"):
        reproduce(finished, items=["item-00", "item-99"])
    assert not (finished / "reproductions").exists()


def test_outside_the_window_runs_and_every_record_says_so(tmp_path: Path) -> None:
    opens = dt.datetime.now(dt.UTC) - dt.timedelta(days=10)
    root = write_edition(tmp_path / "editions" / "2026-01", models=[model("m1")], opens=opens)
    register_edition(root, lookup=toy.lookup)
    run(root, options=RunOptions(modes=["single-shot"], allow_outside_window=True))
    summary = reproduce(root)
    recs = read_jsonl(summary.log, RunRecord)
    assert len(recs) == 4 and all(r.outside_window for r in recs)
    assert summary.outside_window == 4 and "outside the edition window" in summary.line()
    # Real timestamps: each record started now, not at the registered run's time.
    assert all(r.started_at > opens + dt.timedelta(days=9) for r in recs)


def test_cli_reproduce_prints_one_line(finished: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ledgerrate import workloads
    from ledgerrate.cli import app

    monkeypatch.setattr(workloads, "get", toy.lookup)
    result = CliRunner().invoke(
        app, ["reproduce", str(finished), "--cell", "toy.add.v1/ref/single-shot"]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1 and "reproduction sitting 1: 4/4 finished" in lines[0]
    assert "shown apart from the registered result" in lines[0]
    missing = CliRunner().invoke(app, ["reproduce", str(finished)])
    assert missing.exit_code != 0
