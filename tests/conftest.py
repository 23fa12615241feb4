"""Shared test fixtures."""

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

from ledgerrate import workloads
from ledgerrate.core import forked
from ledgerrate.generate import dataset as dataset_module
from ledgerrate.generate.escrow import IDENTITY_ENV, RECIPIENTS_ENV
from ledgerrate.workloads.base import Dataset, Workload

# How tests are spread over xdist workers lives in its own plugin, which the scheduling test
# loads alone (without this file's imports) in a child pytest; imported here, its hooks apply.
from tests.scheduling import pytest_collection_modifyitems, pytest_xdist_make_scheduler

__all__ = ["pytest_collection_modifyitems", "pytest_xdist_make_scheduler"]

REPO = Path(__file__).resolve().parent.parent

# The suite already runs on every CPU (xdist), so builds and verifications inside it run their
# jobs in one process (ledgerrate/core/forked.py); tests/publish/test_forked.py and the re-grading
# tests set their own worker count to hold the forked path to the serial one.
os.environ.setdefault(forked.WORKERS_ENV, "1")


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


def _shared_folder(factory: pytest.TempPathFactory, name: str) -> Path:
    """One folder for the whole run, both xdist workers included (their base folders share a
    parent)."""
    base = factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# Products that are a function of their own inputs alone, whatever edition or test asked for
# them: a chart of the figures it is given, a rate-card PDF of its HTML, a template's compiled
# bytecode. Each entry's key is the digest of those inputs and the toolchain, and its bytes are
# checked against the digest in its name on every read, so sharing them across the run hands no
# test another's: it only spares drawing the same SVG or PDF again (40 CPU-seconds of a run).
# Products keyed by an edition's files (figures, drill-downs, gzips) stay each test's own.
SHARED_PRODUCTS = ("chart", "ratecard", "jinja")


def _own_build_cache(factory: pytest.TempPathFactory) -> Iterator[None]:
    cache = factory.mktemp("build-cache")
    # Datasets are keyed by their registered hash and checked against it on every read, so no
    # test can be handed another's: only the generation is shared, which costs seconds of
    # invoice and board-pack PDFs for each build in a fresh subprocess.
    (cache / "datasets").symlink_to(
        _shared_folder(factory, "shared-datasets"), target_is_directory=True
    )
    (cache / "products").mkdir()
    for kind in SHARED_PRODUCTS:
        shared = _shared_folder(factory, f"shared-products/{kind}")
        (cache / "products" / kind).symlink_to(shared, target_is_directory=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEDGERRATE_CACHE_DIR", str(cache))
        yield


# Builds never read or fill the developer's ~/.cache/ledgerrate, and no two tests share the
# products keyed by edition files (many stand in their own figures for the same edition files,
# so a shared cache would hand one test another's): one cache per test, and one per module and
# per session for the wider fixtures. Only datasets and SHARED_PRODUCTS, whose keys are their
# whole input, are shared across the run (see `_own_build_cache`).
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
