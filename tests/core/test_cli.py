"""The command line a person uses: pipeline order, help that fits 80 columns, `a,b` lists."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from ledgerrate import cli
from ledgerrate.cli import PIPELINE, app


def _commands() -> list[list[str]]:
    group = cli.typer.main.get_command(app)
    found: list[list[str]] = []
    for name in group.list_commands(None):  # type: ignore[attr-defined,arg-type]
        command = group.get_command(None, name)  # type: ignore[attr-defined,arg-type]
        found.append([name])
        if hasattr(command, "list_commands"):
            found += [[name, sub] for sub in command.list_commands(None)]
    return found


def test_commands_are_listed_in_pipeline_order() -> None:
    listed = [path[0] for path in _commands() if len(path) == 1]
    ordered = [name for name in PIPELINE if name in listed]
    assert listed[: len(ordered)] == ordered
    assert listed.index("register") < listed.index("run") < listed.index("grade")
    assert listed.index("build") < listed.index("verify")


@pytest.mark.parametrize("path", _commands(), ids=lambda p: " ".join(p))
def test_help_fits_80_columns(path: list[str]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80", "TERM": "dumb"})
    assert result.exit_code == 0, result.output
    too_wide = [line for line in result.output.splitlines() if len(line) > 80]
    assert not too_wide, too_wide


def test_comma_lists_and_repeated_flags_mean_the_same(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import ledgerrate.grade.stage as stage

    seen: list[list[str] | None] = []

    def fake_grade(edition: Path, *, regrade: bool, only: list[str] | None) -> SimpleNamespace:
        seen.append(only)
        return SimpleNamespace(
            written=0,
            skipped=0,
            passed=0,
            failed=0,
            pending_judge=0,
            judge=None,
            judge_unavailable=None,
            family_overlap=[],
        )

    monkeypatch.setattr(stage, "grade_edition", fake_grade)
    runner = CliRunner()
    runner.invoke(app, ["grade", str(tmp_path), "--workloads", "a.x.v1, b.y.v1"])
    runner.invoke(app, ["grade", str(tmp_path), "--workloads", "a.x.v1", "--workloads", "b.y.v1"])
    assert seen == [["a.x.v1", "b.y.v1"], ["a.x.v1", "b.y.v1"]]


def test_every_command_runs_at_the_collectors_batch_pace(tmp_path: Path) -> None:
    import gc

    from ledgerrate.core.gc_policy import BATCH_THRESHOLDS

    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        done = CliRunner().invoke(app, ["schema", "--out", str(tmp_path)])
        assert done.exit_code == 0, done.output
        assert gc.get_threshold() == BATCH_THRESHOLDS
    finally:
        gc.set_threshold(*before)
