"""A rich progress bar per cell, with the spend so far, so a long run shows what it costs."""

from __future__ import annotations

from decimal import Decimal
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class CellProgress:
    """One bar per cell; `advance` after every finished item, `spent` after every attempt."""

    def __init__(self, console: Console | None = None, *, enabled: bool = True) -> None:
        self.console = console or Console(stderr=True)
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("${task.fields[spend]}"),
            TextColumn("{task.fields[note]}"),
            TimeElapsedColumn(),
            console=self.console,
            disable=not enabled,
        )
        self._tasks: dict[str, int] = {}
        self._spend: dict[str, Decimal] = {}

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

    def add(self, key: str, label: str, total: int, done: int) -> None:
        self._spend[key] = Decimal(0)
        self._tasks[key] = self._progress.add_task(
            label, total=total, completed=done, spend="0.0000", note=""
        )

    def spent(self, key: str, usd: Decimal, note: str = "") -> None:
        self._spend[key] += usd
        fields = {"spend": f"{self._spend[key]:.4f}"}
        if note:
            fields["note"] = note
        self._progress.update(self._tasks[key], **fields)  # type: ignore[arg-type]

    def advance(self, key: str) -> None:
        self._progress.advance(self._tasks[key])
