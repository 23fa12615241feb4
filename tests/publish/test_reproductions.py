"""Reproductions on the workload page: their own section, counted from the logs, kept apart."""

from __future__ import annotations

import datetime as dt
import html
from pathlib import Path

import pytest

from ledgerrate.core.io import append_jsonl
from ledgerrate.core.layout import EditionPaths
from ledgerrate.publish import load as load_mod
from ledgerrate.publish.build import build_site
from ledgerrate.publish.load import load_editions
from ledgerrate.publish.pages import make_env, render_workload
from ledgerrate.publish.render import TEMPLATES
from ledgerrate.publish.site import build_site_model
from ledgerrate.schema import (
    Check,
    GradeRecord,
    Mode,
    Outcome,
    RunRecord,
    RunStatus,
)
from tests.publish.factory import HOSTILE, WL, H, write_edition

EDITION = "2026-07"
SENTENCE = "They are shown apart and never replace or pool with the registered result"


def _repro(sitting: int, item: int, day: int, status: RunStatus = RunStatus.completed) -> RunRecord:
    t = dt.datetime(2026, 9, day, 12, tzinfo=dt.UTC)
    return RunRecord(
        run_id=f"r-{sitting:08x}{item:08x}{int(status == RunStatus.completed):08x}",
        edition=EDITION,
        sitting=sitting,
        kind="reproduction",
        workload=WL,
        model="small",
        mode=Mode.single_shot,
        item_id=f"item-{item:02d}",
        attempt=1,
        started_at=t,
        finished_at=t + dt.timedelta(seconds=3),
        latency_s=3.0,
        status=status,
        outside_window=True,
        dataset_hash=H,
        prompt_hash=H,
        request={"messages": []},
        answer=HOSTILE,
        usage_basis="provider_reported",
        cost_basis="measured",
    )


def _grade(run: RunRecord, outcome: Outcome) -> GradeRecord:
    return GradeRecord(
        run_id=run.run_id,
        edition=EDITION,
        sitting=run.sitting,
        workload=WL,
        model=run.model,
        mode=run.mode,
        item_id=run.item_id,
        graded_at=run.finished_at,
        outcome=outcome,
        checks=[Check(name="total", passed=outcome == Outcome.passed)],
        grader_hash=H,
    )


def _page(root: Path, docs: Path) -> str:
    fixtures = {EDITION: write_edition(root, EDITION, "2026-07-01", hostile=True)}
    paths = EditionPaths(root / EDITION)
    sitting1 = [_repro(1, 0, 2), _repro(1, 1, 2), _repro(1, 2, 3, RunStatus.infra_excluded)]
    sitting1.append(_repro(1, 2, 3))
    for run in [*sitting1, _repro(2, 0, 9)]:
        append_jsonl(paths.reproductions(WL, "small", "single-shot"), run)
    grades = paths.reproduction_grades(WL, "small", "single-shot")
    append_jsonl(grades, _grade(sitting1[0], Outcome.passed))
    append_jsonl(grades, _grade(sitting1[1], Outcome.failed))
    editions = load_editions(root, lambda d: fixtures[Path(d).name])
    site = build_site_model(editions, set())
    render_workload(make_env(TEMPLATES), site, WL, docs)
    return (docs / "workloads" / WL / "index.md").read_text("utf-8")


def test_reproductions_are_shown_apart_per_sitting(tmp_path: Path) -> None:
    text = _page(tmp_path / "editions", tmp_path / "docs")
    shown = html.unescape(text)
    assert "**Reproductions** (shown apart)" in text and SENTENCE in shown
    section = shown[shown.index("**Reproductions**") :]
    rows = [line for line in section.splitlines() if line.startswith("| [")]
    assert len(rows) == 2  # one per reproduction sitting, never pooled
    # sitting · dates · runs · infra-excluded · outside window · passes, all from the records
    assert (
        "| single-shot | 1 | 2026-09-02 – 2026-09-03 | 3 | 1 | 4 | 1 of 2 graded, 1 not graded |"
        in rows[0]
    )
    assert "| single-shot | 2 | 2026-09-09 | 1 | 0 | 1 | not graded |" in rows[1]
    # The registered tables above are untouched: the reproductions' answers are not examples.
    assert shown.index("**Outcomes**") < shown.index("**Reproductions**")


def test_reproduction_rows_are_escaped(tmp_path: Path) -> None:
    text = _page(tmp_path / "editions", tmp_path / "docs")
    section = text[text.index("**Reproductions**") : text.index("## CPO trendline")]
    # The model's hostile display name reaches the section only as inert character references.
    assert "Small " in section and "<script>" not in section and "javascript:" not in section
    assert "&#60;script&#62;" in section


def test_no_section_without_reproductions(tmp_path: Path) -> None:
    root = tmp_path / "editions"
    fixtures = {EDITION: write_edition(root, EDITION, "2026-07-01")}
    site = build_site_model(load_editions(root, lambda d: fixtures[Path(d).name]), set())
    render_workload(make_env(TEMPLATES), site, WL, tmp_path / "docs")
    text = (tmp_path / "docs" / "workloads" / WL / "index.md").read_text("utf-8")
    assert "Reproductions" not in text


@pytest.mark.slow
def test_built_site_shows_reproductions_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through `mkdocs build --strict`: the section's links resolve and its text stays inert."""
    root = tmp_path / "editions"
    fixtures = {EDITION: write_edition(root, EDITION, "2026-07-01", hostile=True)}
    paths = EditionPaths(root / EDITION)
    append_jsonl(paths.reproductions(WL, "small", "single-shot"), _repro(1, 0, 2))
    monkeypatch.setattr(load_mod, "edition_results", lambda d: fixtures[Path(d).name])
    site = build_site(root, tmp_path / "build")
    page = (site / "workloads" / WL / "index.html").read_text("utf-8")
    assert SENTENCE in html.unescape(page) and "<script>alert" not in page
    assert "not graded" in page
