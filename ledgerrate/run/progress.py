"""What a run shows: an overall line, a bar per cell in progress, and the end summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)

from ledgerrate.core.usd import (
    usd,  # the project's one money formatter; run/reproduce imports it here
)

# A 40-model edition has over 500 cells: the display shows one overall line and only the cells
# being worked on, so it fits a 24-line terminal whatever the edition's size.
MAX_CELL_BARS = 6


class CellProgress:
    """An overall line (items done of total, spend so far, time left) and a bar for each cell
    in progress; `advance` after every finished item, `spent` after every attempt."""

    def __init__(self, console: Console | None = None, *, enabled: bool = True) -> None:
        self.console = console or Console(stderr=True)
        # Hidden (`show_progress=False`: tests, the benchmark): no bar is drawn, so none is kept;
        # formatting two amounts and updating two bars per attempt for it took 12 µs.
        self.enabled = enabled
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=24),
            MofNCompleteColumn(),
            TextColumn("{task.fields[spend]}"),
            TimeRemainingColumn(compact=True),
            TextColumn("{task.fields[note]}"),
            console=self.console,
            disable=not enabled,
        )
        self._overall = self._progress.add_task("all cells", total=0, spend=usd(0), note="")
        self._tasks: dict[str, TaskID] = {}
        self._spend: dict[str, Decimal] = {}
        self._total_spend = Decimal(0)
        self._shown: set[str] = set()

    def __enter__(self) -> CellProgress:
        self._progress.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.__exit__(kind, exc, tb)

    def add(self, key: str, label: str, total: int, done: int, spent: Decimal = Decimal(0)) -> None:
        """`done` and `spent`: what the sitting being resumed already holds."""
        self._spend[key] = spent
        self._total_spend += spent
        self._tasks[key] = self._progress.add_task(
            label, total=total, completed=done, spend=usd(spent), note="", visible=False
        )
        overall = self._progress.tasks[self._overall]
        self._progress.update(
            self._overall,
            total=(overall.total or 0) + total,
            completed=overall.completed + done,
            spend=usd(self._total_spend),
        )

    def _show(self, key: str) -> None:
        if key not in self._shown and len(self._shown) < MAX_CELL_BARS:
            self._shown.add(key)
            self._progress.update(self._tasks[key], visible=True)

    def spent(self, key: str, amount: Decimal, note: str = "") -> None:
        self._spend[key] += amount
        self._total_spend += amount
        if not self.enabled:
            return
        fields: dict[str, str] = {"spend": usd(self._spend[key])}
        if note:
            fields["note"] = note
        self._progress.update(self._tasks[key], **fields)  # type: ignore[arg-type]
        self._progress.update(self._overall, spend=usd(self._total_spend))
        self._show(key)

    def advance(self, key: str) -> None:
        if not self.enabled:
            return
        task = self._tasks[key]
        self._progress.advance(task)
        self._progress.advance(self._overall)
        if self._progress.tasks[task].finished:
            self._shown.discard(key)
            self._progress.update(task, visible=False)
        else:
            self._show(key)


@dataclass
class CellSummary:
    workload: str
    model: str
    mode: str
    sitting: int
    items: int
    finished: int = 0
    attempts: int = 0
    infra_excluded: int = 0
    spend_usd: Decimal = Decimal(0)
    missing: list[str] = field(default_factory=list)
    # Of `missing`: items left after timing out `RetryPolicy.max_timeouts` times.
    timed_out: list[str] = field(default_factory=list)
    timeout_s: float | None = None
    # The last attempt's cause when the server was never reached (refused, DNS, TLS).
    unreachable: str | None = None
    # Set when the cell was not run at all, with the one-line reason (e.g. tools dropped).
    refused: str | None = None
    already_complete: bool = False

    @property
    def key(self) -> str:
        return f"{self.workload}/{self.model}/{self.mode}"

    def line(self) -> str:
        head = f"{self.workload} · {self.model} · {self.mode} · sitting {self.sitting}"
        if self.already_complete:
            return f"{head}: complete; --new-sitting to re-run"
        if self.refused:
            return f"{head}: not run: {self.refused}"
        text = f"{head}: {self.finished}/{self.items} finished, {usd(self.spend_usd)} spent"
        if self.infra_excluded:
            text += f", {self.infra_excluded} infra-excluded attempt(s)"
        if self.missing:
            text += f"; still missing after retries: {', '.join(sorted(self.missing))}"
        return text


@dataclass
class RunSummary:
    edition: str
    outside_window: bool
    cells: list[CellSummary]
    # One line per tools probe sent (infrastructure spend), printed before the cells.
    probes: list[str] = field(default_factory=list)

    @property
    def missing(self) -> int:
        return sum(len(c.missing) for c in self.cells)

    @property
    def refused(self) -> list[CellSummary]:
        return [c for c in self.cells if c.refused]

    def lines(self) -> list[str]:
        """The probes, one line per cell that needs a reader's attention, the totals, and what is
        left undone: a 500-cell edition's summary must still fit on a screen."""
        noteworthy = [c for c in self.cells if c.missing or c.infra_excluded or c.refused]
        lines = [*self.probes, *(c.line() for c in noteworthy)]
        finished = sum(c.finished for c in self.cells)
        items = sum(c.items for c in self.cells)
        complete = sum(c.already_complete for c in self.cells)
        spend = sum((c.spend_usd for c in self.cells), Decimal(0))
        lines.append(
            f"{self.edition}: {len(self.cells)} cell(s), {finished}/{items} items finished, "
            f"{usd(spend)} spent"
            + (
                f"; {complete} cell(s) already complete (--new-sitting to re-run)"
                if complete
                else ""
            )
        )
        left = self.left()
        if left:
            lines.append(left)
        return lines

    def left(self) -> str:
        """One line naming what is left undone, cell by cell, and what would finish it."""
        parts = []
        for c in self.cells:
            if c.refused:
                parts.append(f"{c.key} (all {c.items} items: not run, see above)")
            elif c.missing:
                part = f"{c.key}: {', '.join(sorted(c.missing))}"
                if c.unreachable:
                    part += f" ({c.unreachable})"
                elif c.timed_out:
                    limit = f" at {c.timeout_s:g} s" if c.timeout_s is not None else ""
                    part += (
                        f" ({len(c.timed_out)} left after repeated timeouts{limit}: raise "
                        f"models[{c.model}].timeout_s in edition.yaml)"
                    )
                parts.append(part)
        if not parts:
            return ""
        items = self.missing + sum(c.items for c in self.cells if c.refused)
        return f"left undone: {items} item(s): " + "; ".join(parts) + "; run again to retry them"
