"""Problems a user can fix, reported as one line each by the CLI."""

from __future__ import annotations

from pathlib import Path


class UsageProblem(Exception):
    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        super().__init__("\n".join(lines))


class FileProblem(Exception):
    """A file that cannot be used as it is. `lines` holds one message per problem.

    Here rather than beside the readers in `core/io.py`: the command line catches it, and a
    command that stops before reading a file (`build` with nothing changed) should not load
    pydantic to do so."""

    def __init__(self, path: Path | str, lines: list[str]) -> None:
        self.path = Path(path)
        self.lines = lines
        super().__init__("\n".join(lines))
