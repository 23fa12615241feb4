"""`ledgerrate seeds release`: publish an edition's seeds, then store its released datasets.

The seeds first (`generate/seeds.py:release`, refused while the window is open), then every
released dataset's files written once into the edition folder (`generate/stored_datasets.py`),
for `build` to publish as they are. Run again on an edition already released, it releases
nothing new and stores only what is missing: how an edition released before datasets were
stored gets them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ledgerrate.core.edition import WorkloadLookup
from ledgerrate.generate.seeds import Release, release
from ledgerrate.generate.stored_datasets import Stored, store_released


@dataclass(frozen=True)
class Released:
    seeds: Release
    datasets: Stored


def release_edition(
    edition_dir: Path,
    *,
    now: dt.datetime | None = None,
    environ: Mapping[str, str] | None = None,
    lookup: WorkloadLookup | None = None,
) -> Released:
    """Release the seeds (or check those released), then store every released dataset the
    edition folder does not hold yet."""
    seeds = release(edition_dir, now=now, environ=environ)
    return Released(seeds, store_released(edition_dir, lookup=lookup))
