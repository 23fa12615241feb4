"""A grader corrected to the standard is a revision of the same workload version.

The registration keeps verifying (the registered revision's code is kept verbatim), an edition
whose latest grades come from the superseded grader fails `verify` until it is regraded, and
`grade --regrade --workloads` appends the corrected grades as a new revision.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ledgerrate import workloads
from ledgerrate.core.edition import load_edition, registration_mismatches
from ledgerrate.core.io import load_model, read_jsonl
from ledgerrate.grade.stage import grade_edition
from ledgerrate.schema import PublishedEdition, RunRecord, RunStatus
from ledgerrate.verify.run import verify_path

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
CORRECTED = {
    "triage.ap-inbox.v1": "single-shot",
    "execute.month-end.v1": "agentic",
    "reconcile.ledger.v1": "single-shot",
    "query.nl2sql.v1": "single-shot",
    "generate.variance-commentary.v1": "single-shot",
    "synthesize.board-brief.v1": "single-shot",
}


def _as_published(tmp_path: Path) -> Path:
    """editions/2026-11 with its grade logs cut back to what was first published."""
    root = tmp_path / "editions" / "2026-11"
    shutil.copytree(REPO / "editions" / "2026-11", root)
    published = load_model(PublishedEdition, root / "published.json")
    for workload, mode in CORRECTED.items():
        name = f"grades/{workload}/reference/{mode}.jsonl"
        data = (root / name).read_bytes()[: published.sizes[name]]
        (root / name).write_bytes(data)
    return root


def test_registration_sealed_under_revision_one_still_verifies(tmp_path: Path) -> None:
    root = _as_published(tmp_path)
    assert registration_mismatches(load_edition(root), workloads.get) == []
    for workload_id in CORRECTED:
        assert workloads.get(workload_id).grader_revision >= 2


def test_grades_of_the_superseded_grader_fail_until_regraded(tmp_path: Path) -> None:
    root = _as_published(tmp_path)
    before = verify_path(root)
    stale = [m for m in before.mismatches if m.field == "grader_hash"]
    # Every completed run of a corrected workload (model failures are graded without a grader).
    completed = sum(
        run.status == RunStatus.completed
        for workload, mode in CORRECTED.items()
        for run in read_jsonl(root / f"runs/{workload}/reference/{mode}.jsonl", RunRecord)
    )
    assert completed >= 15 * len(CORRECTED) - 1 and len(stale) == completed, before.lines()
    assert {m.file.split("/")[1] for m in stale} == set(CORRECTED)

    summary = grade_edition(root, regrade=True, only=list(CORRECTED))
    assert summary.written == 15 * len(CORRECTED)
    after = verify_path(root)
    assert after.ok, after.lines()


def test_grade_refuses_a_workload_the_edition_does_not_have(tmp_path: Path) -> None:
    from ledgerrate.core.errors import UsageProblem

    root = _as_published(tmp_path)
    with pytest.raises(UsageProblem, match="not in this edition"):
        grade_edition(root, regrade=True, only=["triage.ap-inbox.v9"])
