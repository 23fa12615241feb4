"""`ledgerrate results EDITION --prices FILE`: the figures re-priced at the reader's prices,
labelled, in the shape of `results`; a bad prices file is one line naming the file and the
field; the edition's files are never written."""

from __future__ import annotations

import hashlib
import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledgerrate.cli import app
from ledgerrate.metrics.money import time_cost
from ledgerrate.metrics.reprice import LABEL
from ledgerrate.schema import RepricedResults

BUNDLED = Path(__file__).resolve().parents[2] / "editions"


@pytest.fixture(scope="module")
def edition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("editions") / "2026-12"
    shutil.copytree(BUNDLED / "2026-12", root)
    return root


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _prices(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "my-prices.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_results_with_prices_are_repriced_labelled_and_write_nothing(
    edition: Path, tmp_path: Path
) -> None:
    before = _digest(edition)
    prices = _prices(tmp_path, 'hourly:\n  smollm2: "0.05"\npercent:\n  reference: -50\n')
    shown = CliRunner().invoke(app, ["results", str(edition), "--prices", str(prices)])
    assert shown.exit_code == 0, shown.output
    assert shown.output.count(LABEL.upper()) == 2  # above and below the tables
    assert "smollm2 hourly rate: $0.1 → $0.05 per hour" in shown.output
    assert "reference hourly rate: $0.05 → $0.025 per hour" in shown.output
    out = CliRunner().invoke(app, ["results", str(edition), "--prices", str(prices), "--json"])
    assert out.exit_code == 0, out.output
    view = RepricedResults.model_validate(json.loads(out.output))
    assert view.label == LABEL and len(view.changed) == 2
    published = CliRunner().invoke(app, ["results", str(edition), "--json"])
    original = json.loads(published.output)
    halved = 0
    for workload, before_w in zip(view.results.workloads, original["workloads"], strict=True):
        for cell, was in zip(workload.cells, before_w["cells"], strict=True):
            timed = cell.time_priced
            assert timed is not None
            if cell.spend_usd is None:
                continue
            rate = Decimal("0.05") if cell.model == "smollm2" else Decimal("0.025")
            assert cell.spend_usd == time_cost(timed.seconds, rate) + timed.rounding_usd
            assert cell.qualifying == was["qualifying"]
            halved += timed.seconds > 0
    assert halved >= 15
    assert _digest(edition) == before


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('hourly:\n  nosuch: "1"\n', "hourly.nosuch"),
        ('models:\n  smollm2:\n    input_per_mtok: "1"\n', "models.smollm2"),
        ("percent:\n  nobody: 10\n", "percent.nobody"),
        ('hourly:\n  smollm2: "-1"\n', "hourly.smollm2"),
        ('hourly:\n  smollm2: "0.1234567890123"\n', "hourly.smollm2"),
        ("percent:\n  huggingface: -101\n", "percent.huggingface"),
        ("hourly: {smollm2: 1}\ncurrency: EUR\n", "currency"),
    ],
)
def test_a_bad_prices_file_is_one_line_naming_the_file_and_field(
    edition: Path, tmp_path: Path, text: str, field: str
) -> None:
    before = _digest(edition)
    prices = _prices(tmp_path, text)
    out = CliRunner().invoke(app, ["results", str(edition), "--prices", str(prices)])
    assert out.exit_code == 2, out.output
    lines = [line for line in out.output.splitlines() if line.strip()]
    assert len(lines) == 1, out.output
    assert str(prices) in lines[0] and field in lines[0], lines[0]
    assert _digest(edition) == before
