"""The evidence bundle's format: its name, which edition files it carries, and its index files.

Shared by the writer (`publish/bundle.py`) and the reader (`verify/bundle.py`), which otherwise
share no code: the verifier must not check a bundle with the code that wrote it.
"""

from __future__ import annotations

import re

BUNDLE_NAME = re.compile(
    r"^ledgerrate-evidence-(?P<edition>[A-Za-z0-9._-]+)-(?P<sha>[0-9a-f]{64})\.tar\.gz$"
)
INCLUDED_TOP = (
    "edition.yaml",
    "pricing.yaml",
    "registration.json",
    "seeds.json",
    "seeds.escrow.age",
    "seeds-lost.json",
    "results.json",
    "results-current.json",
    "errata.yaml",
    "published.json",
)
INCLUDED_DIRS = (
    "datasets",
    "runs",
    "bodies",
    "probes",
    "grades",
    "spotchecks",
    "reproductions",
    "incidents",
)
STATEMENT = "statement.intoto.json"
SUMS = "SHA256SUMS"
