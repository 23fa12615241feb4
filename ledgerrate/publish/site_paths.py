"""The site's top-level paths, in one list (ARCHITECTURE.md §7).

The docs tree mkdocs builds is the hand-written pages (`site/pages/`) with the generated ones
written over them. `pages.py` writes the generated paths named here, `nav.py` orders the
navigation's sections by `SECTIONS`, and `render.py` refuses a hand-written page under any of
`GENERATED`, which would otherwise be overwritten without a word. A test builds a small site and
checks that this list is exactly what the build writes at the top of the docs tree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from ledgerrate.core.layout import INDEX_NAME
from ledgerrate.publish.assets import FONT_DIR

HOME: Final = "index.md"
ERRATA_FEED: Final = "errata.xml"
EDITIONS: Final = "editions"
WORKLOADS: Final = "workloads"
PRIMITIVES: Final = "primitives"
MODELS: Final = "models"
COMPARE: Final = "compare"
METHODOLOGY: Final = "methodology"  # hand-written; the build only appends seed releases to it
DATA: Final = "data"
ERRATA: Final = "errata"
RUNS: Final = "runs"  # per-cell drill-downs, linked from the results tables, not the navigation
# The home page's gap chart and its card's CSV/JSON, named after the edition it shows so that a
# reader's saved copy says which one (`explore.card_extras`, `tables.write_workload_table`).
HOME_CHART: Final = "gap-{edition}"
HOME_CARD_DATA: Final = "ratecard-{edition}"

# The navigation's sections, in the order a reader needs them: (folder, title).
SECTIONS: Final = (
    (EDITIONS, "Editions"),
    (WORKLOADS, "Workloads"),
    (PRIMITIVES, "Primitives"),
    (MODELS, "Models"),
    (COMPARE, "Compare"),
    (METHODOLOGY, "Methodology"),
    (DATA, "Data"),
    (ERRATA, "Errata"),
)

# Every path the build writes at the top of the docs tree (glob patterns where a name carries an
# edition id), relative to the docs root.
GENERATED: Final = (
    HOME,
    ERRATA_FEED,
    INDEX_NAME,  # the publication chain, for `verify --expect` (`published.copy_index`)
    *(folder for folder, _ in SECTIONS if folder != METHODOLOGY),
    RUNS,
    FONT_DIR,  # served from the site itself (`assets.write_fonts`)
    HOME_CHART.format(edition="*") + ".svg",
    HOME_CARD_DATA.format(edition="*") + ".csv",
    HOME_CARD_DATA.format(edition="*") + ".json",
)


def clashes(site_src: Path) -> list[str]:
    """The hand-written files and folders under `site_src` at a generated path, sorted."""
    found = {p.relative_to(site_src).as_posix() for g in GENERATED for p in site_src.glob(g)}
    return sorted(found)


def clash_message(site_src: Path, clash: list[str]) -> str:
    """One line naming the hand-written paths the build would overwrite, and the fix."""
    return (
        f"{site_src}: {', '.join(clash)}: the build generates "
        f"{'this path' if len(clash) == 1 else 'these paths'} and would overwrite the "
        f"hand-written {'page' if len(clash) == 1 else 'pages'}; move or rename "
        f"{'it' if len(clash) == 1 else 'them'} (generated: {', '.join(GENERATED)})"
    )
