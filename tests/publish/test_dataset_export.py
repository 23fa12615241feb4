"""A released dataset is published in its canonical bytes, so its hash needs no LedgerRate."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import rfc8785

from ledgerrate.publish.downloads import write_downloads
from ledgerrate.publish.load import load_edition
from ledgerrate.testing.reference_edition import build_reference_edition


def test_dataset_json_is_the_canonical_form_of_the_registered_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(tmp_path / "private"))
    folder = build_reference_edition(
        tmp_path / "editions" / "e-export", workloads=("triage.ap-inbox.v1",), release=True
    )
    edition = load_edition(folder)
    assert edition.registration is not None and edition.registration.hash_scheme == 2
    write_downloads(edition, tmp_path / "data")

    published = (
        tmp_path / "data" / "datasets" / "triage.ap-inbox.v1" / "dataset.json"
    ).read_bytes()
    registered = edition.registration.workloads["triage.ap-inbox.v1"].dataset_hash
    # Step 3 of the published recipe: the file's own sha256 is the registered hash ...
    assert hashlib.sha256(published).hexdigest() == registered
    # ... and step 4: an independent RFC 8785 implementation re-serialises it to the same bytes.
    assert rfc8785.dumps(json.loads(published)) == published
    assert len(json.loads(published)["items"]) == 15
