"""How `make test` spreads tests over its two xdist workers: whole modules (or folders with a
session fixture) per worker, longest first. A plugin of its own, so that
tests/core/test_xdist_groups.py can run it in a child pytest without the suite's conftest."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

# Folders whose expensive fixtures are session-scoped (a registered, run and graded edition):
# their tests share one worker so the fixture is built once, not once per worker.
_SESSION_FOLDERS = {"verify", "editions"}

# Modules whose tests share no fixture wider than a test: each test is its own xdist group, so
# the two workers can run them side by side (two real-server runs of a few minutes each).
_PER_TEST = {"run/test_local_server"}

# The longest groups, longest first, as `pytest --durations` measured them on a 2-core machine
# (real gateway in front of a llama.cpp server, real llama.cpp server, browser site build,
# wheel install and fresh clone, invoice PDFs).
# Started first, they overlap with everything else instead of starting last and running alone.
# `make test` passes `--no-loadscope-reorder`, which keeps this order (xdist otherwise orders
# groups by their number of tests, which put the two-test local-server module last).
_LONGEST_FIRST = (
    "run/test_gateway",
    "run/test_local_server",
    "browser/test_site_browser",
    "publish/test_install",
    "workloads/test_extract_invoice_v2",
    "workloads/test_extract_invoice",
    "verify",
    "workloads/test_grader_revisions",
    "editions",
    "workloads/test_board_brief",
)


def _group(nodeid: str) -> tuple[str, str]:
    """(xdist group, the module or folder it is ranked by) of a test's node id."""
    path = Path(nodeid.split("::", 1)[0])
    folder = path.parent.name
    module = f"{folder}/{path.stem}"
    if folder in _SESSION_FOLDERS:
        return folder, folder
    if module in _PER_TEST:
        return nodeid.split("@", 1)[0], module
    return module, module


def _rank(item: pytest.Item) -> int:
    ranked = _group(item.nodeid)[1]
    return _LONGEST_FIRST.index(ranked) if ranked in _LONGEST_FIRST else len(_LONGEST_FIRST)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Hand out the longest groups first. The sort is stable: within a group, and among the
    groups not ranked, tests keep the order they were collected in."""
    items.sort(key=_rank)


class _ByGroup(LoadScopeScheduling):
    """Each module (or session-fixture folder) is one unit of work, sent whole to one worker,
    so a module- or session-scoped fixture (the browser test's site, the Inspect round trip's
    bench, the verify edition) is built once, not once per worker.

    Not xdist's `xdist_group` marks: xdist 3.8 names a test's group by rewriting
    `item._nodeid`, which pytest 9 no longer reads (a node id is built from `item._id`), so
    under pytest 9 every test was its own group and those fixtures were built on both workers.
    `make test` passes `--no-loadscope-reorder`, which keeps the collection's longest-first
    order instead of ordering units by their number of tests."""

    def _split_scope(self, nodeid: str) -> str:
        return _group(nodeid)[0]


# Optional: `-p no:xdist` runs without the plugin that declares this hook.
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> LoadScopeScheduling | None:
    if config.getvalue("dist") != "loadgroup":
        return None
    return _ByGroup(config, log)
