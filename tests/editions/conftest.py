"""A fixture edition with released seeds, built through the real stage functions.

It stands beside the bundled editions so the reproduction logic is exercised even while
`editions/` is empty, and so the tamper tests have an edition to damage. Its workloads cover the
three shapes a baseline cell can take: a plain single-shot cell, a judged workload (stored
outcome `pending_judge`, no judge configured) and an agentic-only workload whose answer carries
a tool state.
"""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from .reproduce import DatasetCache

FIXTURE_WORKLOADS = (
    "triage.ap-inbox.v1",
    "generate.variance-commentary.v1",
    "execute.month-end.v1",
)


def write_manifest(folder: Path, now: dt.datetime) -> None:
    opens = now - dt.timedelta(hours=1)
    folder.mkdir(parents=True)
    manifest = {
        "id": folder.name,
        "date": now.date().isoformat(),
        "methodology_version": "1.0",
        "window": {
            "opens": opens.isoformat(),
            "closes": (opens + dt.timedelta(hours=3)).isoformat(),
        },
        "workloads": [{"id": w} for w in FIXTURE_WORKLOADS],
        "models": [
            {
                "id": "reference",
                "name": "Reference baseline",
                "provider": "baseline",
                "family": "reference",
                "sampling_notes": "deterministic solver; no sampling",
            }
        ],
        "reference_only": True,
    }
    pricing = {
        "frozen_at": opens.isoformat(),
        "models": {},
        "compute": {
            "vcpu_hour_usd": "0.0475",
            "source_url": "https://example.org/compute-price",
            "retrieved_at": opens.isoformat(),
        },
    }
    (folder / "edition.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    (folder / "pricing.yaml").write_text(yaml.safe_dump(pricing, sort_keys=False))


@pytest.fixture(scope="session")
def released_fixture_edition(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from ledgerrate.generate.register import register_edition
    from ledgerrate.generate.seeds import release_seeds
    from ledgerrate.grade.stage import grade_edition
    from ledgerrate.run.scheduler import RunOptions, run_edition

    base = tmp_path_factory.mktemp("reproduce")
    monkey = pytest.MonkeyPatch()
    monkey.setenv("LEDGERRATE_PRIVATE_DIR", str(base / "private"))
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    edition = base / "editions" / "e-reproduce"
    write_manifest(edition, now)
    register_edition(edition)
    run_edition(edition, RunOptions(concurrency=2))
    grade_edition(edition)
    manifest = yaml.safe_load((edition / "edition.yaml").read_text())
    closes = dt.datetime.fromisoformat(manifest["window"]["closes"])
    release_seeds(edition, now=closes + dt.timedelta(seconds=1))
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
