"""What the rate card pages add for exploring an edition: the gap chart, the card's data
files and the cost-at-my-volume calculator's figures. Pure apart from writing those files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from ledgerrate.core.io import atomic_write_text
from ledgerrate.publish import charts, site_paths, tables
from ledgerrate.publish.cache import BuildCache
from ledgerrate.publish.card import RateCard
from ledgerrate.publish.load import Edition
from ledgerrate.publish.safe import md_text, segment
from ledgerrate.publish.site import footer
from ledgerrate.schema import RateLine


def vendors(edition: Edition) -> dict[str, str]:
    """Model id → its vendor (the edition's provider family)."""
    return {m.id: str(m.family) for m in edition.manifest.models}


@dataclass(frozen=True)
class CalcLine:
    """One job of the calculator: the published CPOs it multiplies by the reader's volume."""

    workload: str
    job: str
    volume: int
    cheapest: RateLine | None
    cheapest_status: str | None
    flagship: RateLine | None
    flagship_status: str | None
    reference: RateLine | None


def calculator_lines(edition: Edition, card: RateCard) -> list[CalcLine]:
    found = []
    for workload, line in zip(edition.results.workloads, card.lines, strict=True):
        found.append(
            CalcLine(
                workload=workload.workload,
                job=workload.unit,
                volume=workload.volume,
                cheapest=workload.cheapest_qualifying,
                cheapest_status=line.rate_status,
                flagship=workload.flagship,
                flagship_status=line.flagship_status,
                reference=workload.reference,
            )
        )
    return found


def _svg_img(docs: Path, rel_dir: str, name: str, svg: str, title: str) -> Markup:
    atomic_write_text(docs / rel_dir / name if rel_dir else docs / name, svg)
    return Markup(f'<img class="lr-chart lr-gap" src="{name}" alt="{md_text(title)}">')


def card_extras(
    edition: Edition,
    card: RateCard,
    docs: Path,
    root: str,
    stem: str,
    *,
    rel_dir: str = "",
    cache: BuildCache | None = None,
) -> dict[str, Any]:
    """The gap chart, the card's CSV/JSON and the calculator's lines, for a page at `rel_dir`
    (`""` for the home page) whose way back to the site root is `root`."""
    svg = charts.gap_svg(edition.results, card, footer(edition))
    title = f"Edition {edition.id}: cheapest qualifying rate vs flagship rate per job"
    home_stem = site_paths.HOME_CARD_DATA.format(edition=segment(edition.id))
    data_stem = "ratecard" if rel_dir else home_stem
    return {
        "gap_chart": _svg_img(docs, rel_dir, f"{stem}.svg", svg, title),
        "card_table": tables.write_workload_table(
            docs, rel_dir, data_stem, edition.results, root, cache, card
        ),
        "calc_lines": calculator_lines(edition, card),
        "calc_source": {
            "results": f"{root}data/{segment(edition.id)}/results.json",
            "corrected": f"{root}data/{segment(edition.id)}/results-corrected.json",
            "data": f"{data_stem}.json",
        },
    }
