"""The newcomer scenario of the judge protocol (standard §5), end to end.

Three models, a judge that passes every judged run, then human spot-checkers who fail every
sampled run. After `spotcheck import` the cells disagree 100% with the judge: no rate card,
index or routing verdict may treat them as qualifying, and everything that shows a figure of
them must say which condition is missing.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledgerrate.cli import app
from ledgerrate.core.edition import load_edition
from ledgerrate.core.layout import PRIVATE_ROOT_ENV, EditionPaths
from ledgerrate.grade.stage import grade_edition
from ledgerrate.metrics.report import edition_results
from ledgerrate.publish.card import rate_card
from ledgerrate.publish.card_html import render_ratecard_html
from ledgerrate.schema import EditionResults, WorkloadResult
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.workloads.synthesize_board_brief import v1_revision2 as brief
from tests.grade.gradekit import (
    BRIEF,
    JUDGE_KEY_ENV,
    MiniEdition,
    lookup,
    make_edition,
    scoring_responder,
)

THREE = {
    "alpha": {"provider": "openai", "family": "acmeai", "api_model": "acme-large-2"},
    "beta": {"provider": "anthropic", "family": "zenithlabs", "api_model": "zenith-pro-7"},
    "gamma": {"provider": "gemini", "family": "geminico", "api_model": "gem-flash-3"},
}
MODES = ("single-shot", "agentic")


@pytest.fixture(scope="module")
def graded_edition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every board-brief run passes the deterministic checks and then the judge: three models,
    both modes, 15 items, graded once for the module (each test works on its own copy)."""
    tmp_path = tmp_path_factory.mktemp("newcomer")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
        monkeypatch.setenv(PRIVATE_ROOT_ENV, str(tmp_path / "private"))
        with FakeProviderServer(responder=scoring_responder()) as fake:
            ed = make_edition(
                tmp_path,
                fake.base_url("openai"),
                judge_family="neutral",
                n=15,
                evaluated=THREE,
                flagship="gamma",
                workloads=(BRIEF,),
            )
            for item in ed.dataset(BRIEF).items:
                for model in THREE:
                    for mode in MODES:
                        ed.add_run(BRIEF, model, mode, item.id, brief.reference_answer(item))
            summary = grade_edition(ed.root, lookup=lookup)
        assert summary.passed == 15 * 6 and summary.pending_judge == 0
        return ed.root


def _edition(graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MiniEdition:
    monkeypatch.setenv(JUDGE_KEY_ENV, "k-test")
    root = tmp_path / graded.name  # the edition's id is its folder's name
    shutil.copytree(graded, root)
    # Its private folder (the anonymisation secret) goes to this test's (`private_dir`).
    shutil.copytree(
        graded.parent / "private", Path(os.environ[PRIVATE_ROOT_ENV]), dirs_exist_ok=True
    )
    return MiniEdition(root=root, paths=EditionPaths(root))


def _fill(form: Path, verdict: str) -> None:
    rows = list(csv.DictReader(io.StringIO(form.read_text(encoding="utf-8"))))
    for row in rows:
        row["grader"], row["human_pass"] = "g1", verdict
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    form.write_text(out.getvalue(), encoding="utf-8")


def _brief(results: EditionResults) -> WorkloadResult:
    return next(w for w in results.workloads if w.workload == BRIEF)


def _assert_off_every_index(ed: MiniEdition, condition: str) -> None:
    results = edition_results(ed.root)
    workload = _brief(results)
    judged = [c for c in workload.cells if not c.is_reference]
    assert len(judged) == 6
    for cell in judged:
        assert cell.pass_rate == 1.0  # the judge's figure stands, but it does not qualify
        assert not cell.qualifying
        assert cell.judge_protocol is not None
        assert any(condition in gap for gap in cell.judge_protocol.missing), cell.judge_protocol
    assert workload.cheapest_qualifying is None
    assert workload.frontier_premium is None
    assert all(not p.qualifying and p.premium is None for p in workload.flagship_premiums)
    assert workload.routing.verdict != "pass"

    manifest = load_edition(ed.root).manifest
    card = rate_card(results, manifest)
    line = card.lines[0]
    assert line.rate is None and condition in (line.rate_status or "")
    # The flagship's rate is shown for comparison only, and says why it does not qualify.
    assert line.flagship is not None and line.flagship.below_bar
    assert condition in (line.flagship.gap or "")
    html = render_ratecard_html(card)
    assert condition in html
    assert "pass 1.00</span>" not in html  # never a bare, unqualified judged pass rate

    runner = CliRunner()
    shown = runner.invoke(app, ["results", str(ed.root)])
    assert shown.exit_code == 0, shown.output
    assert condition in shown.output
    as_json = runner.invoke(app, ["results", str(ed.root), "--json"])
    cells = json.loads(as_json.output)["workloads"][0]["cells"]
    assert all(
        any(condition in gap for gap in c["judge_protocol"]["missing"])
        for c in cells
        if not c["is_reference"]
    )


def test_judged_cells_with_no_spotcheck_are_marked_and_do_not_qualify(
    graded_edition: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ed = _edition(graded_edition, tmp_path, monkeypatch)
    _assert_off_every_index(ed, "no human spot-check")
    cell = _brief(edition_results(ed.root)).cells[0]
    assert cell.judge_protocol is not None
    assert cell.judge_protocol.judged_runs == 15 and cell.judge_protocol.spotchecked == 0
    assert cell.judge_protocol.spotcheck_required == 3


def test_newcomer_scenario_human_fails_every_sampled_run(
    graded_edition: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ed = _edition(graded_edition, tmp_path, monkeypatch)
    runner = CliRunner()
    sampled = runner.invoke(app, ["spotcheck", "sample", str(ed.root)])
    assert sampled.exit_code == 0, sampled.output
    form = ed.paths.spotcheck(BRIEF)
    _fill(form, "fail")
    imported = runner.invoke(app, ["spotcheck", "import", str(ed.root), str(form)])
    assert imported.exit_code == 0, imported.output
    assert imported.output.count("full manual regrade required") == 6

    _assert_off_every_index(ed, "manual regrade required")
    cell = _brief(edition_results(ed.root)).cells[0]
    protocol = cell.judge_protocol
    assert protocol is not None
    assert (protocol.spotchecked, protocol.disagreements) == (3, 3)
    assert protocol.agreement == 0.0 and protocol.agreement_ci is not None
    assert protocol.agreement_ci.method == "wilson-95"
    assert float(protocol.agreement_ci.hi) > 0  # three checks cannot prove zero agreement
    assert protocol.manual_regrade == "required"


def test_pages_show_the_missing_condition_and_the_agreement(
    graded_edition: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledgerrate.publish.render import render_docs

    ed = _edition(graded_edition, tmp_path, monkeypatch)
    runner = CliRunner()
    assert runner.invoke(app, ["spotcheck", "sample", str(ed.root)]).exit_code == 0
    form = ed.paths.spotcheck(BRIEF)
    _fill(form, "fail")
    assert runner.invoke(app, ["spotcheck", "import", str(ed.root), str(form)]).exit_code == 0
    docs = tmp_path / "docs"
    render_docs(ed.root.parent, docs)
    # The window is still open, so the card is the edition page's provisional one.
    card = html.unescape((docs / "editions" / ed.root.name / "index.md").read_text("utf-8"))
    assert "judge unchecked: manual regrade required" in card
    assert "does not qualify: manual regrade required" in card  # the flagship's line
    assert "below the bar" not in card
    pages = [html.unescape(p.read_text(encoding="utf-8")) for p in docs.rglob("*.md")]
    workload_page = next(t for t in pages if "Judged-task protocol (standard §5), per cell" in t)
    assert "0 / 15 (≥ 3)" not in workload_page and "3 / 15 (≥ 3)" in workload_page
    assert "0.00 [0.00," in workload_page  # agreement 0 of 3 with its Wilson interval
    assert workload_page.count("manual regrade required") >= 6
    assert "Routing verdict: pass" not in workload_page
