"""`verify` re-derives the tools probes' spend, the one spend outside every cell."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from ledgerrate.core.edition import load_edition
from ledgerrate.core.layout import EditionPaths
from ledgerrate.verify.probes import CHECK, check_probes
from ledgerrate.verify.report import Report
from ledgerrate.verify.run import verify_path

REPO = Path(__file__).resolve().parents[2]
PROBES = "probes/smollm2.jsonl"


def test_the_probe_spend_is_re_derived_and_stated() -> None:
    edition = REPO / "editions" / "2026-12"
    report = verify_path(edition)
    assert report.ok
    # Six probes of two calls each: every call and every probe's sum checked.
    assert report.checked[CHECK] == 18
    assert (
        "tools probe spend of smollm2: $0.005121712834 over 6 probes (12 calls), re-derived at "
        "the frozen prices; infrastructure, in no cell's figures"
    ) in report.notes


def test_a_changed_probe_cost_is_a_mismatch(tmp_path: Path) -> None:
    edition = tmp_path / "2026-12"
    shutil.copytree(REPO / "editions" / "2026-12", edition)
    path = edition / PROBES
    lines = path.read_text().splitlines()
    probe = json.loads(lines[1])
    probe["calls"][0]["cost"]["compute_usd"] = "0.000001"
    lines[1] = json.dumps(probe)
    path.write_text("\n".join(lines) + "\n")
    report = Report()
    check_probes(EditionPaths(edition), load_edition(edition).pricing, report)
    assert [(m.file, m.field, m.expected, m.found) for m in report.mismatches] == [
        (PROBES, "calls[0].cost", "0.000046168528", "0.000001")
    ]


def _published_probe_spend(edition: Path, edit: Callable[[list[dict]], None]) -> None:
    path = edition / "results-current.json"
    doc = json.loads(path.read_text())
    edit(doc["probe_spend"])
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")


def _figure_mismatches(edition: Path) -> list[tuple[str | None, object, object]]:
    report = verify_path(edition)
    return [
        (m.record, m.expected, m.found)
        for m in report.mismatches
        if m.file == "results-current.json" and m.record
    ]


def test_an_edited_stored_probe_spend_is_a_mismatch(tmp_path: Path) -> None:
    edition = tmp_path / "2026-12"
    shutil.copytree(REPO / "editions" / "2026-12", edition)

    def cheaper(spend: list[dict]) -> None:
        spend[0]["usd"] = "0.005121712833"

    _published_probe_spend(edition, cheaper)
    assert _figure_mismatches(edition) == [
        ("probe_spend.smollm2.usd", "0.005121712834", "0.005121712833")
    ]


def test_a_dropped_stored_probe_spend_is_a_mismatch(tmp_path: Path) -> None:
    edition = tmp_path / "2026-12"
    shutil.copytree(REPO / "editions" / "2026-12", edition)
    _published_probe_spend(edition, lambda spend: spend.clear())
    [(where, expected, found)] = _figure_mismatches(edition)
    assert (where, found) == ("probe_spend", "<absent>")
    assert expected == str(
        {"smollm2": {"model": "smollm2", "probes": 6, "calls": 12, "usd": "0.005121712834"}}
    )


def test_an_edited_probe_call_moves_the_recomputed_spend(tmp_path: Path) -> None:
    """A probe call's server time edited: besides its stated cost (check_probes), the spend
    re-derived from the record no longer equals the published one."""
    edition = tmp_path / "2026-12"
    shutil.copytree(REPO / "editions" / "2026-12", edition)
    path = edition / PROBES
    lines = path.read_text().splitlines()
    probe = json.loads(lines[0])
    probe["calls"][0]["latency_s"] = probe["calls"][0]["latency_s"] + 36.0  # $0.001 more
    lines[0] = json.dumps(probe)
    path.write_text("\n".join(lines) + "\n")
    mismatches = _figure_mismatches(edition)
    assert mismatches == [("probe_spend.smollm2.usd", "0.006121712834", "0.005121712834")]
