"""The rate card as data: what the home page and the PDF both print (standard §6).

One line per workload — job · volume · rate (cheapest qualifying, emphasised) · flagship rate ·
premium ×N — then the reference baselines, the quality bar, the disclaimer and the footer. The
figures come from the metrics stage as they are (the frontier premium included); this module
only decides how each one reads, and says in a word why a line has no rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal

from ledgerrate.core.usd import plain
from ledgerrate.metrics.protocol import gap_summary
from ledgerrate.publish import by_hand as by_hand_module
from ledgerrate.publish.by_hand import ByHand
from ledgerrate.publish.erratum_kind import changes_a_figure
from ledgerrate.publish.verdict import Verdict, edition_verdict, withdrawn_by
from ledgerrate.publish.withdrawals import is_withdrawn
from ledgerrate.schema import (
    CellResult,
    EditionManifest,
    EditionResults,
    ErrataFile,
    RateLine,
    WorkloadResult,
)

DISCLAIMER = (
    "These rates are measurements of what the listed models cost to do each job to the stated "
    "quality bar under the LedgerRate methodology, with prices frozen at the start of the "
    "edition window. They are not quotes, offers or guarantees; your own volumes, prompts, "
    "prices and quality needs will give different figures."
)
# Why a line has no rate, in a word; the workload page gives the detail.
NONE_QUALIFIES = "none qualifies"
AWAITING_JUDGE = "awaiting judge"
WITHDRAWN = "withdrawn"
VOID = "void"
NO_MODEL = "no model evaluated"
NO_FLAGSHIP = "no flagship named"
NOT_EVALUATED = "not evaluated"
NO_SUCCESS = "no successful outcome"
# A judged cell at the bar whose judge is not yet checked (standard §5); the condition follows.
JUDGE_UNCHECKED = "judge unchecked"
# What each word means, for the legend under a card: a card lists every word it uses.
LEGEND = {
    NONE_QUALIFIES: "models ran, none reached the bar",
    AWAITING_JUDGE: "the judge's grades are not in; nothing counted yet",
    JUDGE_UNCHECKED: "at the bar, but a condition of the judged-task protocol is unmet (named)",
    WITHDRAWN: "the figure that would give the rate was withdrawn by an erratum",
    VOID: "the job's cells broke a rule of the standard",
    NO_MODEL: "only the reference baseline ran",
    NO_FLAGSHIP: "the edition names no flagship",
    NOT_EVALUATED: "no flagship ran on this job",
    NO_SUCCESS: "ran, passed no item: no cost per success",
}


def footer_text(brand: str, methodology: str, edition: str, date: str) -> str:
    """The standard footer of every card and chart: the edition id tells apart two editions
    of the same date."""
    return f"{brand} · methodology v{methodology} · edition {edition} · {date}"


def premium_text(premium: float | None) -> str | None:
    """A frontier premium as read: ×3.4, ×12, ×1,250 (two significant digits below ten)."""
    if premium is None or not math.isfinite(premium):
        return None
    if premium < 10:
        return f"×{premium:.2g}" if premium < 1 else f"×{premium:.1f}"
    return f"×{premium:,.0f}"


@dataclass(frozen=True)
class Priced:
    """A rate of one model on one job."""

    model: str
    model_name: str
    mode: str
    pass_rate: float
    cpo: Decimal  # cost per successful outcome: what one item costs
    volume: int  # the job's volume: items per job
    below_bar: bool = False
    gap: str | None = None  # the judged-task protocol's missing condition (§5), in a few words

    @property
    def per_job(self) -> str:
        """The job's cost in plain dollars, the unit every card, PDF, CSV and calculator uses."""
        return plain(self.cpo * self.volume)

    @property
    def per_item(self) -> str:
        return plain(self.cpo)


@dataclass(frozen=True)
class CardLine:
    workload: str
    title: str
    job: str
    volume: str
    rate: Priced | None
    rate_status: str | None  # the word shown when there is no rate
    flagship: Priced | None
    flagship_status: str | None
    premium: str | None
    # Cells of this job withdrawn by an erratum: a footnote, never the line's reason unless
    # nothing else was left to qualify. ("SmolLM2 (agentic)", "2026-12-01-12") pairs.
    withdrawn: tuple[tuple[str, str], ...] = ()
    n: int = 15  # the job's registered items per cell: what its pass rates are out of
    # The manual arm (publish/by_hand.py): shown beside the models, never ranked with them.
    by_hand: ByHand | None = None

    @property
    def by_hand_status(self) -> str | None:
        """The word in the by-hand column when it shows no rate."""
        return by_hand_module.NO_MANUAL if self.by_hand is None else self.by_hand.status


@dataclass(frozen=True)
class ShortSample:
    """Jobs registered with a smaller n than the standard's, and the reason, said once."""

    n: int
    reason: str
    workloads: list[str]


def bar_items(bar: float, n: int) -> int:
    return math.ceil(round(bar * n, 9))


@dataclass(frozen=True)
class ErratumRef:
    """An erratum the card cites: its id, title, and whether it changed a figure."""

    id: str
    title: str
    changed: bool


@dataclass(frozen=True)
class ReferenceLine:
    workload: str
    job: str
    pass_rate: str
    status: str | None  # why the line has no rate; None when it has one
    basis: str
    cpo: Decimal | None = None  # None: no rate (`status` says why)
    volume: int = 1

    @property
    def rate(self) -> bool:
        return self.cpo is not None

    @property
    def per_job(self) -> str | None:
        return plain(self.cpo * self.volume) if self.cpo is not None else None

    @property
    def per_item(self) -> str | None:
        return plain(self.cpo) if self.cpo is not None else None


@dataclass(frozen=True)
class Statement:
    """A statement an edition's pages and its PDF card both print: a bold heading and its text,
    both plain (each renderer escapes them its own way)."""

    heading: str
    text: str


def local_model_statement(manifest: EditionManifest) -> Statement | None:
    """What an edition whose only language models run on the operator's machine says on every
    page and on its PDF card; None for any other edition. The one source of its wording."""
    if manifest.reference_only:
        return None
    local = [m.name for m in manifest.models if m.local is not None]
    hosted = [m for m in manifest.models if m.local is None and not m.is_reference]
    if not local or hosted:
        return None
    count = "one real language model" if len(local) == 1 else f"{len(local)} real language models"
    return Statement(
        heading="Reference baselines and a real local model.",
        text=(
            f"Edition {manifest.id} evaluates the deterministic reference solvers beside "
            f"{', '.join(local)}, served on the operator's own machine by llama.cpp: {count}, no "
            "hosted provider. Its cost is measured server time × an assumed instance price, "
            "never a provider's price."
        ),
    )


def self_judging_statement(manifest: EditionManifest, results: EditionResults) -> Statement | None:
    """What an edition whose judge is one of the models it evaluates says on its card, its
    PDF and every workload page: that model graded its own answers on the judged jobs.

    Which jobs are judged comes from the figures (`WorkloadResult.judged`), not from the
    workload catalogue: a build on a warm cache must not import every workload to learn it."""
    if manifest.judge is None:
        return None
    judge = next((m for m in manifest.models if m.id == manifest.judge.model), None)
    if judge is None or judge.is_reference:
        return None
    judged_ids = {w.workload for w in results.workloads if w.judged}
    judged = [w.id for w in manifest.workloads if w.id in judged_ids]
    if not judged:
        return None
    second = "" if manifest.judge.second_model else " No second judge was named."
    return Statement(
        heading="Self-judged.",
        text=(
            f"The judge of the judged jobs ({', '.join(judged)}) is {judge.name}, one of the "
            "models this edition evaluates: it graded its own answers. A judged cell needs a "
            f"second judge and human spot-checks before it can qualify.{second}"
        ),
    )


@dataclass(frozen=True)
class RateCard:
    brand: str
    edition: str
    date: str
    methodology: str
    reference_only: bool
    provisional: bool
    quality_bar: float
    bar_items: int
    n: int
    lines: list[CardLine]
    references: list[ReferenceLine]
    footer: str
    disclaimer: str = DISCLAIMER
    judge_configured: bool = True
    notes: list[str] = field(default_factory=list)
    local_model: Statement | None = None  # the edition's only language models run locally
    self_judged: Statement | None = None  # the judge is one of the models evaluated
    verdict: Verdict | None = None  # what the edition found, said first
    short_samples: list[ShortSample] = field(default_factory=list)
    errata: list[ErratumRef] = field(default_factory=list)
    site_url: str | None = None  # where the site is hosted, when the build was told

    @property
    def edition_url(self) -> str:
        """Where a reader of the printed card finds the edition's pages and evidence."""
        path = f"editions/{self.edition}/"
        return f"{self.site_url.rstrip('/')}/{path}" if self.site_url else path

    @property
    def legend(self) -> list[tuple[str, str]]:
        """Every word this card uses for a missing rate, with its meaning, in LEGEND's order."""
        used = [ln.rate_status for ln in self.lines] + [ln.flagship_status for ln in self.lines]
        used += [r.status for r in self.references]
        words = {u.split(":")[0] for u in used if u}
        found = [(word, meaning) for word, meaning in LEGEND.items() if word in words]
        hand = {ln.by_hand_status for ln in self.lines} - words
        return found + [(w, m) for w, m in by_hand_module.LEGEND.items() if w in hand]

    @property
    def bar_text(self) -> str:
        """How many items the bar asks for, per the n each line was run with (never one n for
        a card whose lines ran different n)."""
        sizes = sorted({line.n for line in self.lines} or {self.n})
        if len(sizes) == 1:
            n = sizes[0]
            items = bar_items(self.quality_bar, n)
            return f"at least {items} of {n} items; small sample: n = {n} items per cell"
        each = ", ".join(
            f"{bar_items(self.quality_bar, n)} of {n} where a job ran n = {n}" for n in sizes
        )
        return f"at least {each}; each line gives its n; small samples"

    @property
    def withdrawals(self) -> list[str]:
        """The errata the card's footnotes name, in order."""
        found: list[str] = []
        for line in self.lines:
            for _, erratum in line.withdrawn:
                if erratum not in found:
                    found.append(erratum)
        return found


def _priced(
    line: RateLine, volume: int, bar: float, qualifying: bool = True, gap: str | None = None
) -> Priced:
    return Priced(
        model=line.model,
        model_name=line.model_name,
        mode=str(line.mode),
        pass_rate=line.pass_rate,
        below_bar=not qualifying or line.pass_rate < bar,
        gap=gap,
        cpo=line.cpo_usd,
        volume=volume,
    )


def _withdrawn(cell: CellResult) -> bool:
    return any(is_withdrawn(cell, f) for f in ("pass_rate", "cpo_usd", "spend_usd"))


def why_no_rate(cells: list[CellResult], bar: float = 0.80) -> str:
    """The word for a set of cells none of which gives a rate: the reason no model qualified.

    A withdrawn cell is the reason only when a qualifying figure was withdrawn, or nothing else
    was left to qualify; otherwise the line gives the remaining cells' reason and names the
    withdrawal in a footnote (a cell withdrawn beside a 0/5 one did not keep the job unrated).
    """
    if not cells:
        return NOT_EVALUATED
    live = [c for c in cells if not c.void]
    if not live:
        return VOID
    kept = [c for c in live if not _withdrawn(c)]
    if not kept or any(c.qualifying for c in kept):
        return WITHDRAWN
    if any(c.pending_judge for c in kept):
        return AWAITING_JUDGE
    # A cell at the bar that fails only the judged-task protocol: say which condition.
    held = [
        gap_summary(c.judge_protocol)
        for c in kept
        if c.pass_rate is not None and c.pass_rate >= bar and gap_summary(c.judge_protocol)
    ]
    if held:
        return f"{JUDGE_UNCHECKED}: {held[0]}"
    return NONE_QUALIFIES


def withdrawn_cells(cells: list[CellResult], names: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """("Model (mode)", erratum) for each withdrawn cell, for the line's footnote."""
    return tuple(
        (f"{names.get(c.model, c.model)} ({c.mode})", erratum)
        for c in cells
        if not c.void
        for erratum in withdrawn_by(c)
    )


def _cell_of(workload: WorkloadResult, line: RateLine) -> CellResult | None:
    return next(
        (c for c in workload.cells if (c.model, c.mode) == (line.model, line.mode) and not c.void),
        None,
    )


def _flagship_qualifies(workload: WorkloadResult, line: RateLine) -> bool:
    cell = _cell_of(workload, line)
    return cell is not None and cell.qualifying


def card_line(
    workload: WorkloadResult,
    flagships: set[str],
    bar: float,
    names: dict[str, str] | None = None,
    n: int = 15,
) -> CardLine:
    models = [c for c in workload.cells if not c.is_reference and not by_hand_module.is_manual(c)]
    cheapest = workload.cheapest_qualifying
    rate = _priced(cheapest, workload.volume, bar) if cheapest else None
    rate_status = None if rate else (why_no_rate(models, bar) if models else NO_MODEL)
    flag_line = workload.flagship
    flag_cell = _cell_of(workload, flag_line) if flag_line else None
    flagship = (
        _priced(
            flag_line,
            workload.volume,
            bar,
            _flagship_qualifies(workload, flag_line),
            gap_summary(flag_cell.judge_protocol) if flag_cell else None,
        )
        if flag_line
        else None
    )
    flagship_status = None
    if flagship is None:
        if not models:
            flagship_status = NO_MODEL
        elif not flagships:
            flagship_status = NO_FLAGSHIP
        else:
            flag_cells = [c for c in models if c.model in flagships]
            # Evaluated with no pass at all is not "not evaluated".
            flagship_status = why_no_rate(flag_cells, bar)
            if flagship_status == NONE_QUALIFIES:
                flagship_status = NO_SUCCESS
    return CardLine(
        workload=workload.workload,
        title=workload.title,
        job=workload.unit,
        volume=f"{workload.volume:,}",
        rate=rate,
        rate_status=rate_status,
        flagship=flagship,
        flagship_status=flagship_status,
        premium=premium_text(workload.frontier_premium),
        withdrawn=withdrawn_cells(models, names or {}),
        n=n,
        by_hand=by_hand_module.by_hand(
            workload, flag_line, flag_line is not None and _flagship_qualifies(workload, flag_line)
        ),
    )


def _reference_pass(cell: CellResult) -> str:
    if _withdrawn(cell):
        return WITHDRAWN
    if cell.pending_judge:
        return f"{AWAITING_JUDGE} — not counted"
    if cell.pass_rate is None:
        return "not graded"
    gap = gap_summary(cell.judge_protocol)
    shown = f"{cell.passes}/{cell.n} = {cell.pass_rate:.2f}"
    return f"{shown} ({JUDGE_UNCHECKED}: {gap})" if gap else shown


def reference_lines(workload: WorkloadResult) -> list[ReferenceLine]:
    found = []
    for cell in workload.cells:
        if not cell.is_reference:
            continue
        ref = workload.reference
        priced = ref is not None and (ref.model, ref.mode) == (cell.model, cell.mode)
        if cell.void:
            status: str | None = VOID
        elif priced:
            status = None
        elif _withdrawn(cell):
            status = WITHDRAWN
        elif cell.pending_judge:
            status = AWAITING_JUDGE
        elif cell.cpo_usd is None:
            status = NO_SUCCESS
        else:
            status = None
        cpo = None
        if priced and ref is not None:
            cpo = ref.cpo_usd
        elif status is None and cell.cpo_usd is not None:
            cpo = cell.cpo_usd
        found.append(
            ReferenceLine(
                workload=workload.workload,
                job=workload.unit,
                pass_rate=_reference_pass(cell),
                status=status,
                basis=cell.cost_basis,
                cpo=cpo,
                volume=workload.volume,
            )
        )
    return found


def _n_of(registered: dict, workload: WorkloadResult) -> int:
    entry = registered.get(workload.workload)
    if entry is not None:
        return int(entry.n)
    return max((c.n for c in workload.cells), default=15)


def rate_card(
    results: EditionResults,
    manifest: EditionManifest,
    *,
    provisional: bool = False,
    errata: ErrataFile | None = None,
    site_url: str | None = None,
) -> RateCard:
    """The card of one edition, from its figures as shown (withdrawn figures already gone)."""
    flagships = {m.id for m in manifest.models if m.flagship and not m.is_reference}
    # The registered n (what the quality bar's item count is out of), not a count of cells.
    n = max((w.n for w in manifest.workloads), default=15)
    date = results.date.isoformat()
    names = {m.id: m.name for m in manifest.models}
    registered = {w.id: w for w in manifest.workloads}
    lines = [
        card_line(w, flagships, results.quality_bar, names, _n_of(registered, w))
        for w in results.workloads
    ]
    short: dict[tuple[int, str], list[str]] = {}
    for w in manifest.workloads:
        if w.n_reason:
            short.setdefault((w.n, w.n_reason), []).append(w.id)
    return RateCard(
        brand=results.brand,
        edition=results.edition,
        date=date,
        methodology=results.methodology_version,
        reference_only=results.reference_only,
        provisional=provisional,
        quality_bar=results.quality_bar,
        bar_items=bar_items(results.quality_bar, n),
        n=n,
        lines=lines,
        references=[r for w in results.workloads for r in reference_lines(w)],
        footer=footer_text(results.brand, results.methodology_version, results.edition, date),
        judge_configured=manifest.judge is not None,
        local_model=local_model_statement(manifest),
        self_judged=self_judging_statement(manifest, results),
        short_samples=[ShortSample(n, why, ids) for (n, why), ids in short.items()],
        errata=[
            ErratumRef(e.id, e.title, changes_a_figure(e))
            for e in (errata.entries if errata else [])
        ],
        site_url=site_url,
        verdict=edition_verdict(
            results,
            manifest,
            [line.rate_status for line in lines if line.rate_status],
            provisional=provisional,
        ),
    )
