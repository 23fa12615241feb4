"""The warnings mkdocs logs during a build, collected as lines: by `run.py` in the parent and by
a forked child of `parallel_pages.py`, which sends them to the parent. A module of its own, so
the plug-in and the engine that registers it import each other in neither direction."""

from __future__ import annotations

import logging


class WarningLines(logging.Handler):
    """The messages of the warnings (and errors) logged to it."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())
