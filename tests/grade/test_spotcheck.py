"""Spot-check sampling (≥ 20% per cell, seeded, recorded) and import with disagreement flags."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from ledgerrate.core.io import read_jsonl
from ledgerrate.core.spotcheck_flags import flags_for, methodology_notes
from ledgerrate.grade.spotcheck import (
    FLAG_REGRADE,
    draw_sample,
    import_grades,
    sample_edition,
    sample_size,
)
from ledgerrate.grade.stage import grade_edition
from ledgerrate.schema import GradeRecord
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.workloads.generate_variance_commentary import v1_revision2 as variance
from tests.grade.gradekit import (
    JUDGE_KEY_ENV,
    VARIANCE,
    MiniEdition,
    lookup,
    make_edition,
    scoring_responder,
)


def test_draw_sample_share_and_reproducibility() -> None:
    cells = {
        f"m{i}/single-shot": [f"r-{i:02d}{j:014x}" for j in range(n)]
        for i, n in enumerate((1, 4, 5, 11, 15))
    }
    first = draw_sample(cells, seed=7)
    assert first == draw_sample(cells, seed=7)
    assert first != draw_sample(cells, seed=8)
    for key, population in cells.items():
        chosen = first[key]
        assert len(chosen) >= 0.2 * len(population) and len(chosen) == sample_size(len(population))
        assert set(chosen) <= set(population)
    assert sample_size(15) == 3 and sample_size(11) == 3 and sample_size(1) == 1


def _judged_edition(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MiniEdition:
    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    with FakeProviderServer(responder=scoring_responder()) as fake:
        ed = make_edition(tmp_path, fake.base_url("openai"), judge_family="neutral", n=10)
        for item in ed.dataset(VARIANCE).items:
            for model in ("alpha", "beta"):
                ed.add_run(VARIANCE, model, "single-shot", item.id, variance.reference_answer(item))
        grade_edition(ed.root, lookup=lookup)
    return ed


def _rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_sample_import_and_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ed = _judged_edition(tmp_path, monkeypatch)
    written = sample_edition(ed.root, lookup=lookup)
    sample_path = ed.paths.spotcheck_sample(VARIANCE)
    form = ed.paths.spotcheck(VARIANCE)
    assert written == [sample_path, form]
    sample = json.loads(sample_path.read_text())
    assert set(sample["cells"]) == {"alpha/single-shot", "beta/single-shot"}
    for cell in sample["cells"].values():
        assert cell["population"] == 10 and len(cell["runs"]) == 2  # ceil(20% of 10)
    # Redrawing reuses the recorded seed: the same runs again.
    sample_edition(ed.root, lookup=lookup)
    again = json.loads(sample_path.read_text())
    assert again["seed"] == sample["seed"] and again["cells"] == sample["cells"]

    rows = _rows(form)
    assert len(rows) == 4
    blob = form.read_text().lower()
    for word in (
        "alpha",
        "beta",
        "single-shot",
        "acme",
        "zenith",
        "judge",
        *(r for cell in sample["cells"].values() for r in cell["runs"]),
    ):
        assert word not in blob, word
    assert all(row["rubric"] == variance.RUBRIC and row["human_pass"] == "" for row in rows)

    # Graders agree on everything except one alpha run: 1 of 2 = 50% > 10% flags alpha only.
    alpha_runs = set(sample["cells"]["alpha/single-shot"]["runs"])
    from ledgerrate.grade.anonymise import anon_id, edition_secret

    secret = edition_secret(ed.paths)
    alpha_ids = sorted(anon_id(secret, r) for r in alpha_runs)
    for row in rows:
        row["grader"] = "g1"
        row["human_pass"] = "no" if row["anon_id"] == alpha_ids[0] else "yes"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    form.write_text(out.getvalue())

    lines = import_grades(ed.root, form)
    assert any("alpha/single-shot: 1/2" in line and FLAG_REGRADE in line for line in lines)
    assert any("beta/single-shot: 0/2" in line and FLAG_REGRADE not in line for line in lines)
    assert flags_for(ed.root) == {(VARIANCE, "alpha", "single-shot"): [FLAG_REGRADE]}
    assert len(methodology_notes(ed.root)) == 1

    # Spot-checks are a new revision; the judge's grade is kept beneath it.
    records = read_jsonl(ed.paths.grades(VARIANCE, "alpha", "single-shot"), GradeRecord)
    checked = [r for r in records if r.spotcheck is not None]
    assert len(checked) == 2 and all(r.revision == 2 and r.judge for r in checked)
    assert {r.run_id for r in records if r.revision == 1} >= alpha_runs

    # Importing the same CSV again counts each run once.
    import_grades(ed.root, form)
    state = json.loads((ed.root / "spotchecks" / f"{VARIANCE}.flags.json").read_text())
    assert state["cells"]["alpha/single-shot"]["checked"] == 2

    # The sampler never overwrites graders' work.
    before = form.read_text()
    sample_edition(ed.root, lookup=lookup)
    assert form.read_text() == before


def test_agreement_within_limit_raises_no_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ed = _judged_edition(tmp_path, monkeypatch)
    sample_edition(ed.root, lookup=lookup)
    form = ed.paths.spotcheck(VARIANCE)
    rows = _rows(form)
    for row in rows:
        row["human_pass"] = "yes"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    form.write_text(out.getvalue())
    import_grades(ed.root, form)
    assert flags_for(ed.root) == {}
    assert methodology_notes(ed.root) == []
