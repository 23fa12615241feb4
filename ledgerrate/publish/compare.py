"""Models side by side: per workload and mode, each model's pass rate and CPO with their
intervals, cost per attempt and agentic multiplier, and the paired routing verdict where the
metrics stage computed one between the two (cheapest qualifying against the flagship, on the
same items).

Static pages for every cheapest-qualifying-vs-flagship pair of an edition, and one page per
edition with a picker (`javascripts/compare.js`) that builds the same table in the browser from
the edition's published `results-corrected.json` (the figures as shown: errata applied).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment

from ledgerrate.core.io import atomic_write_text
from ledgerrate.publish.load import Edition
from ledgerrate.publish.safe import md_text, segment
from ledgerrate.publish.site import footer
from ledgerrate.schema import CellResult, RoutingVerdict, WorkloadResult


@dataclass(frozen=True)
class Row:
    workload: WorkloadResult
    mode: str
    cells: list[CellResult | None]  # one per compared model, None when it did not run
    multipliers: list[float | None]
    verdict: RoutingVerdict | None  # only when this pair is the one the verdict compares


def pairs(edition: Edition) -> list[tuple[str, str]]:
    """(cheapest qualifying, flagship) model pairs over the edition's workloads, in order."""
    found: list[tuple[str, str]] = []
    for w in edition.results.workloads:
        low, high = w.cheapest_qualifying, w.flagship
        if low and high and low.model != high.model and (low.model, high.model) not in found:
            found.append((low.model, high.model))
    return found


def _verdict(w: WorkloadResult, models: list[str], mode: str) -> RoutingVerdict | None:
    r = w.routing
    if r.challenger is None or r.incumbent is None:
        return None
    same = {r.challenger, r.incumbent} == set(models) and len(models) == 2
    modes = {str(r.challenger_mode), str(r.incumbent_mode)}
    return r if same and mode in modes else None


def rows(edition: Edition, models: list[str]) -> list[Row]:
    found = []
    for w in edition.results.workloads:
        modes = sorted({str(c.mode) for c in w.cells if c.model in models})
        for mode in modes:
            by_model = {c.model: c for c in w.cells if str(c.mode) == mode}
            found.append(
                Row(
                    workload=w,
                    mode=mode,
                    cells=[by_model.get(m) for m in models],
                    multipliers=[w.agentic_multiplier.get(m) for m in models],
                    verdict=_verdict(w, models, mode),
                )
            )
    return found


def _page(env: Environment, ctx: dict[str, Any], docs: Path, rel: str, template: str) -> None:
    atomic_write_text(docs / rel, env.get_template(template).render(ctx).rstrip("\n") + "\n")


def render_compare(env: Environment, editions: list[Edition], docs: Path) -> None:
    """Per edition: the picker page, and one static page per flagship-vs-cheapest pair."""
    for edition in editions:
        names = {m.id: m.name for m in edition.manifest.models}
        base = f"compare/{segment(edition.id)}"
        static = []
        for low, high in pairs(edition):
            slug = f"{segment(low)}.vs.{segment(high)}"
            models = [low, high]
            ctx = {
                "root": "../../../",
                "edition": edition,
                "models": models,
                "names": names,
                "rows": rows(edition, models),
                "footer": footer(edition),
            }
            _page(env, ctx, docs, f"{base}/{slug}/index.md", "compare_pair.md.j2")
            static.append({"slug": slug, "low": low, "high": high})
        ctx = {
            "root": "../../",
            "edition": edition,
            "names": names,
            "static": static,
            "footer": footer(edition),
        }
        _page(env, ctx, docs, f"{base}/index.md", "compare.md.j2")
    if editions:
        # The section's own page: "Compare" in the sidebar opens it, and it lists every
        # edition's comparison, newest first (the sidebar keeps one entry).
        lines = ["# Compare models", "", "Models side by side, per edition (newest first):", ""]
        for edition in reversed(editions):
            lines.append(
                f"- [Edition {md_text(edition.id)}]({segment(edition.id)}/index.md)"
                f" ({md_text(edition.manifest.date.isoformat())})"
            )
        atomic_write_text(docs / "compare" / "index.md", "\n".join(lines) + "\n")
