"""Issue #6 end to end: the real build refuses a silent change to a published edition, and
with an erratum it builds and strikes the superseded figure through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledgerrate.core.errors import UsageProblem
from ledgerrate.metrics.report import edition_results
from ledgerrate.publish import fmt
from ledgerrate.publish.build import build_site

pytestmark = pytest.mark.slow

WORKLOAD = "triage.ap-inbox.v1"


def _flip_first_failing_grade(edition: Path) -> str:
    log = edition / "grades" / WORKLOAD / "reference" / "single-shot.jsonl"
    lines = log.read_text().splitlines()
    for index, line in enumerate(lines):
        record = json.loads(line)
        if record["outcome"] == "fail":
            record["outcome"] = "pass"
            lines[index] = json.dumps(record, sort_keys=True, separators=(",", ":"))
            log.write_text("\n".join(lines) + "\n")
            return log.relative_to(edition).as_posix()
    raise AssertionError("no failing grade to flip")


def _pass_rate(edition: Path) -> str:
    [cell] = next(w for w in edition_results(edition).workloads if w.workload == WORKLOAD).cells
    return fmt.pass_rate(cell)


def test_silent_change_fails_build_and_erratum_strikes_through(
    edition_copy: Path, tmp_path: Path
) -> None:
    before = _pass_rate(edition_copy)
    changed = _flip_first_failing_grade(edition_copy)
    after = _pass_rate(edition_copy)
    assert before != after
    out = tmp_path / "out"
    with pytest.raises(UsageProblem) as refused:
        build_site(edition_copy.parent, out)
    assert any(changed in line and "no erratum" in line for line in refused.value.lines)
    assert not (out / "site").exists()

    (edition_copy / "errata.yaml").write_text(
        "edition: e-verify\n"
        "entries:\n"
        "  - id: '2026-11-30'\n"
        "    date: 2026-11-30\n"
        "    title: One triage batch regraded\n"
        "    what_changed: one batch's grade\n"
        "    why: a test of the correction path\n"
        f"    files: ['{changed}', results.json]\n"
        "    figures:\n"
        f"      - {{workload: {WORKLOAD}, model: reference, mode: single-shot,"
        f" field: pass_rate, old: {json.dumps(before)}, new: {json.dumps(after)}}}\n"
    )
    site = build_site(edition_copy.parent, out)
    page = (site / "workloads" / WORKLOAD / "index.html").read_text()
    assert "<del>" in page and "erratum 2026-11-30" in page
    assert json.loads((edition_copy / "results.json").read_text())  # corrected figures written
    assert (site / "errata" / "2026-11-30" / "index.html").is_file()
