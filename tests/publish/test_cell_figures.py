"""A cell's figures are made once a build and are the same as made afresh, errata links included."""

from __future__ import annotations

from pathlib import Path

from ledgerrate.publish.cell_figures import CellFigures, cell_figures
from ledgerrate.publish.load import load_edition

EDITION = Path(__file__).resolve().parents[2] / "editions" / "2026-11"


def test_remembered_figures_are_the_figures_and_follow_root_and_edition() -> None:
    edition, again = load_edition(EDITION), load_edition(EDITION)
    cells = [c for w in edition.results.workloads for c in w.cells]
    figures = CellFigures()
    corrected = 0
    for cell in cells:
        made = figures(edition, cell, "../../")
        assert made == cell_figures(edition, cell, "../../")
        assert figures(edition, cell, "../../") is made  # made once, not three times
        if "errata/" in made["pass_rate"]:
            corrected += 1
            # A correction's link depends on the page's depth: another root, other figures.
            assert figures(edition, cell, "../") == cell_figures(edition, cell, "../") != made
    assert corrected  # the bundled edition's errata correct some pass rates
    # A second load of the same edition is another object: its figures are its own entries.
    other = again.results.workloads[0].cells[0]
    assert figures(again, other, "../../") is not figures(edition, cells[0], "../../")
