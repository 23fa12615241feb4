"""The evidence bundle's format: its name, which edition files it carries, and its index files.

Shared by the writer (`publish/bundle.py`) and the reader (`verify/bundle.py`), which otherwise
share no code: the verifier must not check a bundle with the code that wrote it.
"""

from __future__ import annotations

import re

from ledgerrate.core import layout

BUNDLE_NAME = re.compile(
    r"^ledgerrate-evidence-(?P<edition>[A-Za-z0-9._-]+)-(?P<sha>[0-9a-f]{64})\.tar\.gz$"
)
INCLUDED_TOP = (
    layout.MANIFEST,
    layout.PRICING,
    layout.REGISTRATION,
    layout.PRICE_CHECK,
    layout.SEEDS,
    layout.SEED_ESCROW,
    layout.SEEDS_LOST,
    layout.RESULTS,
    layout.RESULTS_CURRENT,
    layout.ERRATA,
    layout.PUBLISHED,
)
INCLUDED_DIRS = (
    layout.DATASETS,
    layout.RUNS,
    layout.BODIES,
    layout.PROBES,
    layout.GRADES,
    layout.SPOTCHECKS,
    layout.REPRODUCTIONS,
    layout.INCIDENTS,
    layout.MANUAL,  # the manual arm's recorded sittings, when any (ARCHITECTURE.md §12)
)
STATEMENT = "statement.intoto.json"
SUMS = "SHA256SUMS"
