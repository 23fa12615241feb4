"""A small real edition: registered, run with the reference baselines, graded, published.

Built once per test session through the same stage functions the CLI calls; each tamper test
works on its own copy.
"""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

WORKLOADS = ("triage.ap-inbox.v1", "query.nl2sql.v1")


def write_edition(folder: Path, now: dt.datetime) -> None:
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
        "workloads": [{"id": w} for w in WORKLOADS],
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
def published_edition(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from ledgerrate.generate.register import register_edition
    from ledgerrate.generate.seeds import release_seeds
    from ledgerrate.grade.stage import grade_edition
    from ledgerrate.metrics.report import edition_results
    from ledgerrate.publish.published import record_publication
    from ledgerrate.run.scheduler import RunOptions, run_edition

    base = tmp_path_factory.mktemp("verify")
    monkey = pytest.MonkeyPatch()
    monkey.setenv("LEDGERRATE_PRIVATE_DIR", str(base / "private"))
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    edition = base / "editions" / "e-verify"
    write_edition(edition, now)
    register_edition(edition)
    run_edition(edition, RunOptions(concurrency=2))
    grade_edition(edition)
    manifest = yaml.safe_load((edition / "edition.yaml").read_text())
    closes = dt.datetime.fromisoformat(manifest["window"]["closes"])
    release_seeds(edition, now=closes + dt.timedelta(seconds=1))
    record_publication(edition, edition_results(edition), now)
    yield edition
    monkey.undo()


@pytest.fixture
def edition_copy(published_edition: Path, tmp_path: Path) -> Path:
    target = tmp_path / "editions" / published_edition.name
    shutil.copytree(published_edition, target)
    return target
