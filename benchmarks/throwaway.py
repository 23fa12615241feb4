"""Registering a benchmark's throwaway edition."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ledgerrate.generate.escrow import RECIPIENTS_ENV
from ledgerrate.generate.register import register_edition


def register_throwaway(root: Path, why: str, **options: Any) -> None:
    """Register `root` with its seeds kept nowhere (`why` says so in the registration).

    `register` refuses an edition that both names escrow recipients and says its seeds are kept
    elsewhere. A benchmark's seeds are thrown away with its folder, or released by the benchmark
    itself, so an operator's recipients set in this shell are not asked to hold them."""
    os.environ.pop(RECIPIENTS_ENV, None)
    register_edition(root, seeds_kept_elsewhere=why, **options)
