"""The manual arm's files: what an analyst returns, what `manual import` records, and the block
a manual cell carries in `results.json` (ARCHITECTURE.md §12).

A manual arm is measured by a person, never simulated: the analyst's own stopwatch per item, a
timing statement in their words, the hourly rate with its basis, their role, and the tools they
used. Cost is itemised: the human-time line and one line per tool, each a dollar figure (zero
when genuinely zero) or unknown (`null`), never filled in.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final, Literal

from pydantic import Field, field_validator, model_validator

from ledgerrate.schema.base import SCHEMA_VERSION, Line, Note, Sha256, Slug, Strict, Usd, WorkloadId

# The model slug of every manual cell: `runs/<workload>/manual/by-hand.jsonl` (layout.py takes
# it from here: the schema is the floor of the house and imports nothing above it).
MANUAL_MODEL: Final = "manual"


class ToolCost(Strict):
    """One tool or software line of a sitting's cost."""

    tool: Line = Field(description="The tool, as named in `tools` (e.g. `spreadsheet`).")
    usd: Usd | Literal["unknown"] = Field(
        description="What using it for this sitting cost, in dollars: `0` when it genuinely cost "
        "nothing (already paid for, free software), `unknown` when nobody knows; never a guess."
    )
    basis: Note = Field(description="How the figure was arrived at, or why it is unknown.")

    @field_validator("usd")
    @classmethod
    def _not_negative(cls, value: Decimal | str) -> Decimal | str:
        if isinstance(value, Decimal) and value < 0:
            raise ValueError("a cost is never negative; write 0 or unknown")
        return value


class ItemTiming(Strict):
    """One item's clock, by the analyst's own stopwatch."""

    started_at: dt.datetime = Field(
        description="When the analyst began the item, UTC (ISO 8601 with `Z` or an offset)."
    )
    elapsed_minutes: Decimal | None = Field(
        default=None,
        ge=0,
        description="Wall-clock minutes spent on the item, stopwatch reading (an item looked at "
        "and given up on still took time; one never opened reads 0). Missing: the arm is void.",
    )

    @field_validator("started_at")
    @classmethod
    def _aware(cls, value: dt.datetime) -> dt.datetime:
        if value.tzinfo is None:
            raise ValueError("give the time zone, e.g. 2026-12-06T09:30:00Z")
        return value


class ManualTimesheet(Strict):
    """`timing.yaml` of a work packet, filled in by the analyst and returned with the answers."""

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug = Field(description="The edition the packet was made for (pre-filled).")
    workload: WorkloadId = Field(description="The packet's workload (pre-filled).")
    packet_sha256: Sha256 = Field(description="Digest of the packet's `packet.json` (pre-filled).")
    test_fixture: Note | None = Field(
        default=None,
        description="Set only on fixture answers written for the test suite, saying so. A "
        "fixture is refused by `manual import` into the bundled `editions/` folder.",
    )
    analyst_role: Line = Field(
        min_length=3, description="The analyst's role, e.g. `senior AP clerk` (never a name)."
    )
    analyst_name: Line | None = Field(
        default=None, description="Only with `name_consent: true`: published if given."
    )
    name_consent: bool = Field(
        default=False, description="The analyst agreed that their name be published."
    )
    timing_statement: Note | None = Field(
        default=None,
        description="In the analyst's own words: how the time was measured (what clock, when it "
        "started and stopped, breaks). Missing: the arm is void.",
    )
    hourly_rate_usd: Usd | Literal["unknown"] = Field(
        description="The analyst's hourly cost in dollars, or `unknown` (then the cost is unknown)."
    )
    rate_basis: Note = Field(
        min_length=3,
        description="Where the rate comes from, e.g. `loaded cost of a senior AP clerk, UK, 2026`.",
    )
    tools: list[Line] = Field(
        default_factory=list, description="Every tool used (spreadsheet, calculator, SQL client)."
    )
    tool_costs: list[ToolCost] = Field(
        default_factory=list, description="One cost line per tool named in `tools`."
    )
    items: dict[Slug, ItemTiming] = Field(description="Item id → its clock.")

    @model_validator(mode="after")
    def _consistent(self) -> ManualTimesheet:
        if self.analyst_name is not None and not self.name_consent:
            raise ValueError(
                "analyst_name is given without name_consent: true; remove the name or record "
                "the analyst's consent"
            )
        if isinstance(self.hourly_rate_usd, Decimal) and self.hourly_rate_usd <= 0:
            raise ValueError("hourly_rate_usd must be above 0, or `unknown`")
        named = [line.tool for line in self.tool_costs]
        missing = [tool for tool in self.tools if tool not in named]
        if missing:
            raise ValueError(
                f"tool_costs has no line for {', '.join(missing)}; add one per tool "
                "(usd: 0 when it cost nothing, usd: unknown when nobody knows)"
            )
        extra = [tool for tool in named if tool not in self.tools]
        if extra or len(named) != len(set(named)):
            raise ValueError(
                "tool_costs must name each tool of `tools` exactly once; "
                f"check {', '.join(extra or named)}"
            )
        return self


class ManualItem(Strict):
    """One item of a recorded sitting."""

    item_id: Slug
    started_at: dt.datetime = Field(description="When the analyst began it (UTC).")
    elapsed_s: float | None = Field(description="Stopwatch seconds; null when not given.")
    answered: bool = Field(description="An answer file was returned for it.")


class ManualSitting(Strict):
    """`manual/<workload>/sitting-<n>.json`: one analyst's attempt at a workload, as imported.

    Kept for good: a second analyst or a second attempt is a new sitting, never pooled with or
    chosen over this one. A void sitting (no timing statement, an item without its elapsed time)
    is recorded with its reasons and has no run records: it is shown void, never as a result.
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug
    workload: WorkloadId
    sitting: int = Field(ge=1, description="Sitting number, 1 for the first analyst/attempt.")
    imported_at: dt.datetime = Field(description="When `manual import` recorded it (UTC).")
    packet_sha256: Sha256 = Field(description="Digest of the packet the analyst answered.")
    returned_sha256: Sha256 = Field(
        description="sha256 of the canonical JSON of every returned file's sha256, by name."
    )
    test_fixture: Note | None = Field(
        default=None,
        description="Set on fixture answers of the test suite, saying so.",
        exclude_if=lambda v: v is None,
    )
    analyst_role: Line
    """The analyst's role."""
    analyst_name: Line | None = Field(default=None, description="Only with recorded consent.")
    timing_statement: Note | None = Field(description="How the analyst measured, own words.")
    hourly_rate_usd: Usd | None = Field(description="Hourly rate; null = unknown.")
    rate_basis: Note
    """Where the rate comes from."""
    tools: list[Line] = Field(default_factory=list)
    """Tools the analyst used."""
    tool_costs: list[ToolCost] = Field(default_factory=list)
    """One cost line per tool."""
    items: list[ManualItem]
    """Every item of the packet, in dataset order."""
    void_reasons: list[str] = Field(
        default_factory=list, description="Why the sitting is void; empty when it is not."
    )


class CostItem(Strict):
    """One line of a manual cell's itemised cost."""

    line: str = Field(description="`human time` or `tool: <name>`.")
    usd: Usd | None = Field(
        description="The line's dollars (0 when genuinely zero); null = unknown."
    )
    basis: str = Field(description="How it was obtained (hours × rate, the tool's basis).")


class ManualArm(Strict):
    """What a manual cell (workload × `manual` × `by-hand`) says beyond a model cell's figures."""

    analyst_role: str
    """The analyst's role (never a name without consent)."""
    analyst_name: str | None = Field(
        default=None, description="Published only with consent.", exclude_if=lambda v: v is None
    )
    test_fixture: str | None = Field(
        default=None, description="Set on test fixtures only.", exclude_if=lambda v: v is None
    )
    timing_statement: str | None = Field(description="How the time was measured, own words.")
    hours: Decimal | None = Field(
        description="Counted items' stopwatch time in hours (sum of seconds ÷ 3600); null when "
        "any elapsed time is missing."
    )
    hourly_rate_usd: Usd | None = Field(description="The recorded hourly rate; null = unknown.")
    rate_basis: str
    """Where the rate comes from."""
    tools: list[str] = Field(default_factory=list)
    """Tools used."""
    cost_lines: list[CostItem] = Field(description="Human time first, then one line per tool.")
    total_usd: Usd | None = Field(
        description="Sum of the lines; null (unknown) when any line is unknown."
    )
    sittings: list[int] = Field(description="Every sitting recorded for this cell, void ones too.")
