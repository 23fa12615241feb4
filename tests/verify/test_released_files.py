"""verify makes every stored file of a released dataset again from its seed and compares them
byte for byte: an edited PDF is named even when the manifest was edited to match it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate import dataset_files
from ledgerrate.generate.stored_datasets import store_released
from ledgerrate.verify import released as released_check
from ledgerrate.verify.run import verify_path
from tests.released_kit import flip_one_byte, relist

pytestmark = pytest.mark.slow

WORKLOAD = "triage.ap-inbox.v1"
PDF = "pack.pdf"
CATEGORY = "released dataset files regenerated"


def _rendered(item: object) -> dict[str, bytes]:
    # Stands in for a board pack's PDFs (seconds per item with weasyprint): rendered on demand
    # from the item, covered by no registered hash.
    return {PDF: f"%PDF-1.7 rendered from {item.id}".encode()}  # type: ignore[attr-defined]


@pytest.fixture
def with_pdfs(edition_copy: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The edition with its datasets stored again, each item with a PDF rendered on demand."""
    for module in (dataset_files, released_check):
        monkeypatch.setattr(module, "on_demand_renderer", _on_demand)
    shutil.rmtree(EditionPaths(edition_copy).released_dir)
    assert store_released(edition_copy).written
    return edition_copy


def _on_demand(workload_id: str, _lookup: object = None):
    return _rendered if workload_id == WORKLOAD else None


def _mismatched(report) -> list[tuple[str, str]]:
    return [(m.file, m.field) for m in report.mismatches]


def test_the_stored_files_verify(published_edition: Path) -> None:
    report = verify_path(published_edition)
    assert report.ok, report.lines()
    stored = json.loads(EditionPaths(published_edition).released_manifest.read_text())
    files = sum(len(d["files"]) for d in stored["datasets"].values())
    # Each file compared with the one made from the seed, and each dataset's registered hash.
    assert report.checked[CATEGORY] == files + len(stored["datasets"]) > 2


def test_pdfs_rendered_on_demand_verify(with_pdfs: Path) -> None:
    report = verify_path(with_pdfs)
    assert report.ok, report.lines()
    assert (EditionPaths(with_pdfs).released(WORKLOAD) / "item-01" / PDF).is_file()


def test_one_pdf_byte_edited_with_the_manifest_is_named(with_pdfs: Path) -> None:
    rel = f"item-07/{PDF}"
    flip_one_byte(EditionPaths(with_pdfs).released(WORKLOAD) / rel, at=3)
    relist(with_pdfs, WORKLOAD, rel)
    report = verify_path(with_pdfs)
    assert not report.ok
    assert _mismatched(report) == [(f"released/{WORKLOAD}/{rel}", "bytes")]
    (line,) = [line for line in report.lines() if line.startswith("MISMATCH")]
    assert "made from the seed" in line and "first differing at byte 3" in line
    # Rendered by the libraries installed here: the stored bytes are not the released dataset's.
    assert any("rendered with the same libraries as here" in note for note in report.notes)


def test_one_pdf_byte_edited_alone_is_named_twice(with_pdfs: Path) -> None:
    """Unlike its manifest entry, and unlike the file its seed makes."""
    rel = f"item-02/{PDF}"
    flip_one_byte(EditionPaths(with_pdfs).released(WORKLOAD) / rel, at=3)
    report = verify_path(with_pdfs)
    assert _mismatched(report) == [
        ("released/manifest.json", rel),
        (f"released/{WORKLOAD}/{rel}", "bytes"),
    ]


def test_a_mismatch_names_the_libraries_that_rendered_otherwise(with_pdfs: Path) -> None:
    rel = f"item-04/{PDF}"
    flip_one_byte(EditionPaths(with_pdfs).released(WORKLOAD) / rel, at=3)
    manifest = relist(with_pdfs, WORKLOAD, rel)
    manifest["datasets"][WORKLOAD]["rendered_by"]["stack"]["weasyprint"] = "61.0"
    EditionPaths(with_pdfs).released_manifest.write_text(json.dumps(manifest))
    report = verify_path(with_pdfs)
    assert not report.ok
    (note,) = [n for n in report.notes if n.startswith(WORKLOAD)]
    assert "weasyprint 61.0 (here " in note and "verify again with the recorded versions" in note


def test_missing_and_extra_files_are_named(with_pdfs: Path) -> None:
    folder = EditionPaths(with_pdfs).released(WORKLOAD)
    (folder / "item-09" / PDF).unlink()
    (folder / "item-09" / "extra.pdf").write_bytes(b"%PDF not from the seed")
    report = verify_path(with_pdfs)
    assert set(_mismatched(report)) == {
        (f"released/{WORKLOAD}/item-09/extra.pdf", "file"),
        (f"released/{WORKLOAD}/item-09/{PDF}", "file"),
    }


def test_a_manifest_that_does_not_parse_is_a_mismatch(with_pdfs: Path) -> None:
    EditionPaths(with_pdfs).released_manifest.write_text('{"edition": "e-verify"}')
    report = verify_path(with_pdfs)
    assert [m.file for m in report.mismatches] == ["released/manifest.json"]
