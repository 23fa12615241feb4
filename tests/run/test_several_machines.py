"""One edition run on two machines (`run --models` subsets of copies), merged into one folder.

Cells are independent files (`runs/<workload>/<model>/<mode>.jsonl`), so a merge is a copy of
disjoint paths; `verify` of the merged folder must then accept it, and its figures must equal
those of the same edition run on one machine: nothing lost, nothing counted twice.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
import yaml

from ledgerrate.generate.register import register_edition
from ledgerrate.grade.stage import grade_edition
from ledgerrate.metrics.report import edition_results
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.testing.reference_edition import write_reference_edition
from ledgerrate.verify.run import verify_path

WORKLOAD = "triage.ap-inbox.v1"
MODELS = ("reference", "reference-b")


def _two_model_edition(folder: Path) -> None:
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    write_reference_edition(folder, now=now, workloads=[WORKLOAD])
    manifest = yaml.safe_load((folder / "edition.yaml").read_text())
    second = dict(manifest["models"][0], id="reference-b", name="Reference baseline (b)")
    manifest["models"].append(second)
    (folder / "edition.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    register_edition(folder)


def _merge(machine: Path, into: Path) -> None:
    """What the README tells an operator to do: copy each machine's cell logs across."""
    for kind in ("runs", "grades"):
        for log in sorted((machine / kind).rglob("*.jsonl")):
            target = into / log.relative_to(machine)
            assert not target.exists(), f"{target}: two machines ran the same cell"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(log, target)


def _figures(edition: Path) -> list[tuple]:
    return [
        (c.model, c.mode, c.n, c.passes, c.spend_usd > 0, c.missing)
        for w in edition_results(edition).workloads
        for c in w.cells
    ]


@pytest.mark.slow
def test_subsets_run_apart_merge_into_one_verified_edition(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(tmp_path / "private"))
    edition = tmp_path / "editions" / "e-merge"
    _two_model_edition(edition)
    # Each machine gets a copy of the registered folder (and the private seeds) and runs
    # only its own models.
    machines = {}
    for model in MODELS:
        copy = tmp_path / f"machine-{model}" / "e-merge"
        shutil.copytree(edition, copy)
        run_edition(copy, RunOptions(models=[model], concurrency=2), show_progress=False)
        grade_edition(copy)
        machines[model] = copy
    for copy in machines.values():
        _merge(copy, edition)
    report = verify_path(edition)
    assert report.ok, report.lines()
    assert report.checked["runs answered the registered dataset"] == 2 * 15
    # The same edition run whole on one machine gives the same figures.
    whole = tmp_path / "one-machine" / "e-merge"
    shutil.copytree(edition, whole, ignore=shutil.ignore_patterns("runs", "grades"))
    run_edition(whole, RunOptions(concurrency=2), show_progress=False)
    grade_edition(whole)
    assert _figures(edition) == _figures(whole)
    assert all(missing == 0 and n == 15 for *_, n, _, _, missing in _figures(edition))


def test_merging_the_same_cell_twice_is_refused(tmp_path: Path) -> None:
    a, b = tmp_path / "a" / "e", tmp_path / "b" / "e"
    for machine in (a, b):
        log = machine / "runs" / WORKLOAD / "reference" / "single-shot.jsonl"
        log.parent.mkdir(parents=True)
        log.write_text("{}\n")
    into = tmp_path / "into" / "e"
    _merge(a, into)
    with pytest.raises(AssertionError, match="two machines ran the same cell"):
        _merge(b, into)
