"""Shared test fixtures, and how tests are spread over xdist workers."""

from __future__ import annotations

import copy
import functools
import hashlib
import os
import pickle
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyrage
import pytest

from ledgerrate import workloads
from ledgerrate.generate import dataset as dataset_module
from ledgerrate.generate.escrow import IDENTITY_ENV, RECIPIENTS_ENV
from ledgerrate.workloads.base import Dataset, Workload

REPO = Path(__file__).resolve().parent.parent

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


def _group(item: pytest.Item) -> tuple[str, str]:
    """(xdist group, the module or folder it is ranked by)."""
    path = Path(str(item.fspath))
    folder = path.parent.name
    module = f"{folder}/{path.stem}"
    if folder in _SESSION_FOLDERS:
        return folder, folder
    if module in _PER_TEST:
        return item.nodeid, module
    return module, module


def _rank(item: pytest.Item) -> int:
    ranked = _group(item)[1]
    return _LONGEST_FIRST.index(ranked) if ranked in _LONGEST_FIRST else len(_LONGEST_FIRST)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under `--dist loadgroup`, keep each module (or session-fixture folder) on one worker,
    and hand out the longest groups first.

    Module-scoped fixtures such as the browser test's site build are otherwise built once per
    worker that happens to receive one of the module's tests. The sort is stable: within a
    group, and among the groups not ranked, tests keep the order they were collected in."""
    for item in items:
        item.add_marker(pytest.mark.xdist_group(_group(item)[0]))
    items.sort(key=_rank)


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


def remembering(build: Callable[..., Dataset]) -> Callable[..., Dataset]:
    """`build_dataset` that hands back what it built before for the same registered workload
    code, seed and n, as a deep copy.

    `build_dataset` promises the same bytes for the same workload, seed and n in any process,
    and each edition a test builds regenerates every dataset at register, run, grade, build and
    verify; the invoice PDFs alone cost seconds each time. Only the catalogue's own workloads are
    remembered, keyed by their generator's source hash as well, so a test's stand-in workload
    under a catalogue id, or any other seed or n, is generated afresh. A test that must see a
    generation happen calls the workload's `generate` (or a fresh process), as the determinism
    tests do.

    What one test process built is also shelved for the others of the same run (the two xdist
    workers otherwise each generate the bundled editions' datasets): see `_shelved`."""
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
            held[key] = _shelved(key, lambda: build(wl, seed, n))
        return copy.deepcopy(held[key])

    return build_dataset


# One folder per test run, shared by the xdist workers: made by the controlling process before
# the workers start (they inherit its environment), removed when the run ends.
RUN_DIR_ENV = "LEDGERRATE_TEST_RUN_DIR"


def _shelved(key: tuple[str, str, int, int], make: Callable[[], Dataset]) -> Dataset:
    """The dataset another process of this run shelved under `key`, else made and shelved.

    Pickle, because a dataset holds bytes and Decimals that its JSON content does not round-trip;
    the folder is this run's own, written only by its processes. Two processes may make the same
    dataset at once: each writes its own file and renames it into place, and both are the same
    bytes."""
    run_dir = os.environ.get(RUN_DIR_ENV)
    if not run_dir:
        return make()
    path = Path(run_dir) / "datasets" / f"{hashlib.sha256(repr(key).encode()).hexdigest()}.pickle"
    if path.exists():
        return pickle.loads(path.read_bytes())
    dataset = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_suffix(f".{os.getpid()}.tmp")
    staged.write_bytes(pickle.dumps(dataset, protocol=pickle.HIGHEST_PROTOCOL))
    os.replace(staged, path)
    return dataset


_ORIGINAL_BUILD = dataset_module.build_dataset


def _bind_build_dataset(value: Callable[..., Dataset]) -> None:
    for name, module in list(sys.modules.items()):
        if name.startswith("ledgerrate") and getattr(module, "build_dataset", None) in (
            _ORIGINAL_BUILD,
            dataset_module.build_dataset,
        ):
            module.build_dataset = value  # type: ignore[attr-defined]


def _controls_the_run(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput")  # an xdist worker carries its controller's input


def pytest_configure(config: pytest.Config) -> None:
    """Datasets are built once per test run: installed before any test module is imported,
    so every `from ledgerrate.generate.dataset import build_dataset` binds the remembering one."""
    if _controls_the_run(config):
        os.environ[RUN_DIR_ENV] = tempfile.mkdtemp(prefix="ledgerrate-tests-")
    _bind_build_dataset(remembering(_ORIGINAL_BUILD))


def pytest_unconfigure(config: pytest.Config) -> None:
    _bind_build_dataset(_ORIGINAL_BUILD)
    if _controls_the_run(config) and RUN_DIR_ENV in os.environ:
        shutil.rmtree(os.environ.pop(RUN_DIR_ENV), ignore_errors=True)
