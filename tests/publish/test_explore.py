"""The explore pieces: the Pareto frontier, the gap chart, sort keys and the tables' data."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from decimal import Decimal
from pathlib import Path

import pytest

from ledgerrate.publish import tables
from ledgerrate.publish.card import rate_card
from ledgerrate.publish.charts import FRONTIER_ID, cost_vs_pass_svg, gap_svg
from ledgerrate.publish.frontier import pareto_frontier
from ledgerrate.schema import CellResult, EditionManifest, Mode
from tests.publish.factory import manifest, results
from tests.publish.test_charts import FOOTER, _cell, _result

NS = "{http://www.w3.org/2000/svg}"


def test_frontier_keeps_only_cells_no_other_beats_on_both_figures() -> None:
    cheap = _cell("a", Mode.single_shot, 10, "0.01")
    better = _cell("b", Mode.single_shot, 14, "0.20")
    dominated = _cell("c", Mode.single_shot, 9, "0.05")  # dearer than `a` and worse
    tie = _cell("d", Mode.agentic, 14, "0.20")  # the same figures as `b`: both kept
    worse_same_price = _cell("e", Mode.single_shot, 8, "0.01")
    none = _cell("f", Mode.single_shot, 0, None)
    front = pareto_frontier([dominated, better, cheap, tie, worse_same_price, none])
    assert [c.model for c in front] == ["a", "b", "d"]


def test_scatter_draws_the_frontier_and_names_it() -> None:
    svg = cost_vs_pass_svg(_result(), FOOTER, {"small-model": "Small <Model>"})
    root = ET.fromstring(svg)
    assert root.find(f".//*[@id='{FRONTIER_ID}']") is not None
    desc = root.find(f"{NS}desc").text or ""
    # reference (cheapest), small, big are each on it: no cell is both cheaper and better
    assert "Pareto frontier" in desc and "big-model (agentic)" in desc
    assert "tiny-model" not in desc.split("Pareto frontier")[1].split(".")[0]


def _card_and_results(reference_only: bool = False):
    res = results("2026-07", "2026-07-01", hostile=False, reference_only=reference_only)
    spec = EditionManifest.model_validate(
        manifest("2026-07", "2026-07-01", hostile=False, reference_only=reference_only)
    )
    return res, rate_card(res, spec)


def test_gap_chart_joins_cheapest_and_flagship_with_the_premium() -> None:
    res, card = _card_and_results()
    svg = gap_svg(res, card, FOOTER)
    root = ET.fromstring(svg)
    assert root.get("role") == "img"
    title = root.find(f"{NS}title").text or ""
    desc = root.find(f"{NS}desc").text or ""
    assert "cheapest qualifying rate vs flagship rate" in title
    assert root.find(".//*[@id='gap-row-0']") is not None  # the joining line
    assert "×10" in svg and "premium ×10" in desc  # labelled with the premium
    assert "Process 1,000 invoices" in desc and "log scale" in svg
    assert "● cheapest qualifying  ◇ flagship  □ reference" in svg  # shapes, not colours
    assert FOOTER in svg


def test_gap_chart_without_a_pair_says_why_and_draws_no_line() -> None:
    res, card = _card_and_results(reference_only=True)
    svg = gap_svg(res, card, FOOTER)
    root = ET.fromstring(svg)
    assert root.find(".//*[@id='gap-row-0']") is None
    assert "no model evaluated" in svg  # the rate card's own word for the line
    assert "reference baseline $" in (root.find(f"{NS}desc").text or "")


def test_sort_keys_are_exact_and_missing_figures_have_none() -> None:
    key = tables.key(Decimal("1.2E-7"), "$120 per billion outcomes")
    assert key.startswith('<span data-sort="0.00000012">')
    assert 'data-sort=""' in tables.key(None, "no successful outcome")
    assert "&#60;b&#62;" in tables.key(1, "<b>")  # shown text stays escaped
    cell = _cell("a", Mode.single_shot, 0, None)
    assert tables.cpo_key(cell) is None and tables.pass_key(cell) == 0.0
    pending = cell.model_copy(update={"pending_judge": 3})
    assert tables.pass_key(pending) is None


def test_table_data_beside_a_table_is_described_by_the_results_schema(tmp_path: Path) -> None:
    res, _ = _card_and_results()
    cells = res.workloads[0].cells
    link = tables.write_cell_table(tmp_path, "w", "cells-2026-07", res, cells, "../../")
    assert 'href="cells-2026-07.csv"' in link and "results-json.schema.json" in link
    rows = json.loads((tmp_path / "w" / "cells-2026-07.json").read_text())
    assert [CellResult.model_validate(r) for r in rows] == cells
    table = list(csv.DictReader(io.StringIO((tmp_path / "w" / "cells-2026-07.csv").read_text())))
    assert [(r["model"], r["mode"]) for r in table] == [(c.model, str(c.mode)) for c in cells]
    assert table[1]["cpo_usd"] == str(cells[1].cpo_usd)


@pytest.mark.parametrize("reference_only", [False, True])
def test_rate_card_data_lists_both_lines_per_job(tmp_path: Path, reference_only: bool) -> None:
    res, _ = _card_and_results(reference_only)
    tables.write_workload_table(tmp_path, "", "ratecard", res, "")
    table = list(csv.DictReader(io.StringIO((tmp_path / "ratecard.csv").read_text())))
    # Both card lines, the by-hand line (here: none recorded), then the reference baseline's
    # row (shown for scale, never ranked).
    assert [r["line"] for r in table] == ["cheapest_qualifying", "flagship", "by_hand", "reference"]
    assert table[2]["reason"] == "no manual arm recorded" and table[2]["cpo_usd"] == ""
    if not reference_only:
        cheap = res.workloads[0].cheapest_qualifying
        assert table[0]["model"] == "small" and Decimal(table[0]["cpo_usd"]) == cheap.cpo_usd
    else:
        assert table[0]["model"] == ""


def _render(root: Path, docs: Path, fixtures: dict, cache_dir: Path):
    from ledgerrate.publish.cache import BuildCache
    from ledgerrate.publish.render import render_into

    cache = BuildCache.open(cache_dir)
    render_into(root, docs, results_fn=lambda p: fixtures[Path(p).name], cache=cache)
    return cache


def test_drill_down_pages_escape_records_and_come_from_the_cache(tmp_path: Path) -> None:
    from tests.publish.factory import HOSTILE, PAYLOADS, WL, write_edition

    root = tmp_path / "editions"
    fixtures = {
        "2026-04": write_edition(root, "2026-04", "2026-04-01", reference_only=True),
        "2026-07": write_edition(root, "2026-07", "2026-07-01", hostile=True),
    }
    first = _render(root, tmp_path / "docs1", fixtures, tmp_path / "cache")
    cells = sum(len(w.cells) for r in fixtures.values() for w in r.workloads)
    assert first.misses.get("drilldown") == cells
    page = (tmp_path / "docs1" / f"runs/2026-07/{WL}/small/single-shot/index.html").read_text()
    assert page.startswith("<!doctype html>\n<html lang=en>")
    # Every link is relative to the page's base, its workload's items page two folders up.
    assert "\n<base href=../../>\n" in page
    # The model's name is hostile: shown as text, never live. The page's one script is ours,
    # from the site; the hostile answer is not on the page at all (the script reads the log).
    assert "Small &lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert HOSTILE not in page and "<img src" not in page and len(PAYLOADS) > 1
    assert page.count("<script") == 1
    assert "<script src=../../../javascripts/drilldown.js defer></script>" in page
    # Every run's row: its anchor, its outcome and checks passed, and the log the script reads.
    assert page.count("<tr id=run-") == 2
    assert "<td>pass<td>1 of 1<td>" in page
    log = f"../../../data/2026-07/runs/{WL}/small/single-shot.jsonl.gz"
    assert f"<a href={log} download>run log</a>" in page
    # Seeds not released: no ground truth on the items page the runs link to (to the item, as
    # these runs' requests are not chat bodies; tests/publish/test_drilldown_items.py follows a
    # prompt's link).
    assert "<th><a href=#item-item-00>" in page
    items = (tmp_path / "docs1" / f"runs/2026-07/{WL}/index.md").read_text()
    assert "withheld until the seed" in items
    # The workload page's results table (HTML: publish/html_table.py) links each cell to its runs.
    workload = (tmp_path / "docs1" / f"workloads/{WL}/index.md").read_text()
    assert f'<a href="../../runs/2026-07/{WL}/small/single-shot/">' in workload
    # Nothing changed: every page comes from the cache, byte for byte.
    again = _render(root, tmp_path / "docs2", fixtures, tmp_path / "cache")
    assert again.hits.get("drilldown") == cells and not again.misses.get("drilldown")
    assert again.hits.get("drilldown-items") == 2 and not again.misses.get("drilldown-items")
    assert (
        tmp_path / "docs2" / f"runs/2026-07/{WL}/small/single-shot/index.html"
    ).read_text() == page
