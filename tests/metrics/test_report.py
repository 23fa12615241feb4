from __future__ import annotations

import json
from decimal import Decimal

import pytest
from typer.testing import CliRunner

from ledgerrate.metrics import meta
from ledgerrate.metrics.report import edition_results, print_results
from ledgerrate.schema import EditionResults, Verdict


@pytest.fixture
def edition(build, tmp_path):
    runs, grades = [], []
    for model, mode, passes, usd, extra in [
        ("cheap", "single-shot", 13, "0.001", {}),
        ("cheap", "agentic", 14, "0.003", {}),
        ("big", "single-shot", 15, "0.01", {}),
        ("big", "agentic", 15, "0.05", {}),
        ("ref", "single-shot", 15, "0", {"compute": "0.0000002", "basis": "compute"}),
    ]:
        r, g = build.graded_cell(passes, model=model, mode=mode, usd=usd, **extra)
        runs += r
        grades += g
    return build.write_edition(tmp_path, runs, grades)


def test_edition_results_has_every_derived_figure(edition, lookup) -> None:
    results = edition_results(edition, lookup, reps=500)
    [wl] = results.workloads
    assert [(c.model, str(c.mode)) for c in wl.cells] == [
        ("cheap", "single-shot"),
        ("cheap", "agentic"),
        ("big", "single-shot"),
        ("big", "agentic"),
        ("ref", "single-shot"),
    ]
    assert wl.cheapest_qualifying.model == "cheap"
    assert wl.cheapest_qualifying.cpo_usd == (Decimal("0.015") / 13).quantize(Decimal("1e-12"))
    assert wl.cheapest_qualifying.rate_usd == Decimal("1.15")
    assert wl.flagship.model == "big" and str(wl.flagship.mode) == "single-shot"
    assert wl.flagship_note is None
    # Indices divide the published (quantized) CPOs, so a reader can recompute them from the page.
    assert wl.frontier_premium == float(wl.flagship.cpo_usd / wl.cheapest_qualifying.cpo_usd)
    assert wl.frontier_premium == pytest.approx(0.01 / (0.015 / 13), rel=1e-5)
    [premium] = wl.flagship_premiums
    assert (premium.model, premium.vendor, premium.qualifying) == ("big", "openai", True)
    assert premium.line == wl.flagship and premium.premium == wl.frontier_premium
    assert wl.reference.model == "ref" and wl.reference.cost_basis == "compute"
    assert wl.agentic_multiplier["cheap"] == pytest.approx((0.045 / 14) / (0.015 / 13), rel=1e-5)
    assert "ref" not in wl.agentic_multiplier
    assert wl.routing.challenger == "cheap" and wl.routing.incumbent == "big"
    assert wl.routing.verdict in {"pass", "inconclusive"}
    if wl.routing.verdict == "inconclusive":
        assert wl.routing.remedy
    assert results.bootstrap_reps == 500 and results.edition == "2026-07"


def test_results_are_reproducible(edition, lookup) -> None:
    assert edition_results(edition, lookup, reps=300) == edition_results(edition, lookup, reps=300)


def test_a_void_cell_leaves_every_index(build, tmp_path, lookup) -> None:
    cheap, cheap_g = build.graded_cell(15, model="cheap", usd="0.001", simulated=True)
    big, big_g = build.graded_cell(15, model="big", usd="0.01")
    edition = build.write_edition(tmp_path, [*cheap, *big], [*cheap_g, *big_g])
    [wl] = edition_results(edition, lookup, reps=200).workloads
    void = next(c for c in wl.cells if c.model == "cheap" and str(c.mode) == "single-shot")
    assert void.void and void.void_reasons
    assert wl.cheapest_qualifying.model == "big"
    assert wl.routing.verdict == Verdict.not_applicable


def test_unregistered_edition_is_void_not_published(build, tmp_path, lookup) -> None:
    runs, grades = build.graded_cell(15, model="cheap")
    edition = build.write_edition(tmp_path, runs, grades, registered=False)
    [wl] = edition_results(edition, lookup, reps=200).workloads
    assert wl.cheapest_qualifying is None
    assert all(c.void for c in wl.cells if c.n)


def test_results_json_round_trips(edition, lookup, capsys) -> None:
    print_results(edition, as_json=True, lookup=lookup)
    out = capsys.readouterr().out
    parsed = EditionResults.model_validate_json(out)
    assert parsed == edition_results(edition, lookup)
    assert json.loads(out)["workloads"][0]["cells"][0]["spend_usd"] == "0.015"


def test_the_table_labels_small_samples_and_missing_outcomes(build, tmp_path, lookup, capsys):
    runs, grades = build.graded_cell(0, model="cheap")
    edition = build.write_edition(tmp_path, runs, grades)
    print_results(edition, as_json=False, lookup=lookup)
    out = capsys.readouterr().out
    assert "small sample: n = 15" in out
    assert "no successful outcome" in out
    assert "routing verdict" in out


def test_cli_results_json(edition, lookup, monkeypatch) -> None:
    from ledgerrate.cli import app

    monkeypatch.setattr(meta, "registry_meta", lookup)
    outcome = CliRunner().invoke(app, ["results", str(edition), "--json"])
    assert outcome.exit_code == 0, outcome.output
    assert EditionResults.model_validate_json(outcome.stdout).workloads[0].cells


def test_a_record_filed_under_the_wrong_cell_is_refused(build, tmp_path, lookup) -> None:
    from ledgerrate.core.io import FileProblem, append_jsonl

    runs, grades = build.graded_cell(15, model="cheap")
    edition = build.write_edition(tmp_path, runs, grades)
    append_jsonl(edition / "runs" / build.WL / "big" / "single-shot.jsonl", runs[0])
    with pytest.raises(FileProblem, match="not the cell of this file"):
        edition_results(edition, lookup, reps=100)


def test_spotcheck_flags_reach_their_cell(build, tmp_path, lookup, monkeypatch) -> None:
    import sys
    import types

    fake = types.ModuleType("ledgerrate.core.spotcheck_flags")
    fake.flags_for = lambda root: {  # type: ignore[attr-defined]
        (build.WL, "cheap", "single-shot"): ["judge–human disagreement > 10%: full manual regrade"],
        (build.WL, "big", "agentic"): ["sampled below 20%"],
    }
    monkeypatch.setitem(sys.modules, "ledgerrate.core.spotcheck_flags", fake)
    runs, grades = build.graded_cell(15, model="cheap")
    edition = build.write_edition(tmp_path, runs, grades)
    [wl] = edition_results(edition, lookup, reps=100).workloads
    flags = {(c.model, str(c.mode)): c.flags for c in wl.cells}
    assert flags[("cheap", "single-shot")] == [
        "judge–human disagreement > 10%: full manual regrade"
    ]
    assert flags[("big", "agentic")] == ["sampled below 20%"]


def test_results_published_before_per_flagship_premiums_still_load(repo_root) -> None:
    # Results sealed before per-flagship premiums have no `flagship_premiums`; they load with an
    # empty list, which is what an edition without a flagship recomputes, so `verify` finds them
    # unchanged. Both files are the ones first sealed; 2026-11's corrected figures (erratum
    # 2026-12-01-4) are in results-current.json, which has the field, so it is removed here.
    sealed = json.loads((repo_root / "editions" / "2026-11-b" / "results.json").read_text())
    assert all("flagship_premiums" not in w for w in sealed["workloads"])
    corrected = json.loads(
        (repo_root / "editions" / "2026-11" / "results-current.json").read_text()
    )
    for workload in corrected["workloads"]:
        workload.pop("flagship_premiums", None)
    for raw in (sealed, corrected):
        loaded = EditionResults.model_validate(raw)
        assert all(w.flagship_premiums == [] for w in loaded.workloads)


def test_the_default_table_fits_100_columns_and_wide_shows_everything(
    edition, lookup, capsys
) -> None:
    print_results(edition, as_json=False, lookup=lookup)
    compact = capsys.readouterr().out
    lines = compact.splitlines()
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
    header = next(line for line in lines if "pass rate" in line and "status" in line)
    for name in ("model", "mode", "pass rate [95% CI]", "CPO [95% CI]", "status"):
        assert name in header
    assert "tokens in/out" not in compact
    # each cell on one line: its model, mode, pass rate and interval side by side
    assert any("cheap" in line and "single-shot" in line and "13/15" in line for line in lines)
    print_results(edition, as_json=False, lookup=lookup, wide=True)
    wide = capsys.readouterr().out
    for name in ("tokens in/out", "latency p50/p90", "infra (spend)", "cost/attempt", "basis"):
        assert name in wide
    assert max(len(line) for line in wide.splitlines()) > 100
