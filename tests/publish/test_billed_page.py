"""The workload page's reconciliation with the bill (methodology/1.0/billed-cost.md), on the
40-model fixture edition: a cell reconciled and agreeing, one whose bill differs, one partly
reconciled, each labelled as the method says; a workload without a stated cost shows no block."""

from __future__ import annotations

import html
import re
from decimal import Decimal
from pathlib import Path

from ledgerrate.core.layout import EditionPaths
from ledgerrate.publish.load import Edition
from ledgerrate.publish.pages import make_env, render_workload
from ledgerrate.publish.render import TEMPLATES
from ledgerrate.publish.site import build_site_model
from ledgerrate.schema import BilledCheck, EditionResults
from tests.publish import card_fixture

CHECKS = [
    BilledCheck(
        calls=15, calls_billed=15, billed_usd=Decimal("0.0465"), computed_usd=Decimal("0.0465"),
        difference_usd=Decimal("0"), basis="reconciled", agrees=True,
    ),
    BilledCheck(
        calls=15, calls_billed=15, billed_usd=Decimal("0.0500"), computed_usd=Decimal("0.0465"),
        difference_usd=Decimal("0.0035"), basis="reconciled", agrees=False,
    ),
    BilledCheck(
        calls=15, calls_billed=12, billed_usd=Decimal("0.0372"), computed_usd=Decimal("0.0372"),
        difference_usd=Decimal("0"), basis="partly-reconciled", agrees=True,
    ),
]  # fmt: skip


def _with_billed(results: EditionResults, workload: str) -> tuple[EditionResults, list[str]]:
    """`results` with the first three cells of `workload` carrying CHECKS; their models."""
    workloads, models = [], []
    for w in results.workloads:
        if w.workload == workload:
            cells = list(w.cells)
            for i, check in enumerate(CHECKS):
                cells[i] = cells[i].model_copy(update={"billed": check})
                models.append(cells[i].model)
            w = w.model_copy(update={"cells": cells})
        workloads.append(w)
    return results.model_copy(update={"workloads": workloads}), models


def test_the_workload_page_shows_each_reconciliation_labelled(tmp_path: Path) -> None:
    workload = card_fixture.WORKLOADS[0]
    computed, models = _with_billed(card_fixture.computed_results(), workload)
    shown, _ = _with_billed(card_fixture.shown_results(), workload)
    edition = Edition(
        paths=EditionPaths(tmp_path / card_fixture.EDITION),
        manifest=card_fixture.manifest(),
        pricing=None,
        registration=None,
        errata=card_fixture.errata(computed),
        seeds=None,
        cards={},
        results=shown,
        computed=computed,
    )
    env = make_env(TEMPLATES)
    site = build_site_model([edition], {"1.0"})
    docs = tmp_path / "docs"
    for workload_id in site.workloads:
        render_workload(env, site, workload_id, docs)
    names = {m.id: m.name for m in card_fixture.manifest().models}
    page = html.unescape((docs / "workloads" / workload / "index.md").read_text("utf-8"))
    assert "Cost reconciled with the bill." in page
    block = page[page.index("Cost reconciled with the bill.") :]
    block = block[: block.index("**Derived figures**")]
    assert "methodology/1.0/billed-cost" in block
    rows = [
        [" ".join(re.sub(r"<[^>]+>", " ", cell).split()) for cell in tr.split("</td>")[:-1]]
        for tr in block.split("<tr>")[1:]
        if "<td" in tr
    ]
    assert [r[2:] for r in rows] == [
        ["measured, reconciled with the bill", "15 / 15", "$0.0465", "$0.0465", "$0"],
        ["measured, reconciled, the bill differs", "15 / 15", "$0.0500", "$0.0465", "$0.0035"],
        ["measured, partly reconciled, 12 of 15 calls", "12 / 15", "$0.0372", "$0.0372", "$0"],
    ]
    assert [r[0] for r in rows] == [names[m] for m in models]
    other = html.unescape(
        (docs / "workloads" / card_fixture.WORKLOADS[1] / "index.md").read_text("utf-8")
    )
    assert "Cost reconciled with the bill" not in other
