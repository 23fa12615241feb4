"""Shared test fixtures, and how tests are spread over xdist workers."""

from __future__ import annotations

import copy
import functools
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyrage
import pytest
from xdist.scheduler import LoadScopeScheduling

from ledgerrate import forked, workloads
from ledgerrate.generate import dataset as dataset_module
from ledgerrate.generate.escrow import IDENTITY_ENV, RECIPIENTS_ENV
from ledgerrate.workloads.base import Dataset, Workload

REPO = Path(__file__).resolve().parent.parent

# The suite already runs on every CPU (xdist), so builds and verifications inside it run their
# jobs in one process (ledgerrate/forked.py); tests/publish/test_forked.py and the re-grading
# tests set their own worker count to hold the forked path to the serial one.
os.environ.setdefault(forked.WORKERS_ENV, "1")

# Folders whose expensive fixtures are session-scoped (a registered, run and graded edition):
# their tests share one worker so the fixture is built once, not once per worker.
_SESSION_FOLDERS = {"verify", "editions"}

# Modules whose tests share no fixture wider than a test: each test is its own xdist group, so
# the two workers can run them side by side (two real-server runs of a few minutes each).
_PER_TEST = {"run/test_local_server"}

# The longest groups, longest first, as `pytest --durations` measured them on a 2-core machine
# (real llama.cpp server, browser site build, wheel install and fresh clone, invoice PDFs).
# Started first, they overlap with everything else instead of starting last and running alone.
# `make test` passes `--no-loadscope-reorder`, which keeps this order (xdist otherwise orders
# groups by their number of tests, which put the two-test local-server module last).
_LONGEST_FIRST = (
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


@pytest.fixture
def repo_root() -> Path:
    return REPO


@dataclass(frozen=True)
class OperatorKey:
    """A throwaway age key pair made for the test session; never committed anywhere."""

    recipient: str
    identity_file: Path


@pytest.fixture(scope="session")
def operator_key(tmp_path_factory: pytest.TempPathFactory) -> OperatorKey:
    identity = pyrage.x25519.Identity.generate()
    path = tmp_path_factory.mktemp("operator-key") / "age-identity.txt"
    path.write_text(f"# throwaway test identity\n{identity}\n")
    path.chmod(0o600)
    return OperatorKey(str(identity.to_public()), path)


@pytest.fixture(scope="session", autouse=True)
def _escrow_to_the_test_key(operator_key: OperatorKey) -> Iterator[None]:
    """Every test registers with an escrow recipient (register refuses without one), and no
    test sees an operator identity from the developer's shell unless it sets one itself.
    Session-wide, so session fixtures that register editions get it too."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(RECIPIENTS_ENV, operator_key.recipient)
        patch.delenv(IDENTITY_ENV, raising=False)
        yield


def _shared_datasets(factory: pytest.TempPathFactory) -> Path:
    """One datasets folder for the whole run, both xdist workers included (their base folders
    share a parent). A cached dataset is keyed by its registered hash and checked against it on
    every read, so no test can be handed another's: only the generation is shared, which costs
    seconds of invoice and board-pack PDFs for each build in a fresh subprocess."""
    base = factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "shared-datasets"
    folder.mkdir(exist_ok=True)
    return folder


def _own_build_cache(factory: pytest.TempPathFactory) -> Iterator[None]:
    cache = factory.mktemp("build-cache")
    (cache / "datasets").symlink_to(_shared_datasets(factory), target_is_directory=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEDGERRATE_CACHE_DIR", str(cache))
        yield


# Builds never read or fill the developer's ~/.cache/ledgerrate, and no two tests share a
# products cache (many stand in their own figures for the same edition files, so a shared cache
# would hand one test another's): one per test, and one per module and per session for the wider
# fixtures, as each build folder had its own cache before the cache moved out of it. Only the
# datasets folder, content-addressed and checked on read, is shared (see `_shared_datasets`).
@pytest.fixture(scope="session", autouse=True)
def _session_build_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    yield from _own_build_cache(tmp_path_factory)


@pytest.fixture(scope="module", autouse=True)
def _module_build_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    yield from _own_build_cache(tmp_path_factory)


@pytest.fixture(autouse=True)
def _test_build_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    yield from _own_build_cache(tmp_path_factory)


def remembering(build: Callable[..., Dataset]) -> Callable[..., Dataset]:
    """`build_dataset` that hands back what it built before for the same registered workload
    code, seed and n, as a deep copy.

    `build_dataset` promises the same bytes for the same workload, seed and n in any process,
    and each edition a test builds regenerates every dataset at register, run, grade, build and
    verify; the invoice PDFs alone cost seconds each time. Only the catalogue's own workloads are
    remembered, keyed by their generator's source hash as well, so a test's stand-in workload
    under a catalogue id, or any other seed or n, is generated afresh. A test that must see a
    generation happen calls the workload's `generate` (or a fresh process), as the determinism
    tests do."""
    held: dict[tuple[str, str, int, int], Dataset] = {}

    @functools.wraps(build)
    def build_dataset(workload: Workload | str, seed: int, n: int = 15) -> Dataset:
        wl = workloads.get(workload) if isinstance(workload, str) else workload
        try:
            registered = workloads.get(wl.id) is wl
        except KeyError:
            registered = False
        if not registered:
            return build(wl, seed, n)
        key = (wl.id, wl.generator_hash, seed, n)
        if key not in held:
            held[key] = build(wl, seed, n)
        return copy.deepcopy(held[key])

    return build_dataset


_ORIGINAL_BUILD = dataset_module.build_dataset


def _bind_build_dataset(value: Callable[..., Dataset]) -> None:
    for name, module in list(sys.modules.items()):
        if name.startswith("ledgerrate") and getattr(module, "build_dataset", None) in (
            _ORIGINAL_BUILD,
            dataset_module.build_dataset,
        ):
            module.build_dataset = value  # type: ignore[attr-defined]


def pytest_configure(config: pytest.Config) -> None:
    """Datasets are built once per test process: installed before any test module is imported,
    so every `from ledgerrate.generate.dataset import build_dataset` binds the remembering one."""
    _bind_build_dataset(remembering(_ORIGINAL_BUILD))


def pytest_unconfigure(config: pytest.Config) -> None:
    _bind_build_dataset(_ORIGINAL_BUILD)
