"""A small real edition for tests: reference baselines only, built by the real stages.

Tests that need an edition on disk (verify's tamper tests, the baseline reproduction test)
build one here rather than writing records by hand, so they exercise what `register`, `run`,
`grade`, `seeds release` and `build` really write.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

import yaml

from ledgerrate.core.layout import EditionPaths

COMPUTE_PRICE = "0.0475"


def write_reference_edition(
    folder: Path, *, now: dt.datetime, workloads: Sequence[str], window_hours: int = 3
) -> dt.datetime:
    """edition.yaml and pricing.yaml for a reference-only edition whose window holds `now`;
    returns the window's close."""
    opens = now - dt.timedelta(hours=1)
    closes = opens + dt.timedelta(hours=window_hours)
    folder.mkdir(parents=True)
    manifest = {
        "id": folder.name,
        "date": now.date().isoformat(),
        "methodology_version": "1.0",
        "window": {"opens": opens.isoformat(), "closes": closes.isoformat()},
        "workloads": [{"id": w} for w in workloads],
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
            "vcpu_hour_usd": COMPUTE_PRICE,
            "source_url": "test fixture: an assumed compute price",
            "retrieved_at": opens.isoformat(),
        },
    }
    paths = EditionPaths(folder)
    paths.manifest.write_text(yaml.safe_dump(manifest, sort_keys=False))
    paths.pricing.write_text(yaml.safe_dump(pricing, sort_keys=False))
    return closes


def build_reference_edition(
    folder: Path,
    *,
    workloads: Sequence[str],
    release: bool = True,
    publish: bool = False,
    store: bool = False,
) -> Path:
    """Register, run, grade; then release the seeds and record a publication if asked.
    `store`: the release also stores the released datasets' files (`seeds release` does);
    without it, the edition is one released before they were stored, whose datasets `build`
    regenerates. Private seeds go where LEDGERRATE_PRIVATE_DIR points (set it in the test)."""
    from ledgerrate.generate.register import register_edition
    from ledgerrate.generate.release import release_edition
    from ledgerrate.generate.seeds import release_seeds
    from ledgerrate.grade.stage import grade_edition
    from ledgerrate.run.scheduler import RunOptions, run_edition

    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    closes = write_reference_edition(folder, now=now, workloads=workloads)
    register_edition(folder)
    run_edition(folder, RunOptions(concurrency=2), show_progress=False)
    grade_edition(folder)
    if release and store:
        release_edition(folder, now=closes + dt.timedelta(seconds=1))
    elif release:
        release_seeds(folder, now=closes + dt.timedelta(seconds=1))
    if publish:
        from ledgerrate.metrics.report import edition_results
        from ledgerrate.publish.published import record_publication

        record_publication(folder, edition_results(folder), now)
    return folder
