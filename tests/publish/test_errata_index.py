"""The errata index lists each edition's errata together, in number order (-9 before -10),
and says which are disclosures; the sidebar gives errata, primitives and workloads one entry."""

from __future__ import annotations

import html
import re
from pathlib import Path

from ledgerrate.core.io import load_model
from ledgerrate.publish.engine.nav import site_nav
from ledgerrate.publish.load import load_edition
from ledgerrate.publish.pages import make_env, render_errata
from ledgerrate.publish.render import TEMPLATES
from ledgerrate.publish.site import build_site_model
from ledgerrate.schema import EditionResults

BUNDLED = Path(__file__).resolve().parents[2] / "editions"


def test_errata_index_groups_by_edition_in_number_order(tmp_path: Path) -> None:
    editions = [
        load_edition(BUNDLED / e, lambda r: load_model(EditionResults, r / "results.json"))
        for e in ("2026-11", "2026-11-b", "2026-12")
    ]
    docs = tmp_path / "docs"
    render_errata(make_env(TEMPLATES), build_site_model(editions, {"1.0"}), docs)
    page = html.unescape((docs / "errata" / "index.md").read_text("utf-8"))
    headings = re.findall(r"^## Edition (\S+)$", page, re.MULTILINE)
    assert headings == ["2026-12", "2026-11-b", "2026-11"]
    section = page[page.index("## Edition 2026-11-b") : page.index("## Edition 2026-11\n")]
    ids = re.findall(r"\[erratum ([0-9-]+)\]", section)
    assert ids == ["2026-12-01-3", "2026-12-01-7", "2026-12-01-8", "2026-12-01-9", "2026-12-01-11"]
    line = next(x for x in page.splitlines() if "[erratum 2026-12-02-1]" in x)
    assert line.endswith("a disclosure: no figure changed")
    withdrawal = next(x for x in page.splitlines() if "[erratum 2026-12-01-12]" in x)
    assert "disclosure" not in withdrawal
    # The sidebar gives the section one entry, the index page.
    (docs / "index.md").write_text("# Rate card\n", "utf-8")
    nav, _ = site_nav(docs)
    assert {"Errata": "errata/index.md"} in nav


def test_the_compare_section_has_its_own_page_listing_every_edition(tmp_path: Path) -> None:
    from ledgerrate.publish.compare import render_compare

    editions = [
        load_edition(BUNDLED / e, lambda r: load_model(EditionResults, r / "results.json"))
        for e in ("2026-11", "2026-11-b", "2026-12")
    ]
    docs = tmp_path / "docs"
    render_compare(make_env(TEMPLATES), editions, docs)
    page = html.unescape((docs / "compare" / "index.md").read_text("utf-8"))
    found = re.findall(r"\[Edition (\S+)\]\((\S+)\)", page)
    assert found == [(e, f"{e}/index.md") for e in ("2026-12", "2026-11-b", "2026-11")]


def test_the_compare_table_says_whether_each_cell_qualifies_and_its_n(tmp_path: Path) -> None:
    """A 5/5 reference cell reads 1.00 and does not qualify at n = 5: the table says so."""
    from ledgerrate.publish.compare import rows

    december = load_edition(
        BUNDLED / "2026-12", lambda r: load_model(EditionResults, r / "results.json")
    )
    models = ["reference", "smollm2"]
    env = make_env(TEMPLATES)
    table = env.get_template("_compare.md.j2").module.table(  # type: ignore[attr-defined]
        rows(december, models), models, {}, "../../", "2026-12"
    )
    text = html.unescape(str(table))
    assert text.count("qualifies (n)") == 2
    assert "no: n = 5, short of the standard's 15 (n = 5)" in text


def test_the_workloads_index_follows_the_rate_cards_order(tmp_path: Path) -> None:
    from ledgerrate.publish.pages import render_indexes

    editions = [
        load_edition(BUNDLED / e, lambda r: load_model(EditionResults, r / "results.json"))
        for e in ("2026-11", "2026-11-b", "2026-12")
    ]
    docs = tmp_path / "docs"
    render_indexes(make_env(TEMPLATES), build_site_model(editions, {"1.0"}), docs)
    page = html.unescape((docs / "workloads" / "index.md").read_text("utf-8"))
    listed = re.findall(r"\(([a-z0-9.-]+)\)\]\(", page)
    card = [w.workload for w in editions[-1].results.workloads]
    # The newest card's order, the superseded invoice version beside its successor.
    assert listed == [card[0].replace("v2", "v1"), *card]
