"""One spelling for every enum value written today, the old spellings still read.

The bundled editions were sealed with snake-case values (`model_failure`, `pending_judge`,
`not_applicable`) and `estimate`; new records are written in kebab case with `estimated`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from ledgerrate.metrics.report import edition_results
from ledgerrate.schema import (
    OLD_SPELLINGS,
    CellCostBasis,
    CostBasis,
    EditionResults,
    GradeRecord,
    Outcome,
    RoutingVerdict,
    RunRecord,
    RunStatus,
    UsageBasis,
    Verdict,
)
from ledgerrate.schema.base import Mode, Spelled

REPO = Path(__file__).resolve().parents[2]
ENUMS: tuple[type[Spelled], ...] = (
    Mode,
    RunStatus,
    UsageBasis,
    CostBasis,
    CellCostBasis,
    Outcome,
    Verdict,
)


@pytest.mark.parametrize("enum", ENUMS, ids=lambda e: e.__name__)
def test_every_value_is_kebab_case(enum: type[Spelled]) -> None:
    for member in enum:
        assert member.value == member.value.lower() and "_" not in member.value, member


@pytest.mark.parametrize(
    ("enum", "old", "new"),
    [(e, old, new) for e in ENUMS for old, new in OLD_SPELLINGS.get(e.__name__, {}).items()],
)
def test_an_old_spelling_reads_as_its_member(enum: type[Spelled], old: str, new: str) -> None:
    assert enum(old) is enum(new)
    assert enum(old).value == new  # and is written back in the new spelling


def test_old_spellings_cover_every_renamed_value() -> None:
    assert OLD_SPELLINGS == {
        "RunStatus": {"model_failure": "model-failure", "infra_excluded": "infra-excluded"},
        "UsageBasis": {"provider_reported": "provider-reported"},
        "CostBasis": {"estimate": "estimated"},
        "CellCostBasis": {"estimate": "estimated"},
        "Outcome": {"pending_judge": "pending-judge"},
        "Verdict": {"not_applicable": "not-applicable"},
    }


def test_a_misspelling_is_still_refused() -> None:
    for bad in ("model failure", "Model_Failure", "single_shot", "estimates"):
        with pytest.raises(ValidationError):
            RoutingVerdict.model_validate({"verdict": bad, "reason": "x"})
        with pytest.raises(ValueError):
            RunStatus(bad)


def _sealed_line(pattern: str, model: type[RunRecord] | type[GradeRecord]) -> tuple[dict, Path]:
    for path in sorted((REPO / "editions").glob(pattern)):
        for line in path.read_text().splitlines():
            data = json.loads(line)
            if model is RunRecord and data["status"] == "model_failure":
                return data, path
            if model is GradeRecord and data["outcome"] == "pending_judge":
                return data, path
    raise AssertionError(f"no sealed record with an old spelling under {pattern}")


def test_sealed_records_read_in_the_new_spelling_and_are_written_in_it() -> None:
    run, _ = _sealed_line("2026-11/runs/*/*/*.jsonl", RunRecord)
    record = RunRecord.model_validate_json(json.dumps(run))
    assert record.status is RunStatus.model_failure
    assert json.loads(record.model_dump_json())["status"] == "model-failure"

    grade, _ = _sealed_line("2026-11-b/grades/*/*/*.jsonl", GradeRecord)
    graded = GradeRecord.model_validate(grade)
    assert graded.outcome is Outcome.pending_judge
    assert graded.model_dump(mode="json")["outcome"] == "pending-judge"


def test_sealed_results_read_old_verdicts() -> None:
    path = REPO / "editions" / "2026-11-b" / "results.json"
    assert '"not_applicable"' in path.read_text()  # the sealed file keeps its spelling
    results = EditionResults.model_validate_json(path.read_text())
    verdicts = {w.routing.verdict for w in results.workloads if w.routing is not None}
    assert verdicts == {Verdict.not_applicable}
    assert '"not-applicable"' in results.model_dump_json()


def test_figures_are_the_same_from_old_and_new_spellings(tmp_path: Path) -> None:
    """2026-11-b's logs rewritten in today's spelling give exactly the figures of its sealed
    logs: metrics compares members, so neither spelling is read as a third value."""
    sealed = REPO / "editions" / "2026-11-b"
    copy = tmp_path / "2026-11-b"
    shutil.copytree(sealed, copy)
    rewritten = 0
    for path in [*copy.glob("runs/*/*/*.jsonl"), *copy.glob("grades/*/*/*.jsonl")]:
        text = path.read_text()
        new = text.replace('"outcome":"pending_judge"', '"outcome":"pending-judge"').replace(
            '"status":"model_failure"', '"status":"model-failure"'
        )
        rewritten += text.count('"outcome":"pending_judge"') + text.count("model_failure")
        path.write_text(new)
    assert rewritten > 0
    before = edition_results(sealed, reps=200)
    after = edition_results(copy, reps=200)
    assert after.model_dump(mode="json") == before.model_dump(mode="json")
    pending = [c.pending_judge for w in after.workloads for c in w.cells]
    assert sum(pending) > 0  # the rewritten values were counted, not dropped
