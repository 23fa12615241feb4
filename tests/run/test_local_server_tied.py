"""A server started for the length of a `with` block dies with the process that started it,
even when that process is killed with SIGKILL and runs no `finally` (a timed-out or cancelled
test run must not leave a llama.cpp server holding its port and the machine's cores)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's"
)

# A parent that starts a long-lived stand-in for the server, prints its pid, then waits to be
# killed. The stand-in is `sleep`, so the test needs no model and no llama.cpp build.
PARENT = """
import sys, time
from pathlib import Path
from ledgerrate.providers import local
child = local.spawn(["sleep", "300"], Path(sys.argv[1]), tied={tied})
print(child.pid, flush=True)
time.sleep(300)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0): it is dead, only not yet reaped by init
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ", 1)[1][0] != "Z"


def _orphan_after_sigkill(tmp_path: Path, *, tied: bool, wait_s: float) -> int:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT.format(tied=tied), str(tmp_path / "server.log")],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert _alive(child)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + wait_s
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    return child


def test_a_tied_server_dies_when_its_parent_is_killed(tmp_path: Path) -> None:
    child = _orphan_after_sigkill(tmp_path, tied=True, wait_s=10)
    assert not _alive(child)


def test_an_untied_server_outlives_its_parent_as_local_server_start_wants(
    tmp_path: Path,
) -> None:
    # a second is ample: the tied child is gone within milliseconds
    child = _orphan_after_sigkill(tmp_path, tied=False, wait_s=1)
    try:
        assert _alive(child)  # proves the first test's check can fail
    finally:
        os.killpg(child, signal.SIGKILL)
