"""`make test` keeps each module on one xdist worker, so module fixtures are built once.

The child pytest runs the scheduling plugin alone over throwaway modules: without the suite's
conftest (and the toolchain it imports), two workers start in a second or two rather than ten,
and what is under test (how xdist hands out whole modules) is the same. The installed plugins
are not loaded either (only xdist and the scheduling plugin are named): importing playwright's,
hypothesis' and the others' in three processes was most of the child's CPU."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
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
# Three folders as the suite has them, several quick tests each: spread test by test, both
# workers would get some of every module.
MODULES = ("core/test_one.py", "grade/test_two.py", "publish/test_three.py")
TESTS_PER_MODULE = 8
QUICK_TEST = "def test_{}() -> None:\n    assert True\n\n"


def test_each_module_runs_on_one_worker_under_make_tests_options(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    for module in MODULES:
        path = tmp_path / module
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(QUICK_TEST.format(i) for i in range(TESTS_PER_MODULE)))
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    plugins = ("-p", "xdist.plugin", "-p", "tests.scheduling")
    done = subprocess.run(
        [*MAKE_TEST, "-v", "-p", "no:cacheprovider", "--noconftest", *plugins],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    workers: dict[str, set[str]] = defaultdict(set)
    ran = re.findall(r"\[(gw\d+)\][^\n]*? PASSED ([\w/]+\.py)::", done.stdout)
    for worker, module in ran:
        workers[module].add(worker)
    assert len(ran) == len(MODULES) * TESTS_PER_MODULE, done.stdout
    assert set(workers) == set(MODULES), done.stdout
    assert all(len(seen) == 1 for seen in workers.values()), dict(workers)
    # Both workers had work: the modules were spread, not all sent to one.
    assert len(set().union(*workers.values())) == 2, dict(workers)
