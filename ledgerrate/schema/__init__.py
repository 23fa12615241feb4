"""The one schema for every file of an edition (ARCHITECTURE.md §4).

Every model forbids unknown fields, carries `schema_version`, and documents each field: these
docstrings become the published JSON Schemas that readers validate our files against.
Money is `Decimal` everywhere and serialises as a string so no cent is lost to floats.

The models live in three modules by who writes the files (`edition`: the operator and
`register`, with `escrow` for the seeds' custody; `records`: `run` and `grade`; `publication`:
`build`; `price_check`: the price database cross-checks `register` and `build` write;
`site`: the operator's facts about the site; `released`: the stored files of released
datasets, written at `seeds release`); import them from here.
"""

from __future__ import annotations

from ledgerrate.schema.base import *  # noqa: F403
from ledgerrate.schema.base import Strict
from ledgerrate.schema.edition import *  # noqa: F403
from ledgerrate.schema.edition import (
    DatasetCard,
    EditionManifest,
    PricingTable,
    Registration,
    SeedFile,
)
from ledgerrate.schema.escrow import *  # noqa: F403
from ledgerrate.schema.escrow import SeedLoss
from ledgerrate.schema.manual import *  # noqa: F403
from ledgerrate.schema.manual import ManualSitting, ManualTimesheet
from ledgerrate.schema.price_check import *  # noqa: F403
from ledgerrate.schema.price_check import PriceCheck
from ledgerrate.schema.publication import *  # noqa: F403
from ledgerrate.schema.publication import (
    CorrectedResults,
    EditionResults,
    ErrataFile,
    PublicationEntry,
    PublishedEdition,
)
from ledgerrate.schema.records import *  # noqa: F403
from ledgerrate.schema.records import GradeRecord, RunRecord, SpotcheckFlags, SpotcheckSample
from ledgerrate.schema.released import *  # noqa: F403
from ledgerrate.schema.reprice import *  # noqa: F403
from ledgerrate.schema.reprice import ReaderPrices
from ledgerrate.schema.site import *  # noqa: F403

FILE_MODELS: dict[str, type[Strict]] = {
    "edition.yaml": EditionManifest,
    "pricing.yaml": PricingTable,
    "registration.json": Registration,
    "seeds.json": SeedFile,
    "seeds-lost.json": SeedLoss,
    "card.json": DatasetCard,
    "run-record": RunRecord,
    "grade-record": GradeRecord,
    "errata.yaml": ErrataFile,
    "published.json": PublishedEdition,
    "publications.jsonl": PublicationEntry,
    "spotcheck-sample": SpotcheckSample,
    "spotcheck-flags": SpotcheckFlags,
    "results.json": EditionResults,
    "results-corrected.json": CorrectedResults,
    "price-check.json": PriceCheck,
    # Not an edition file: a reader's own prices for `results --prices` (repricing.md).
    "reader-prices.yaml": ReaderPrices,
    "manual-sitting": ManualSitting,
    "timing.yaml": ManualTimesheet,
}
