"""A small real edition: registered, run with the reference baselines, graded, published.

Built once per test session through the same stage functions the CLI calls; each tamper test
works on its own copy.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from ledgerrate.core.layout import INDEX_NAME
from ledgerrate.testing.reference_edition import build_reference_edition

WORKLOADS = ("triage.ap-inbox.v1", "query.nl2sql.v1")


@pytest.fixture(scope="session")
def published_edition(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("verify")
    monkey = pytest.MonkeyPatch()
    monkey.setenv("LEDGERRATE_PRIVATE_DIR", str(base / "private"))
    edition = build_reference_edition(
        base / "editions" / "e-verify",
        workloads=WORKLOADS,
        release=True,
        publish=True,
        store=True,
    )
    yield edition
    monkey.undo()


@pytest.fixture
def edition_copy(published_edition: Path, tmp_path: Path) -> Path:
    target = tmp_path / "editions" / published_edition.name
    shutil.copytree(published_edition, target)
    index = published_edition.parent / INDEX_NAME
    if index.exists():  # the index of publications lives beside the edition folders
        shutil.copyfile(index, target.parent / INDEX_NAME)
    return target


def write_erratum(edition: Path, files: list[str], why: str, figures: list[dict] | None = None):
    """Write the one erratum an operator publishes after regrading one triage batch by hand:
    it names `files` as corrected (and `figures`, when the correction moves one)."""
    entry: dict = {
        "id": "2026-11-30",
        "date": "2026-11-30",
        "title": "One triage batch regraded",
        "what_changed": "one batch's grade",
        "why": why,
        "files": files,
    }
    if figures:
        entry["figures"] = figures
    doc = {"edition": edition.name, "entries": [entry]}
    (edition / "errata.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
