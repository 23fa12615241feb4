"""Progress for the stages that take a while (register, grade, verify, build): one transient line
on a terminal, nothing at all when stderr is a pipe or a CI log.

`run` has its own display (run/progress.py): it tracks spend and hundreds of cells; the other
stages only need to say how far they are through a known list of steps.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)


class Steps:
    """`with Steps("grading", total) as steps: ... steps.step("extract.invoice.v1 · m1")`."""

    def __init__(
        self, label: str, total: int, *, console: Console | None = None, enabled: bool | None = None
    ) -> None:
        console = console or Console(stderr=True)
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn(f"{label}: {{task.description}}"),
            BarColumn(bar_width=20),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=not console.is_terminal if enabled is None else not enabled,
        )
        self._task = self._progress.add_task("", total=total)

    def __enter__(self) -> Steps:
        self._progress.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.__exit__(kind, exc, tb)

    def step(self, what: str) -> None:
        """Show `what` as the step under way and count the one before it as done."""
        task = self._progress.tasks[0]
        if task.description:
            self._progress.advance(self._task)
        self._progress.update(self._task, description=what)

    @property
    def done(self) -> int:
        return int(self._progress.tasks[0].completed)
