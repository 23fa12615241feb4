"""Seeded budget-vs-actual tables with context notes, for variance commentary.

Each table has 12 line items. Three of them are planted as the drivers: their absolute
variances are clearly the largest, so "the top three by absolute variance" has one right answer.
Notes explain each driver's cause; red-herring notes sound like causes but concern lines whose
variance is small, or events outside the period, so a writer who attributes by keyword rather
than by size picks the wrong story.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

PERIODS = ("Q1", "Q2", "Q3", "Q4")
CURRENCIES = (("USD", "$"), ("EUR", "€"), ("GBP", "£"))

# line item -> (low, high) quarterly budget, and the cause stories a driver line can carry.
LINES: dict[str, tuple[int, int]] = {
    "Product revenue": (2_000_000, 6_000_000),
    "Services revenue": (400_000, 1_500_000),
    "Salaries and wages": (900_000, 2_500_000),
    "Contractors": (80_000, 400_000),
    "Freight and logistics": (120_000, 600_000),
    "Cloud hosting": (90_000, 450_000),
    "Software licences": (40_000, 200_000),
    "Marketing programmes": (100_000, 500_000),
    "Travel and entertainment": (30_000, 150_000),
    "Rent and facilities": (150_000, 400_000),
    "Professional fees": (40_000, 220_000),
    "Utilities": (20_000, 90_000),
    "Bad debt expense": (10_000, 80_000),
    "Insurance": (30_000, 120_000),
    "Recruitment fees": (20_000, 150_000),
    "Training": (10_000, 70_000),
}

_CAUSES_UP = (
    "{line} ran above plan after {event}.",
    "{event}; this pushed {line} over budget for the quarter.",
)
_CAUSES_DOWN = (
    "{line} came in under plan because {event}.",
    "{event}, leaving {line} below budget.",
)
# Per line: (why it ran over, why it ran under). Causes fit their line so that attributing a
# cause is a matter of reading the right note, not of guessing.
_EVENTS: dict[str, tuple[str, str]] = {
    "Product revenue": (
        "two enterprise renewals closed a quarter early",
        "a large customer delayed its go-live",
    ),
    "Services revenue": (
        "an implementation project was accepted ahead of schedule",
        "the distributor channel missed its target",
    ),
    "Salaries and wages": (
        "overtime was needed to clear an order backlog",
        "five open roles were not filled during the period",
    ),
    "Contractors": (
        "an unplanned system migration needed outside engineers",
        "a contractor team was brought in-house",
    ),
    "Freight and logistics": (
        "the carrier contract was renewed at higher rates",
        "shipments were consolidated onto fewer routes",
    ),
    "Cloud hosting": (
        "a data-retention project doubled storage",
        "reserved capacity replaced on-demand servers",
    ),
    "Software licences": ("a true-up audit added seats", "unused seats were cancelled at renewal"),
    "Marketing programmes": (
        "a trade-show programme was added mid-quarter",
        "the spring campaign was cancelled",
    ),
    "Travel and entertainment": (
        "the sales kick-off moved into the period",
        "a travel freeze was in force",
    ),
    "Rent and facilities": ("a temporary warehouse was leased", "the office move was postponed"),
    "Professional fees": ("a one-off legal settlement was paid", "the audit fee was renegotiated"),
    "Utilities": ("energy tariffs rose at the contract renewal", "a supplier rebate was received"),
    "Bad debt expense": ("a distributor entered administration", "an old receivable was recovered"),
    "Insurance": ("the cyber policy premium was repriced", "the property policy was re-tendered"),
    "Recruitment fees": ("agency hires replaced direct hiring", "the hiring plan was paused"),
    "Training": ("a compliance programme was rolled out to all staff", "courses moved online"),
}
_HERRINGS = (
    "The {line} team is preparing a new vendor tender, due to conclude next year; it has no "
    "effect on this quarter.",
    "A dispute over one {line} invoice was raised during the quarter and settled within the "
    "month; the amounts involved were immaterial.",
    "Management is reviewing {line} policy following a board question; no change is yet in effect.",
    "{line} was discussed at length in the audit committee, but the quarter's spend was in "
    "line with plan.",
)


@dataclass(frozen=True)
class Line:
    name: str
    budget: int
    actual: int

    @property
    def variance(self) -> int:
        return self.actual - self.budget

    @property
    def variance_pct(self) -> Decimal:
        pct = Decimal(self.variance) * 100 / Decimal(self.budget)
        return pct.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)

    @property
    def is_revenue(self) -> bool:
        return "revenue" in self.name.lower()


@dataclass(frozen=True)
class Note:
    id: str
    line: str
    text: str
    role: str  # "cause" or "herring"


@dataclass(frozen=True)
class BudgetTable:
    company: str
    period: str
    currency: str
    symbol: str
    lines: tuple[Line, ...]
    notes: tuple[Note, ...]
    drivers: tuple[str, ...]  # by absolute variance, largest first
    strata: tuple[str, ...]


def _round_to(value: float, unit: int) -> int:
    return round(value / unit) * unit if unit > 1 else round(value)


def make_table(rng: random.Random, company: str, *, close_fourth: bool) -> BudgetTable:
    """One table. `close_fourth` makes the fourth-largest variance nearer the third (harder)."""
    names = rng.sample(sorted(LINES), 12)
    period = f"{rng.choice(PERIODS)} {rng.randint(2025, 2026)}"
    currency, symbol = rng.choice(CURRENCIES)
    budgets = {n: _round_to(rng.uniform(*LINES[n]), 1000) for n in names}
    strata: list[str] = ["close-fourth"] if close_fourth else []
    ordered = sorted(budgets.values())
    base = ordered[len(ordered) // 2] * rng.uniform(0.3, 0.45)
    sizes = (base, base * rng.uniform(0.7, 0.85), base * rng.uniform(0.5, 0.62))
    drivers: list[str] = []
    actuals: dict[str, int] = {}
    for size in sizes:
        # Only a line big enough to move by `size` can carry it (a cost never goes negative).
        eligible = [n for n in names if n not in drivers and budgets[n] * 0.9 >= size]
        name = (
            rng.choice(eligible)
            if eligible
            else max((n for n in names if n not in drivers), key=lambda n: budgets[n])
        )
        drivers.append(name)
        actuals[name] = budgets[name] + rng.choice((1, -1)) * round(min(size, budgets[name] * 0.9))
    ceiling_share = rng.uniform(0.8, 0.9) if close_fourth else rng.uniform(0.25, 0.45)
    # Re-sort after the cap so the truth order is by the realised variance.
    drivers.sort(key=lambda n: -abs(actuals[n] - budgets[n]))
    third_abs = abs(actuals[drivers[2]] - budgets[drivers[2]])
    ceiling = third_abs * ceiling_share
    fourth_done = False
    for name in names:
        if name in actuals:
            continue
        if close_fourth and not fourth_done:
            spread = ceiling
            fourth_done = True
        else:
            spread = ceiling * rng.uniform(0.05, 0.6)
        spread = min(spread, budgets[name] * 0.5)
        actuals[name] = budgets[name] + rng.choice((1, -1)) * round(spread)
    lines = tuple(Line(n, budgets[n], actuals[n]) for n in names)
    if any(actuals[n] < budgets[n] and not Line(n, 1, 0).is_revenue for n in drivers):
        strata.append("favourable-driver")
    if any(Line(n, 1, 0).is_revenue for n in drivers):
        strata.append("revenue-driver")
    notes: list[Note] = []
    for name in drivers:
        line = Line(name, budgets[name], actuals[name])
        up = line.variance > 0
        event = _EVENTS[name][0 if up else 1]
        template = rng.choice(_CAUSES_UP if up else _CAUSES_DOWN)
        text = template.format(line=name, event=event)
        notes.append(Note("", name, text[0].upper() + text[1:], "cause"))
    others = [n for n in names if n not in drivers]
    for name in rng.sample(others, rng.randint(2, 3)):
        notes.append(Note("", name, rng.choice(_HERRINGS).format(line=name), "herring"))
    rng.shuffle(notes)
    numbered = tuple(Note(f"N{i + 1}", n.line, n.text, n.role) for i, n in enumerate(notes))
    return BudgetTable(
        company=company,
        period=period,
        currency=currency,
        symbol=symbol,
        lines=lines,
        notes=numbered,
        drivers=tuple(drivers),
        strata=tuple(strata),
    )


def render_table(table: BudgetTable) -> str:
    """The table as plain text (markdown), amounts in whole currency units."""
    head = (
        f"| Line item | Budget ({table.currency}) | Actual ({table.currency}) "
        f"| Variance ({table.currency}) | Variance % |"
    )
    rows = [head, "|---|---:|---:|---:|---:|"]
    for line in table.lines:
        rows.append(
            f"| {line.name} | {line.budget:,} | {line.actual:,} | {line.variance:,} "
            f"| {line.variance_pct}% |"
        )
    return "\n".join(rows)


def render_notes(table: BudgetTable) -> str:
    return "\n".join(f"{note.id}. {note.text}" for note in table.notes)
