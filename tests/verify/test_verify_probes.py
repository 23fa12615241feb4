"""`verify` re-derives the tools probes' spend, the one spend outside every cell."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ledgerrate.edition import load_edition
from ledgerrate.layout import EditionPaths
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
