"""Issue #5: the reference baselines re-run from released seeds give the same answers and grades.

Covered: every edition bundled under `editions/` with a released `seeds.json`, plus a fixture
edition built here through the real register → run → grade → release stages. Costs are not
compared: a baseline's cost is the CPU time it took on the machine that ran it, which a re-run
on another machine (or the same one, later) does not reproduce.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import read_jsonl, to_json
from ledgerrate.schema import GradeRecord, Outcome, RunRecord, RunStatus, SeedFile
from tests.editions.reproduce import DatasetCache, compare_edition

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
FIXTURE = "fixture"


def bundled_released() -> list[Path]:
    return sorted(p.parent for p in (REPO / "editions").glob("*/seeds.json"))


def test_some_bundled_edition_has_released_seeds() -> None:
    # Without one, issue #5's check would pass by checking nothing: that is a failure.
    found = bundled_released()
    assert found, (
        f"no edition under {REPO / 'editions'} has a released seeds.json, so nothing shows "
        "the published baselines reproduce; release the seeds of a past edition"
    )


@pytest.mark.parametrize("edition_id", [FIXTURE, *(p.name for p in bundled_released())], ids=str)
def test_baselines_reproduce_exactly(
    edition_id: str, request: pytest.FixtureRequest, dataset_cache: DatasetCache
) -> None:
    if edition_id == FIXTURE:
        root: Path = request.getfixturevalue("released_fixture_edition")
    else:
        root = REPO / "editions" / edition_id
    result = compare_edition(root, dataset_cache)
    assert result.cells, f"edition {result.edition}: no reference-baseline cell on disk"
    assert result.items_checked > 0, f"edition {result.edition}: no counted attempt compared"
    assert not result.differences, result.report()
    # Anything accepted is tied to a published erratum (e.g. 2026-11's withdrawn month-end cell).
    assert all("explained by erratum" in line for line in result.explained)


# --------------------------------------------------------------------------- the check can fail


def _rewrite(
    path: Path,
    model: type[RunRecord] | type[GradeRecord],
    change: Callable[[Any], RunRecord | GradeRecord | None],
) -> str:
    """Apply `change` to the first record it accepts; returns that record's item id."""
    records = read_jsonl(path, model)
    for index, record in enumerate(records):
        changed = change(record)
        if changed is not None:
            records[index] = changed
            path.write_text("".join(to_json(r) + "\n" for r in records))
            return record.item_id
    raise AssertionError(f"{path}: no record to change")


def _cell(root: Path, kind: str, workload: str, mode: str) -> Path:
    return root / kind / workload / "reference" / f"{mode}.jsonl"


def test_fixture_covers_judged_and_agentic_cells(released_fixture_edition: Path) -> None:
    judged = read_jsonl(
        _cell(released_fixture_edition, "grades", "generate.variance-commentary.v1", "single-shot"),
        GradeRecord,
    )
    assert judged and {g.outcome for g in judged} <= {Outcome.pending_judge, Outcome.failed}
    assert any(g.outcome == Outcome.pending_judge for g in judged)
    agentic = read_jsonl(
        _cell(released_fixture_edition, "runs", "execute.month-end.v1", "agentic"), RunRecord
    )
    counted = [r for r in agentic if r.status != RunStatus.infra_excluded]
    assert counted and all(r.tool_state for r in counted)


def test_a_changed_answer_is_named(fixture_copy: Path, dataset_cache: DatasetCache) -> None:
    path = _cell(fixture_copy, "runs", "triage.ap-inbox.v1", "single-shot")
    item = _rewrite(
        path, RunRecord, lambda r: r.model_copy(update={"answer": (r.answer or "") + " "})
    )
    result = compare_edition(fixture_copy, dataset_cache)
    assert len(result.differences) == 1, result.report()
    line = result.differences[0]
    assert "triage.ap-inbox.v1/reference/single-shot" in line
    assert f"item {item} " in line and "answer differs" in line


def test_a_changed_tool_state_is_named(fixture_copy: Path, dataset_cache: DatasetCache) -> None:
    path = _cell(fixture_copy, "runs", "execute.month-end.v1", "agentic")

    def drop_entry(record: RunRecord) -> RunRecord | None:
        state = dict(record.tool_state or {})
        entries = state.get("journal_entries")
        if not entries:
            return None
        state["journal_entries"] = entries[:-1]
        return record.model_copy(update={"tool_state": state})

    item = _rewrite(path, RunRecord, drop_entry)
    result = compare_edition(fixture_copy, dataset_cache)
    assert len(result.differences) == 1, result.report()
    assert f"item {item} " in result.differences[0]
    assert "tool_state differs" in result.differences[0]
    assert "first difference at $.journal_entries (length" in result.differences[0]


def test_a_flipped_outcome_in_the_latest_revision_is_named(
    fixture_copy: Path, dataset_cache: DatasetCache
) -> None:
    path = _cell(fixture_copy, "grades", "triage.ap-inbox.v1", "single-shot")
    records = read_jsonl(path, GradeRecord)
    target = records[0]
    flipped = Outcome.failed if target.outcome == Outcome.passed else Outcome.passed
    # A re-grade appends a revision; the comparison must read the latest one.
    later = target.model_copy(update={"revision": target.revision + 1, "outcome": flipped})
    path.write_text(path.read_text() + to_json(later) + "\n")
    result = compare_edition(fixture_copy, dataset_cache)
    assert len(result.differences) == 1, result.report()
    line = result.differences[0]
    assert f"item {target.item_id} " in line
    assert f"grade outcome (revision {target.revision + 1})" in line


def test_a_judged_run_stored_as_pass_without_a_judge_is_named(
    fixture_copy: Path, dataset_cache: DatasetCache
) -> None:
    path = _cell(fixture_copy, "grades", "generate.variance-commentary.v1", "single-shot")
    item = _rewrite(
        path,
        GradeRecord,
        lambda g: (
            g.model_copy(update={"outcome": Outcome.passed})
            if g.outcome == Outcome.pending_judge
            else None
        ),
    )
    result = compare_edition(fixture_copy, dataset_cache)
    assert len(result.differences) == 1, result.report()
    assert f"item {item} " in result.differences[0]
    assert repr(str(Outcome.pending_judge)) in result.differences[0]


def test_a_flipped_named_check_is_named(fixture_copy: Path, dataset_cache: DatasetCache) -> None:
    path = _cell(fixture_copy, "grades", "execute.month-end.v1", "agentic")

    def flip_first_check(grade: GradeRecord) -> GradeRecord:
        first = grade.checks[0]
        checks = [first.model_copy(update={"passed": not first.passed}), *grade.checks[1:]]
        return grade.model_copy(update={"checks": checks})

    item = _rewrite(path, GradeRecord, flip_first_check)
    first_name = read_jsonl(path, GradeRecord)[0].checks[0].name
    result = compare_edition(fixture_copy, dataset_cache)
    # The outcome may or may not change with one check; the check itself must be named.
    assert any(
        f"item {item} " in d and f"grade check {first_name!r}" in d for d in result.differences
    ), result.report()


def test_a_released_seed_that_does_not_open_its_commitment_is_refused(
    fixture_copy: Path,
) -> None:
    seeds_path = fixture_copy / "seeds.json"
    seeds = SeedFile.model_validate_json(seeds_path.read_text())
    entry = seeds.seeds["triage.ap-inbox.v1"]
    seeds.seeds["triage.ap-inbox.v1"] = entry.model_copy(update={"seed": entry.seed + 1})
    seeds_path.write_text(seeds.model_dump_json())
    with pytest.raises(UsageProblem, match="commitment"):
        compare_edition(fixture_copy, DatasetCache())


def test_unexplained_harness_failure_still_fails(
    released_fixture_edition: Path, tmp_path: Path, dataset_cache: DatasetCache
) -> None:
    """A logged machine fault with no erratum withdrawing its cell is a difference."""
    import shutil

    root = tmp_path / released_fixture_edition.name
    shutil.copytree(released_fixture_edition, root)

    def crash(record: RunRecord) -> RunRecord | None:
        if record.status != "completed":
            return None
        return record.model_copy(
            update={
                "status": RunStatus.model_failure,
                "failure": "baseline raised OperationalError: disk I/O error",
                "answer": None,
                "tool_state": None,
            }
        )

    item = _rewrite(_cell(root, "runs", "triage.ap-inbox.v1", "single-shot"), RunRecord, crash)
    result = compare_edition(root, dataset_cache)
    assert any(item in line and "status differs" in line for line in result.differences)
