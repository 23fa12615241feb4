"""Problems a user can fix, reported as one line each by the CLI."""

from __future__ import annotations


class UsageProblem(Exception):
    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        super().__init__("\n".join(lines))
