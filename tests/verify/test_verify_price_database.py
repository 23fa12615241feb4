"""`verify` sets each cell's computed cost beside the price database's: notes, never a failure,
unless LedgerRate's own arithmetic disagrees with itself (a cell's counted calls not adding up
to the spend its runs recorded)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from ledgerrate.core.edition import load_edition
from ledgerrate.generate.register import register_edition
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.verify.parsed import EditionLogs
from ledgerrate.verify.price_database import CATEGORY, check_price_database
from ledgerrate.verify.report import Report
from tests.run import toy
from tests.run.runkit import SENTINEL_KEY, model, price, write_edition


@pytest.fixture
def edition(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(tmp_path / "private"))
    monkeypatch.setenv("TOY_API_KEY", SENTINEL_KEY)
    with FakeProviderServer() as fake:
        root = write_edition(
            tmp_path / "editions" / "2026-12-pd",
            models=[
                # Known to the database, frozen above its price; and one it does not know.
                model("mini", api_model="gpt-4o-mini", base_url=fake.base_url("openai")),
                model("odd", api_model="acme-unheard-of-1", base_url=fake.base_url("openai")),
            ],
            prices={"mini": price("0.20", "0.60"), "odd": price("1.00", "2.00")},
            n=2,
        )
        register_edition(root, lookup=toy.lookup)
        run_edition(
            root,
            RunOptions(),
            lookup=toy.lookup,
            retry=RetryPolicy(base_s=0.001, cap_s=1.0),
            console=Console(file=io.StringIO()),
            show_progress=False,
        )
    return root


def _check(root: Path) -> Report:
    report = Report()
    check_price_database(load_edition(root), report, EditionLogs.read(root))
    return report


def test_differences_are_notes_not_failures(edition: Path) -> None:
    report = _check(edition)
    assert report.ok and report.checked[CATEGORY] == 2  # mini's two cells
    notes = [n for n in report.notes if n.startswith("price database")]
    assert any("odd is not in genai-prices" in n for n in notes)
    cells = [n for n in notes if "· mini ·" in n]
    assert len(cells) == 2
    # Frozen input $0.20 against the database's $0.15: the database's cost is lower.
    assert all("difference $-" in n and "(information)" in n for n in cells)
    # What register found is in the edition, for the register-time record.
    written = json.loads((edition / "price-check.json").read_text())
    assert written["models"]["mini"]["differences"] == [
        "input: frozen $0.2, database $0.15 per 1M tokens",
        "cached_input: frozen $0.2, database $0.075 per 1M tokens",
    ]


def test_a_run_whose_calls_do_not_add_up_fails(edition: Path) -> None:
    log = next((edition / "runs").glob("toy.add.v1/mini/single-shot.jsonl"))
    lines = log.read_text().splitlines()
    record = json.loads(lines[0])
    record["cost"]["model_usd"] = "0.5"
    log.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    report = _check(edition)
    assert not report.ok
    assert [m.record for m in report.mismatches] == ["toy.add.v1 · mini · single-shot"]
