"""The serial-server rule that rebuilds a local model's server time from its recorded clocks, and
the 2026-12 erratum that quotes it: every figure there is what the rule gives from the raw logs."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledgerrate.cli import app
from ledgerrate.core.io import load_model
from ledgerrate.core.server_time import Timed, cell_line, edition_server_time, served, summary_line
from ledgerrate.schema import ErrataFile

T0 = dt.datetime(2026, 12, 1, 22, 0, tzinfo=dt.UTC)
EDITION = Path(__file__).resolve().parents[2] / "editions" / "2026-12"


def _at(seconds: float, latency: float) -> Timed:
    return Timed(T0 + dt.timedelta(seconds=seconds), latency)


def test_two_items_sharing_one_slot_each_get_their_own_service_time() -> None:
    # Both clocks start at 0; the first is served 0–30 s, the second waits, then 30–42 s.
    assert served([_at(0, 30), _at(0, 42)]) == [(30.0, 0.0), (12.0, 30.0)]
    # Order given is kept; the order of service is read from the ends.
    assert served([_at(0, 42), _at(0, 30)]) == [(12.0, 30.0), (30.0, 0.0)]


def test_calls_that_never_overlapped_keep_their_recorded_time() -> None:
    assert served([_at(0, 10), _at(15, 5), _at(20, 1)]) == [(10.0, 0.0), (5.0, 0.0), (1.0, 0.0)]


def test_a_queue_of_three_is_served_back_to_back() -> None:
    # A third call arrives mid-way through the first; the service spans tile the time.
    got = served([_at(0, 10), _at(0, 25), _at(5, 40)])
    assert got == [(10.0, 0.0), (15.0, 10.0), (20.0, 20.0)]
    assert sum(s for s, _ in got) == 45.0  # the server was busy from 0 to 45 s, no more


@pytest.fixture(scope="module")
def smollm2():  # type: ignore[no-untyped-def]
    return edition_server_time(EDITION, "smollm2")


def test_the_recorded_figures_it_starts_from_are_the_published_ones(smollm2) -> None:  # type: ignore[no-untyped-def]
    results = json.loads((EDITION / "results.json").read_text(encoding="utf-8"))
    published = {
        (w["workload"], c["mode"]): c
        for w in results["workloads"]
        for c in w["cells"]
        if c["model"] == "smollm2"
    }
    for cell in smollm2.cells:
        shown = published[(cell.workload, cell.mode)]
        assert str(cell.spend_usd) == shown["spend_usd"]
        assert cell.latency_median_s == pytest.approx(shown["latency_median_s"])
        assert cell.latency_p90_s == pytest.approx(shown["latency_p90_s"])
        assert cell.server_s <= cell.call_s and cell.server_spend_usd <= cell.spend_usd


def test_the_erratum_quotes_exactly_what_the_rule_gives(smollm2) -> None:  # type: ignore[no-untyped-def]
    errata = load_model(ErrataFile, EDITION / "errata.yaml")
    note = next(e for e in errata.entries if e.id == "2026-12-02-1")
    assert note.figures == []  # disclosed, not replaced: no table shows a rebuilt figure
    text = " ".join(note.what_changed.split())
    withdrawn = {
        (f.workload, str(f.mode)) for e in errata.entries if e.withdrawn for f in e.figures
    }
    shown = [c for c in smollm2.cells if (c.workload, c.mode) not in withdrawn]
    assert len(shown) == 10
    for cell in shown:
        assert cell_line(cell) in text, cell.workload
    assert summary_line("smollm2", shown) in text
    exact = {(c.workload, c.mode) for c in shown if c.exact}
    assert exact == {
        ("query.nl2sql.v1", "single-shot"),
        ("query.nl2sql.v1", "agentic"),
        ("reconcile.ledger.v1", "single-shot"),
        ("reconcile.ledger.v1", "agentic"),
        ("synthesize.board-brief.v1", "single-shot"),
        ("synthesize.board-brief.v1", "agentic"),
    }
    assert f"{smollm2.open_calls} calls" in " ".join(note.why.split())


def test_the_command_prints_the_same_lines(smollm2) -> None:  # type: ignore[no-untyped-def]
    result = CliRunner().invoke(
        app, ["server-time", str(EDITION), "--model", "smollm2"], terminal_width=200
    )
    assert result.exit_code == 0, result.output
    for cell in smollm2.cells:
        assert cell_line(cell) in result.output


def test_a_model_not_served_locally_is_refused_in_one_line() -> None:
    other = EDITION.parent / "2026-11"
    result = CliRunner().invoke(app, ["server-time", str(other), "--model", "reference"])
    assert result.exit_code != 0
    assert "edition.yaml: models: 'reference' is not served locally" in result.output
