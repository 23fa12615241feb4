"""A fixture edition with released seeds, built through the real stage functions.

It stands beside the bundled editions so the reproduction logic is exercised even while
`editions/` is empty, and so the tamper tests have an edition to damage. Its workloads cover the
three shapes a baseline cell can take: a plain single-shot cell, a judged workload (stored
outcome `pending_judge`, no judge configured) and an agentic-only workload whose answer carries
a tool state.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ledgerrate.testing.reference_edition import build_reference_edition
from tests.editions.reproduce import DatasetCache

FIXTURE_WORKLOADS = (
    "triage.ap-inbox.v1",
    "generate.variance-commentary.v1",
    "execute.month-end.v1",
)


@pytest.fixture(scope="session")
def released_fixture_edition(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("reproduce")
    monkey = pytest.MonkeyPatch()
    monkey.setenv("LEDGERRATE_PRIVATE_DIR", str(base / "private"))
    edition = build_reference_edition(
        base / "editions" / "e-reproduce", workloads=FIXTURE_WORKLOADS, release=True
    )
    # The private seeds go away, as they would for a reader who has only the published tree:
    # whatever the comparison regenerates must come from the released seeds.json.
    shutil.rmtree(base / "private")
    monkey.setenv("LEDGERRATE_PRIVATE_DIR", str(base / "no-private-seeds-here"))
    yield edition
    monkey.undo()


@pytest.fixture(scope="session")
def dataset_cache() -> DatasetCache:
    return DatasetCache()


@pytest.fixture
def fixture_copy(released_fixture_edition: Path, tmp_path: Path) -> Path:
    target = tmp_path / "editions" / released_fixture_edition.name
    shutil.copytree(released_fixture_edition, target)
    return target
