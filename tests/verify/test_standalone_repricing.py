"""The standalone verifier checks each cell's re-pricing totals (repricing.md): token totals of
the infra-excluded attempts and the `time_priced` block re-derived from the raw logs, and the
cell's own totals re-priced at the frozen prices giving back its published spend."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.verify.test_standalone_figures import (  # noqa: F401  (fixtures)
    bundled_checks,
    bundled_site,
    check,
    edition_copy,
)

TOTALS = "cell re-pricing totals"
AT_FROZEN = "cell re-priced at frozen prices"


def test_every_bundled_cell_carries_totals_that_recompute(
    bundled_checks: dict[str, Any],  # noqa: F811
) -> None:
    for edition, found in bundled_checks.items():
        totals = [d for d in found.of("matched", TOTALS) if d.startswith("results-corrected")]
        again = [d for d in found.of("matched", AT_FROZEN) if d.startswith("results-corrected")]
        assert len(totals) >= 7 and len(again) >= 7, edition
        assert found.of("mismatched", TOTALS) == [] and found.of("mismatched", AT_FROZEN) == []


def _edit(folder: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    path = folder / "results-corrected.json"
    doc = json.loads(path.read_text())
    cell = next(
        c
        for w in doc["results"]["workloads"]
        for c in w["cells"]
        if c["model"] == "smollm2" and Decimal(c["spend_usd"]) > 0
    )
    edit(cell)
    path.write_text(json.dumps(doc))


def _bump(field: str) -> Callable[[dict[str, Any]], None]:
    def edit(cell: dict[str, Any]) -> None:
        block = cell["time_priced"]
        block[field] = str(Decimal(block[field]) + Decimal("0.000001"))

    return edit


@pytest.mark.parametrize(
    ("edit", "checks"),
    [
        (_bump("seconds"), {TOTALS, AT_FROZEN}),
        (_bump("rounding_usd"), {TOTALS, AT_FROZEN}),
        (_bump("hour_usd"), {TOTALS, AT_FROZEN}),
        (lambda cell: cell.pop("time_priced"), {TOTALS}),
        (lambda cell: cell["infra_excluded_tokens"].update(input=1), {TOTALS}),
    ],
    ids=["seconds", "rounding", "rate", "dropped-block", "infra-tokens"],
)
def test_an_edited_total_is_a_mismatch(
    edition_copy: Callable[[str], Path],  # noqa: F811
    edit: Callable[[dict[str, Any]], None],
    checks: set[str],
) -> None:
    folder = edition_copy("2026-12")
    _edit(folder, edit)
    found = check(folder)
    wrong = {c for s, c, d in found.lines if s == "mismatched" and "smollm2" in d}
    assert checks <= wrong, wrong
    assert wrong <= {TOTALS, AT_FROZEN}


DATA = re.compile(r'<script type="application/json" class="lr-reprice-data">(.*?)</script>', re.S)


def test_the_pages_reprice_from_the_totals_the_verifier_checks(
    bundled_site: Path,  # noqa: F811
) -> None:
    """The Re-price panels' data (inside the edition, home and workload pages) holds the very
    totals and prices that results-corrected.json and pricing.yaml publish, which the checks
    above hold to the raw logs."""
    import yaml

    compared = 0
    unpanelled: set[tuple[str, str, str, str]] = set()  # every published cell has a panel
    for edition in ("2026-11", "2026-11-b", "2026-12"):
        doc = json.loads((bundled_site / "data" / edition / "results-corrected.json").read_text())
        cells = {
            (w["workload"], c["model"], c["mode"]): c
            for w in doc["results"]["workloads"]
            for c in w["cells"]
        }
        unpanelled |= {(edition, *key) for key in cells}
        pricing = yaml.safe_load((bundled_site / "data" / edition / "pricing.yaml").read_text())
        pages = [bundled_site / "editions" / edition / "index.html"]
        pages += [
            p
            for p in (bundled_site / "workloads").glob("*/index.html")
            if f'data-edition="{edition}"' in html.unescape(p.read_text("utf-8"))
        ]
        for page in pages:
            for raw in DATA.findall(page.read_text("utf-8")):
                data = json.loads(raw)
                if data["edition"] != edition:
                    continue
                for model, rate in data["hourly"].items():
                    kind = "compute" if rate["basis"] == "compute" else "self_hosted"
                    frozen = (
                        pricing["compute"]["vcpu_hour_usd"]
                        if kind == "compute"
                        else pricing["self_hosted"][model]["hour_usd"]
                    )
                    assert Decimal(rate["hour_usd"]) == Decimal(str(frozen))
                for workload in data["workloads"]:
                    for cell in workload["cells"]:
                        published = cells[(workload["id"], cell["model"], cell["mode"])]
                        assert cell["tokens"] == published["tokens"]
                        assert cell["infra_tokens"] == published["infra_excluded_tokens"]
                        timed, shown = published["time_priced"], cell["time"]
                        assert Decimal(shown["seconds"]) == Decimal(timed["seconds"])
                        assert Decimal(shown["rounding_usd"]) == Decimal(timed["rounding_usd"])
                        assert cell["passes"] == published["passes"]
                        unpanelled.discard((edition, workload["id"], cell["model"], cell["mode"]))
                        compared += 1
    # An older edition's page of a workload re-prices through the edition page's panel, so
    # the check is that each cell is in some panel, not that every page has one.
    assert compared and not unpanelled, sorted(unpanelled)[:5]
