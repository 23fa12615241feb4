"""Released datasets stored at `seeds release`: made once, published by `build` as stored after a
cheap check against their manifest and the registration, never rendered again by a build."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from ledgerrate.core import edition as core_edition
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.io import FileProblem
from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate import dataset_files
from ledgerrate.generate.release import release_edition
from ledgerrate.generate.stored_datasets import store_released
from ledgerrate.publish import downloads as downloads_mod
from ledgerrate.publish.cache import BuildCache
from ledgerrate.publish.downloads import regenerate_released, write_downloads
from ledgerrate.publish.load import load_edition
from tests.publish.factory import private_reference_edition
from tests.released_kit import flip_one_byte, relist

WORKLOAD = "triage.ap-inbox.v1"
PDF = "pack.pdf"


def _rendered(item: object) -> dict[str, bytes]:
    # Stands in for a board pack's PDFs: a file rendered on demand from the item, which no
    # registered hash covers (weasyprint would take seconds per item).
    return {PDF: f"%PDF-1.7 rendered from {item.id}".encode()}  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An edition whose seeds were released before datasets were stored."""
    return private_reference_edition(tmp_path_factory, "e-stored", [WORKLOAD])


@pytest.fixture(autouse=True)
def _renders_on_demand(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dataset_files, "on_demand_renderer", lambda *_: _rendered)


def _copy(edition: Path, tmp_path: Path) -> Path:
    target = tmp_path / "editions" / edition.name
    shutil.copytree(edition, target)
    return target


def _published(dest: Path) -> dict[str, bytes]:
    folder = dest / "datasets" / WORKLOAD
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "card.json"
    }


@pytest.fixture
def stored(released: Path, tmp_path: Path) -> Path:
    edition = _copy(released, tmp_path)
    done = store_released(edition)
    assert done.written == [WORKLOAD] and not done.kept and not done.not_stored
    return edition


def test_the_store_is_what_a_regenerating_build_publishes(
    released: Path, stored: Path, tmp_path: Path
) -> None:
    paths = EditionPaths(stored)
    manifest = json.loads(paths.released_manifest.read_text())
    listed = manifest["datasets"][WORKLOAD]["files"]
    on_disk = {
        p.relative_to(paths.released(WORKLOAD)).as_posix(): p.read_bytes()
        for p in paths.released(WORKLOAD).rglob("*")
        if p.is_file()
    }
    assert listed == {
        rel: {"sha256": sha256_bytes(b), "size": len(b)} for rel, b in on_disk.items()
    }
    assert sum(rel.endswith(f"/{PDF}") for rel in on_disk) == 15
    assert "weasyprint" in manifest["datasets"][WORKLOAD]["rendered_by"]["stack"]
    # The edition released before datasets were stored: its build regenerates the same bytes.
    write_downloads(load_edition(released), tmp_path / "regenerated")
    assert _published(tmp_path / "regenerated") == on_disk


def test_a_build_publishes_the_stored_bytes_and_renders_nothing(
    stored: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*_: object) -> None:
        raise AssertionError("a stored dataset was made again")

    monkeypatch.setattr(downloads_mod, "regenerate", never)
    cache = BuildCache.open(tmp_path / "cache")
    edition = load_edition(stored)
    regenerate_released([edition], cache)
    section = write_downloads(edition, tmp_path / "out", cache)
    assert not section.dataset_notes
    assert "dataset" not in cache.misses and "dataset" not in cache.hits
    folder = EditionPaths(stored).released(WORKLOAD)
    assert _published(tmp_path / "out") == {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def test_a_stored_file_unlike_its_manifest_stops_the_build_naming_it(
    stored: Path, tmp_path: Path
) -> None:
    flip_one_byte(EditionPaths(stored).released(WORKLOAD) / "item-03" / PDF)
    with pytest.raises(UsageProblem) as raised:
        write_downloads(load_edition(stored), tmp_path / "out")
    assert f"released/{WORKLOAD}/item-03/{PDF}" in str(raised.value)
    assert "restore the file" in str(raised.value)


def test_hashed_content_edited_with_its_manifest_still_stops_the_build(
    stored: Path, tmp_path: Path
) -> None:
    """The manifest is not sealed, but the registration is: the dataset's content must hash to
    the registered dataset hash, whatever the manifest says."""
    content = EditionPaths(stored).released(WORKLOAD) / "dataset.json"
    content.write_bytes(content.read_bytes().replace(b'"id":"item-01"', b'"id":"item-99"', 1))
    relist(stored, WORKLOAD, "dataset.json")
    with pytest.raises(UsageProblem, match=f"{WORKLOAD}/dataset.json: missing, or not the regist"):
        write_downloads(load_edition(stored), tmp_path / "out")


def test_a_seed_that_does_not_open_its_commitment_publishes_no_stored_file(
    stored: Path, tmp_path: Path
) -> None:
    seeds = EditionPaths(stored).seeds
    doc = json.loads(seeds.read_text())
    doc["seeds"][WORKLOAD]["seed"] += 1
    seeds.write_text(json.dumps(doc))
    section = write_downloads(load_edition(stored), tmp_path / "out")
    (note,) = section.dataset_notes
    assert note.startswith(f"{WORKLOAD}: dataset not published: ") and "commitment" in note
    assert _published(tmp_path / "out") == {}


def test_a_stored_file_must_not_be_a_link(stored: Path, tmp_path: Path) -> None:
    """The edition folder is untrusted: a link would publish a file of the building machine."""
    target = EditionPaths(stored).released(WORKLOAD) / "item-02" / PDF
    outside = tmp_path / "outside.pdf"
    outside.write_bytes(target.read_bytes())  # the same bytes: the manifest cannot tell
    target.unlink()
    os.symlink(outside, target)
    with pytest.raises(UsageProblem, match="symbolic link"):
        write_downloads(load_edition(stored), tmp_path / "out")


def test_a_manifest_naming_a_path_outside_its_folder_does_not_load(
    stored: Path, tmp_path: Path
) -> None:
    paths = EditionPaths(stored)
    manifest = json.loads(paths.released_manifest.read_text())
    files = manifest["datasets"][WORKLOAD]["files"]
    files["../../registration.json"] = files.pop("dataset.json")
    paths.released_manifest.write_text(json.dumps(manifest))
    with pytest.raises(FileProblem, match=re.escape("no `.` or `..` segment")):
        write_downloads(load_edition(stored), tmp_path / "out")


def test_release_again_stores_only_what_is_missing(
    released: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`seeds release` of an edition already released stores its datasets, once."""
    edition = _copy(released, tmp_path)
    after = core_edition.load_edition(edition).manifest.window.closes
    first = release_edition(edition, now=after)
    assert first.seeds.source == "already released" and first.datasets.written == [WORKLOAD]
    paths = EditionPaths(edition)
    stamps = {p: p.stat().st_mtime_ns for p in paths.released_dir.rglob("*") if p.is_file()}

    def never(*_: object) -> None:
        raise AssertionError("a stored dataset was made again")

    monkeypatch.setattr("ledgerrate.generate.stored_datasets.regenerate", never)
    again = release_edition(edition, now=after)
    assert again.datasets.written == [] and again.datasets.kept == [WORKLOAD]
    assert again.datasets.files == first.datasets.files == 16  # 15 PDFs and dataset.json
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    # A damaged store is reported, never written over: the stored bytes are the published ones.
    flip_one_byte(paths.released(WORKLOAD) / "item-05" / PDF)
    with pytest.raises(UsageProblem, match=f"item-05/{PDF}"):
        release_edition(edition, now=after)
