"""One runner per cell: a cell's log is appended by exactly one `run` at a time.

Two runners on the same cell (an operator starting `run` again while one is still going) both
append the same attempts, and each takes the other's in-flight attempt for a killed one and
accounts it as unfinished: the log then holds duplicated records that `verify` rightly refuses,
and a self-hosted model's server time includes the other runner's requests. So `run` takes an
exclusive, non-blocking lock on every cell it will write before the first call, and refuses
with the cell's name when another process holds one. The locks live outside the edition (no
file in the repository) and are released by the kernel when the process ends, even on kill -9.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from ledgerrate.core.errors import UsageProblem

LOCK_ENV = "LEDGERRATE_CELL_LOCKS"


def lock_dir() -> Path:
    base = os.environ.get(LOCK_ENV)
    return Path(base) if base else Path(tempfile.gettempdir()) / "ledgerrate-cell-locks"


def lock_path(log: Path) -> Path:
    digest = hashlib.sha256(str(log.resolve()).encode()).hexdigest()[:32]
    return lock_dir() / f"{digest}.lock"


@contextlib.contextmanager
def locked(logs: Sequence[Path]) -> Iterator[None]:
    """Hold an exclusive lock on each cell log for the block; refuse if any is held."""
    held: list[int] = []
    busy: list[Path] = []
    try:
        lock_dir().mkdir(parents=True, exist_ok=True)
        for log in logs:
            fd = os.open(lock_path(log), os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                busy.append(log)
                continue
            held.append(fd)
        if busy:
            raise UsageProblem(
                *(
                    f"{log}: another `ledgerrate run` is writing this cell; wait for it to end "
                    "(or stop it) and run again, which resumes the cell"
                    for log in busy
                )
            )
        yield
    finally:
        for fd in held:
            os.close(fd)  # closing releases the lock
