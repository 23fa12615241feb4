"""Charts as SVG text: cost vs pass rate per workload (with its Pareto frontier), the gap
between the cheapest qualifying rate and the flagship rate across an edition's jobs, and CPO
trendlines across editions.

Every chart must be readable without colour (marker shapes and text labels carry the meaning),
carry alt text (`<title>` and `<desc>`), and the standard footer (standard §6). Output is
deterministic for the same input so that rebuilding a site changes no bytes.

Drawing is most of a warm build's own work, so inside `cached_in(cache)` each chart is a product
of the build cache, keyed by the digest of its arguments and of the charts' code
(`publish/product_code.py`: their modules and library versions, matplotlib's among them): an
unchanged chart is read back instead of drawn.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import itertools
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar
from xml.sax.saxutils import escape

from ledgerrate.core.usd import job_and_item
from ledgerrate.publish.cache import BuildCache, key_of
from ledgerrate.publish.card import RateCard, premium_text
from ledgerrate.publish.frontier import pareto_frontier
from ledgerrate.publish.withdrawals import is_withdrawn
from ledgerrate.schema import CellResult, EditionResults, TrendPoint, WorkloadResult

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

QUALITY_BAR = 0.80
# The SVG element ids of the frontier line and the gap chart's rows: the browser test and the
# page checks find them by these.
FRONTIER_ID = "pareto-frontier"
GAP_ROW_ID = "gap-row"
# Shapes, not colours, tell modes apart; the reference baseline gets its own shape.
# "by-hand": the manual arm (ARCHITECTURE.md §12), a diamond so it reads without colour.
MARKERS = {"single-shot": "o", "agentic": "^", "reference": "s", "by-hand": "D"}
_RC: Any = {
    "svg.fonttype": "none",  # text stays text: searchable, selectable, small
    "svg.hashsalt": "ledgerrate",  # stable element ids
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


_CACHE: ContextVar[BuildCache | None] = ContextVar("chart_cache", default=None)
_Draw = TypeVar("_Draw", bound=Callable[..., str])


@contextmanager
def cached_in(cache: BuildCache) -> Iterator[None]:
    """Charts drawn inside come from `cache` when their inputs are unchanged."""
    token = _CACHE.set(cache)
    try:
        yield
    finally:
        _CACHE.reset(token)


def _as_input(value: Any) -> Any:
    # Dataclasses (the rate card) spelled out field by field with their type; pydantic models,
    # Decimals and dates are canonicalised by `key_of` itself; anything else it refuses.
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _as_input(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"dataclass": type(value).__qualname__, "fields": fields}
    if isinstance(value, (list, tuple)):
        return [_as_input(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_input(item) for key, item in value.items()}
    return value


def _cached(draw: _Draw) -> _Draw:
    @functools.wraps(draw)
    def drawn(*args: Any, **kwargs: Any) -> str:
        cache = _CACHE.get()
        if cache is None:
            return draw(*args, **kwargs)
        key = key_of("chart", draw.__name__, cache.code("chart"), _as_input([args, kwargs]))
        made = cache.product("chart", key, lambda: draw(*args, **kwargs).encode("utf-8"))
        return made.decode("utf-8")

    return drawn  # type: ignore[return-value]


def _pyplot() -> Any:
    # Imported when a chart is drawn, not with the module: a build whose charts all come from
    # the cache never loads matplotlib.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot

    return matplotlib.pyplot


def _to_svg(fig: plt.Figure, title: str, desc: str) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    _pyplot().close(fig)
    svg = buffer.getvalue()
    # Drop the XML prolog and DOCTYPE so the SVG can be inlined in HTML.
    svg = svg[svg.index("<svg") :]
    accessible = (
        f'<svg role="img" aria-labelledby="chart-title chart-desc"'
        f"{svg[4 : svg.index('>')]}>"
        f'<title id="chart-title">{escape(title)}</title>'
        f'<desc id="chart-desc">{escape(desc)}</desc>'
    )
    return accessible + svg[svg.index(">") + 1 :]


def _withdrawn(cell: CellResult) -> bool:
    return is_withdrawn(cell, "pass_rate") or is_withdrawn(cell, "cpo_usd")


def _cell_label(cell: CellResult, names: dict[str, str]) -> str:
    return f"{names.get(cell.model, cell.model)} ({cell.mode})"


@_cached
def cost_vs_pass_svg(
    result: WorkloadResult, footer: str, model_names: dict[str, str] | None = None
) -> str:
    """Pass rate (x, with its 95% interval) against CPO (y, log scale) for every cell.

    Cells with no successful outcome have no CPO and are listed under the plot instead of being
    drawn at a made-up height; void cells are left out and named.
    """
    names = model_names or {}
    withdrawn = [c for c in result.cells if not c.void and _withdrawn(c)]
    cells = [
        c for c in result.cells if not c.void and c.pass_rate is not None and c not in withdrawn
    ]
    priced = [c for c in cells if c.cpo_usd is not None]
    unpriced = [c for c in cells if c.cpo_usd is None]
    cheapest = result.cheapest_qualifying

    plt = _pyplot()
    with plt.rc_context(_RC):
        fig, ax = plt.subplots(figsize=(7.2, 4.4))
        for cell in priced:
            kind = "reference" if cell.is_reference else cell.mode.value
            x = cell.pass_rate or 0.0
            y = float(cell.cpo_usd or 0)
            ci = cell.pass_rate_ci
            if ci is not None and ci.lo is not None and ci.hi is not None:
                ax.errorbar(
                    x,
                    y,
                    xerr=[[x - float(ci.lo)], [float(ci.hi) - x]],
                    fmt="none",
                    ecolor="0.55",
                    elinewidth=1,
                    capsize=3,
                )
            ax.scatter(
                [x],
                [y],
                marker=MARKERS[kind],
                s=46,
                facecolor="white",
                edgecolor="black",
                linewidth=1.2,
                zorder=3,
            )
            # Labels go left of points near the right edge so they are never clipped.
            left = x > 0.7
            ax.annotate(
                _cell_label(cell, names) + (" — reference" if cell.is_reference else ""),
                (x, y),
                textcoords="offset points",
                xytext=(-6 if left else 6, 5),
                ha="right" if left else "left",
                fontsize=7.5,
            )
            is_cheapest = (
                cheapest is not None
                and cheapest.model == cell.model
                and cheapest.mode == cell.mode
                and not cell.is_reference
            )
            if is_cheapest:
                ax.scatter([x], [y], marker="*", s=240, facecolor="black", zorder=4)
                ax.annotate(
                    "cheapest qualifying",
                    (x, y),
                    textcoords="offset points",
                    xytext=(-8 if left else 8, -12),
                    ha="right" if left else "left",
                    fontsize=7.5,
                    fontweight="bold",
                )
        frontier = pareto_frontier(priced)
        if frontier:
            # Drawn in pass-rate order: the frontier climbs from the cheapest cell to the best.
            line = ax.plot(
                [float(c.pass_rate or 0) for c in frontier],
                [float(c.cpo_usd or 0) for c in frontier],
                linestyle=(0, (4, 2)),
                color="0.35",
                linewidth=1.2,
                marker="" if len(frontier) > 1 else "D",
                markersize=9,
                markerfacecolor="none",
                zorder=2,
            )[0]
            line.set_gid(FRONTIER_ID)
        ax.axvline(QUALITY_BAR, color="black", linestyle="--", linewidth=1)
        ax.text(
            QUALITY_BAR,
            0.01,
            " quality bar 0.80",
            transform=ax.get_xaxis_transform(),
            va="bottom",
            fontsize=7.5,
        )
        ax.set_xlim(-0.03, 1.05)
        if priced and all(float(c.cpo_usd or 0) > 0 for c in priced):
            # CPOs span orders of magnitude (a baseline's fraction of a cent beside a flagship).
            ax.set_yscale("log")
            ax.margins(y=0.2)
        elif priced:
            ax.margins(y=0.2)
        else:
            ax.set_yticks([])
            empty = (
                "withdrawn by an erratum: no figure to show"
                if withdrawn and not cells
                else "no cell had a successful outcome"
            )
            ax.text(0.5, 0.5, empty, ha="center", transform=ax.transAxes)
        sizes = " or ".join(str(n) for n in sorted({c.n for c in result.cells})) or "0"
        ax.set_xlabel(f"pass rate (95% Wilson interval), n = {sizes} per cell: a small sample")
        ax.set_ylabel(
            "cost per successful outcome, USD"
            + (" (log scale)" if ax.get_yscale() == "log" else "")
        )
        ax.set_title(f"{result.workload}: cost vs pass rate", fontsize=10, loc="left")
        notes = []
        if unpriced:
            notes.append(
                "no successful outcome: " + "; ".join(_cell_label(c, names) for c in unpriced)
            )
        if withdrawn:
            notes.append(
                "withdrawn (see errata), not shown: "
                + "; ".join(_cell_label(c, names) for c in withdrawn)
            )
        void = [c for c in result.cells if c.void]
        if void:
            notes.append("void, not shown: " + "; ".join(_cell_label(c, names) for c in void))
        notes.append(
            "markers: ○ single-shot  △ agentic  □ reference baseline  ★ cheapest qualifying;"
            " dashed line (◇ when a single cell): Pareto frontier, no cell both cheaper and better"
        )
        fig.text(0.01, 0.01, "\n".join([*notes, footer]), fontsize=7, va="bottom")
        fig.subplots_adjust(bottom=0.16 + 0.035 * len(notes), left=0.15, right=0.97, top=0.9)

        desc_points = "; ".join(
            f"{_cell_label(c, names)}: pass rate {c.pass_rate:.2f}, CPO "
            + (
                job_and_item(c.cpo_usd, result.volume)
                if c.cpo_usd is not None
                else "none (no successful outcome)"
            )
            for c in cells
        )
        desc = (
            f"Scatter of cost per successful outcome against pass rate for {result.workload}, "
            f"with the 0.80 quality bar. {desc_points or 'No graded cells.'}"
            + (
                " Withdrawn by an erratum: "
                + "; ".join(_cell_label(c, names) for c in withdrawn)
                + "."
                if withdrawn
                else ""
            )
            + (
                " Pareto frontier (no drawn cell both cheaper and better, reference baselines "
                "included): " + "; ".join(_cell_label(c, names) for c in frontier) + "."
                if frontier
                else " No cell has a CPO, so there is no Pareto frontier."
            )
            + (
                f" Cheapest qualifying: {cheapest.model_name} ({cheapest.mode})."
                if cheapest
                else " No qualifying model."
            )
        )
        return _to_svg(fig, f"{result.workload}: cost vs pass rate", desc)


def _version(workload_id: str) -> int:
    match = re.search(r"\.v(\d+)$", workload_id)
    return int(match.group(1)) if match else 0


@_cached
def trendline_svg(points: list[TrendPoint], workload_base: str, footer: str) -> str:
    """CPO per edition for every (model, mode), broken and annotated at each version bump.

    Scores are never compared across workload versions (standard §7): each version gets its
    own line segment, and nothing connects the last point of v1 to the first of v2.
    """
    series: dict[tuple[str, str, int], list[TrendPoint]] = defaultdict(list)
    for point in points:
        series[(point.model, point.mode.value, _version(point.workload))].append(point)
    editions = sorted({(p.date, p.edition) for p in points})
    x_of = {edition: index for index, (_date, edition) in enumerate(editions)}

    plt = _pyplot()
    with plt.rc_context(_RC):
        fig, ax = plt.subplots(figsize=(7.2, 3.8))
        linestyles = ["-", "--", ":", "-."]
        for index, ((model, mode, version), pts) in enumerate(sorted(series.items())):
            pts = sorted(pts, key=lambda p: p.date)
            xs = [x_of[p.edition] for p in pts if p.cpo_usd is not None]
            ys = [float(p.cpo_usd) for p in pts if p.cpo_usd is not None]
            if not xs:
                continue
            ax.plot(
                xs,
                ys,
                marker=MARKERS.get(mode, "o"),
                linestyle=linestyles[index % 4],
                color="black",
                markerfacecolor="white",
                linewidth=1,
            )
            ax.annotate(
                f"{model} ({mode}) v{version}",
                (xs[-1], ys[-1]),
                textcoords="offset points",
                xytext=(5, 4),
                fontsize=7.5,
            )
        bumps = []
        by_edition = defaultdict(set)
        for point in points:
            by_edition[point.edition].add(_version(point.workload))
        ordered = [edition for _date, edition in editions]
        for before, after in itertools.pairwise(ordered):
            old, new = max(by_edition[before]), max(by_edition[after])
            if new != old:
                x = (x_of[before] + x_of[after]) / 2
                ax.axvline(x, color="black", linewidth=1.5, linestyle=(0, (1, 1)))
                # At the foot of the break line, clear of the series labels near the top.
                ax.text(
                    x,
                    0.02,
                    f" v{old} → v{new}: trendline restarts",
                    transform=ax.get_xaxis_transform(),
                    va="bottom",
                    fontsize=7.5,
                )
                bumps.append(f"{before} to {after}: v{old} to v{new}")
        ax.set_xticks(range(len(editions)), [edition for _date, edition in editions])
        ax.set_xlim(-0.5, max(len(editions) - 0.5, 0.5))
        priced = [p.cpo_usd for p in points if p.cpo_usd is not None]
        if priced and all(value > 0 for value in priced):
            ax.set_yscale("log")
        ax.margins(y=0.25)
        ax.set_ylabel("CPO, USD" + (" (log scale)" if ax.get_yscale() == "log" else ""))
        ax.set_xlabel("edition")
        ax.set_title(f"{workload_base}: CPO across editions", fontsize=10, loc="left")
        fig.text(0.01, 0.01, footer, fontsize=7, va="bottom")
        fig.subplots_adjust(bottom=0.2, left=0.16, right=0.8, top=0.88)
        desc = f"CPO of each model and mode of {workload_base} per edition. " + (
            "The line breaks at each workload-version bump (" + "; ".join(bumps) + ")."
            if bumps
            else "No version bump in this range."
        )
        return _to_svg(fig, f"{workload_base}: CPO across editions", desc)


def _rate(line: Any, volume: int) -> Decimal | None:
    return None if line is None else line.cpo_usd * volume


def _job_and_item(line: Any, volume: int) -> str | None:
    """A rate line as the card reads it, per job and per item; None for no line."""
    return None if line is None else job_and_item(line.cpo_usd, volume)


# How far above its row a gap-chart row's words sit, in rows.
NOTE_OFFSET = 0.32


@_cached
def gap_svg(results: EditionResults, card: RateCard, footer: str) -> str:
    """Per job, the cheapest qualifying rate (●) and the flagship rate (◆) on a log scale,
    joined by a line and labelled with the premium: a dumbbell per rate-card line. The reference
    baseline's rate (□) is drawn for scale and never joined. A job missing either rate says why
    in words on its row, as the rate card does."""
    rows = list(zip(results.workloads, card.lines, strict=True))
    height = 1.3 + 0.42 * max(len(rows), 1)
    plt = _pyplot()
    with plt.rc_context(_RC):
        fig, ax = plt.subplots(figsize=(7.2, height))
        described = []
        values = [
            v
            for w, _ in rows
            for v in (
                _rate(w.cheapest_qualifying, w.volume),
                _rate(w.flagship, w.volume),
                _rate(w.reference, w.volume),
            )
            if v is not None and v > 0
        ]
        log = bool(values)
        for index, (workload, line) in enumerate(rows):
            y = len(rows) - 1 - index
            low = _rate(workload.cheapest_qualifying, workload.volume)
            high = _rate(workload.flagship, workload.volume)
            ref = _rate(workload.reference, workload.volume)
            words = []
            if low is not None and high is not None and low > 0 and high > 0:
                (joined,) = ax.plot(
                    [float(low), float(high)], [y, y], color="black", linewidth=1.6, zorder=2
                )
                joined.set_gid(f"{GAP_ROW_ID}-{index}")
                premium = premium_text(workload.frontier_premium) or "premium not defined"
                ax.annotate(
                    premium,
                    (float(max(low, high)), y),
                    textcoords="offset points",
                    xytext=(8, -3),
                    fontsize=8,
                    fontweight="bold",
                )
            if low is not None and low > 0:
                ax.scatter([float(low)], [y], marker="o", s=42, color="black", zorder=3)
            else:
                words.append(f"cheapest qualifying: {line.rate_status or 'none'}")
            if high is not None and high > 0:
                ax.scatter(
                    [float(high)],
                    [y],
                    marker="D",
                    s=38,
                    facecolor="white",
                    edgecolor="black",
                    zorder=3,
                )
            else:
                words.append(f"flagship: {line.flagship_status or 'none'}")
            if ref is not None and ref > 0:
                ax.scatter(
                    [float(ref)],
                    [y],
                    marker="s",
                    s=30,
                    facecolor="white",
                    edgecolor="0.4",
                    zorder=3,
                )
            if words:
                # Above the row's own markers, not over them (the row is 1 unit, about 30 pt;
                # a marker a few points): the words and the reference's square both stay legible.
                ax.text(
                    0.99,
                    y + NOTE_OFFSET,
                    "; ".join(words),
                    transform=ax.get_yaxis_transform(),
                    ha="right",
                    va="center",
                    fontsize=7,
                    style="italic",
                )
            described.append(
                f"{workload.unit}: cheapest qualifying "
                + (
                    _job_and_item(workload.cheapest_qualifying, workload.volume)
                    or f"none ({line.rate_status})"
                )
                + ", flagship "
                + (
                    _job_and_item(workload.flagship, workload.volume)
                    or f"none ({line.flagship_status})"
                )
                + (f", premium {line.premium}" if line.premium and low and high else "")
                + (
                    f", reference baseline {_job_and_item(workload.reference, workload.volume)}"
                    if ref is not None
                    else ""
                )
            )
        ax.set_yticks(range(len(rows)), [line.job for _, line in reversed(rows)], fontsize=7.5)
        ax.set_ylim(-0.7, len(rows) - 0.3)
        if log:
            ax.set_xscale("log")
            ax.margins(x=0.25)
        else:
            ax.set_xticks([])
        ax.set_xlabel("rate per job unit, USD" + (" (log scale)" if log else ": no rate to draw"))
        title = f"Edition {results.edition}: cheapest qualifying rate vs flagship rate per job"
        ax.set_title(title, fontsize=10, loc="left")
        fig.text(
            0.01,
            0.01,
            "markers: ● cheapest qualifying  ◇ flagship  □ reference baseline (for scale, never "
            "ranked); a line joins the two rates, labelled with the premium\n" + footer,
            fontsize=7,
            va="bottom",
        )
        fig.subplots_adjust(bottom=0.55 / height + 0.08, left=0.3, right=0.9, top=1 - 0.45 / height)
        desc = (
            "Dumbbell chart, one row per rate-card job, rates on a log scale. "
            + ("; ".join(described) or "No jobs.")
            + "."
        )
        return _to_svg(fig, title, desc)
