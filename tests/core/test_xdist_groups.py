"""`make test` keeps each module on one xdist worker, so module fixtures are built once."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Small, quick modules with several tests each: spread test by test, both workers get some.
MAKE_TEST = (
    sys.executable,
    "-m",
    "pytest",
    "-n",
    "2",
    "--dist",
    "loadgroup",
    "--no-loadscope-reorder",
)
MODULES = ("tests/core/test_usd.py", "tests/core/test_enum_spellings.py", "tests/core/test_io.py")


def test_each_module_runs_on_one_worker_under_make_tests_options() -> None:
    done = subprocess.run(
        [*MAKE_TEST, "-v", "-p", "no:cacheprovider", *MODULES],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    workers: dict[str, set[str]] = defaultdict(set)
    ran = re.findall(r"\[(gw\d+)\][^\n]*? PASSED (tests/[\w/]+\.py)::", done.stdout)
    for worker, module in ran:
        workers[module].add(worker)
    assert set(workers) == set(MODULES), done.stdout
    assert all(len(seen) == 1 for seen in workers.values()), dict(workers)
