"""One money unit beyond the card: every page reads a CPO as the card does, per job at the
job's volume and per single item in plain dollars (`usd.job_and_item`), never "per billion
outcomes" — on a 40-model edition and on the bundled ones."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest

from ledgerrate.core.io import load_model
from ledgerrate.core.layout import EditionPaths
from ledgerrate.core.usd import job_and_item
from ledgerrate.publish import charts
from ledgerrate.publish.card import rate_card
from ledgerrate.publish.compare import render_compare
from ledgerrate.publish.load import Edition
from ledgerrate.publish.pages import (
    make_env,
    render_edition,
    render_model,
    render_primitives,
    render_workload,
)
from ledgerrate.publish.render import TEMPLATES, render_into
from ledgerrate.publish.site import build_site_model
from ledgerrate.schema import EditionResults
from tests.publish import card_fixture

BUNDLED = Path(__file__).resolve().parents[2] / "editions"
# A per-unit amount rescaled to a power of a thousand: what the card used to print.
RESCALED = re.compile(
    r"per (thousand|million|billion|trillion|quadrillion) (outcomes|jobs|attempts)"
)


def _forty(root: Path) -> Edition:
    computed = card_fixture.computed_results()
    return Edition(
        paths=EditionPaths(root / card_fixture.EDITION),
        manifest=card_fixture.manifest(),
        pricing=None,
        registration=None,
        errata=card_fixture.errata(computed),
        seeds=None,
        cards={},
        results=card_fixture.shown_results(),
        computed=computed,
    )


def _render(editions: list[Edition], docs: Path) -> dict[str, str]:
    env = make_env(TEMPLATES)
    site = build_site_model(editions, {"1.0"})
    for edition in editions:
        render_edition(env, site, edition, docs)
    for workload_id in site.workloads:
        render_workload(env, site, workload_id, docs)
    for model_id in site.models:
        render_model(env, site, model_id, docs)
    render_primitives(env, site, docs)
    render_compare(env, editions, docs)
    return {
        str(p.relative_to(docs)): html.unescape(p.read_text("utf-8")) for p in docs.rglob("*.md")
    }


@pytest.fixture(scope="module")
def forty(tmp_path_factory: pytest.TempPathFactory) -> tuple[Edition, dict[str, str]]:
    edition = _forty(tmp_path_factory.mktemp("editions"))
    return edition, _render([edition], tmp_path_factory.mktemp("docs"))


def test_forty_models_read_every_cpo_per_job_and_per_item(
    forty: tuple[Edition, dict[str, str]],
) -> None:
    edition, pages = forty
    kinds = {path.split("/")[0] for path in pages}
    assert {"editions", "workloads", "models", "compare"} <= kinds
    for path, text in pages.items():
        assert not RESCALED.search(text), (path, RESCALED.search(text))
    priced = 0
    for result in edition.results.workloads:
        page = pages[f"workloads/{result.workload}/index.md"]
        for cell in result.cells:
            if cell.cpo_usd is None or cell.pending_judge:
                continue
            shown = job_and_item(cell.cpo_usd, result.volume)
            assert shown in page, (result.workload, cell.model, shown)
            model_page = next(t for p, t in pages.items() if p.startswith(f"models/{cell.model}/"))
            assert shown in model_page
            priced += 1
        line = result.cheapest_qualifying
        if line is not None:
            derived = page[page.index("- Cheapest qualifying:") :].split("\n")[0]
            assert job_and_item(line.cpo_usd, result.volume) in derived
    assert priced > 100  # the fixture's many priced cells, not a vacuous loop


def test_the_gap_and_cost_charts_describe_costs_in_the_cards_unit() -> None:
    results = card_fixture.shown_results()
    card = rate_card(results, card_fixture.manifest())
    gap = charts.gap_svg(results, card, "footer")
    assert not RESCALED.search(gap)
    first = next(w for w in results.workloads if w.cheapest_qualifying is not None)
    assert first.cheapest_qualifying is not None
    assert html.escape(job_and_item(first.cheapest_qualifying.cpo_usd, first.volume)) in gap
    scatter = charts.cost_vs_pass_svg(first, "footer")
    assert not RESCALED.search(scatter) and " per item" in scatter


def test_no_page_of_the_bundled_site_reads_a_cpo_per_billion(tmp_path: Path) -> None:
    """Every page the build writes (home, editions, workloads, models, compare, primitives, runs
    and items pages), rendered from the bundled editions as published."""
    editions = tmp_path / "editions"
    shutil.copytree(BUNDLED, editions)  # the build's rendering step writes nothing here; a copy
    docs = tmp_path / "docs"
    render_into(
        editions, docs, results_fn=lambda root: load_model(EditionResults, root / "results.json")
    )
    # The cell pages are plain HTML, written beside the markdown (publish/drilldown.py).
    files = [*docs.rglob("*.md"), *(docs / "runs").rglob("index.html")]
    pages = {str(p.relative_to(docs)): html.unescape(p.read_text("utf-8")) for p in files}
    assert any(path.startswith("runs/") for path in pages) and "index.md" in pages
    for path, text in pages.items():
        assert not RESCALED.search(text), (path, RESCALED.search(text))
        assert not re.search(r"per (billion|million)(?! tokens)", text), path
    # 2026-12's reference baseline on extract.invoice.v2, as its card reads it.
    page = pages["workloads/extract.invoice.v2/index.md"]
    assert "$0.000157 per job · $0.000000157 per item" in page
    drill = pages["runs/2026-12/extract.invoice.v2/reference/single-shot/index.html"]
    assert "CPO $0.000157 per job · $0.000000157 per item" in drill
