"""Issue #14 points 1, 2 and 5: errata and publications are sealed outside the edition folder.

Each test tampers with a copy of a small published edition the way an adversary would (remove
or edit an erratum, delete published.json, hand out a bundle without its sealed files) and
checks that both `verify` and the build refuse it, naming the file and the erratum.
"""

from __future__ import annotations

import datetime as dt
import json
import tarfile
from pathlib import Path

import pytest
import yaml

from ledgerrate.core import layout, seal
from ledgerrate.core.errors import UsageProblem
from ledgerrate.metrics.report import edition_results
from ledgerrate.publish.bundle import write_bundle
from ledgerrate.publish.published import ensure_published
from ledgerrate.verify.run import verify_path

pytestmark = pytest.mark.slow

REPO_EDITIONS = Path(__file__).resolve().parents[2] / "editions"


def _erratum(erratum_id: str, old: str = "0.5") -> dict:
    return {
        "id": erratum_id,
        "date": erratum_id[:10],
        "title": "A correction",
        "what_changed": "a figure",
        "why": "a test of the seal",
        "figures": [
            {
                "workload": "triage.ap-inbox.v1",
                "model": "reference",
                "mode": "single-shot",
                "field": "pass_rate",
                "old": old,
                "new": "0.6",
            }
        ],
    }


def _write_errata(edition: Path, entries: list[dict]) -> None:
    doc = {"edition": edition.name, "entries": entries}
    (edition / "errata.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))


def _sealed_with_erratum(edition: Path) -> None:
    """Append an erratum and let the build seal it, as publishing a correction does."""
    _write_errata(edition, [_erratum("2026-11-30")])
    ensure_published(edition, edition_results(edition))
    [line] = [ln for ln in seal.read_index(edition.parent / layout.INDEX_NAME) if ln.entry.errata]
    assert [e.id for e in line.entry.errata] == ["2026-11-30"]


def _mismatches(report, file: str) -> list:
    return [m for m in report.mismatches if m.file == file]


def test_removed_erratum_fails_verify_and_build(edition_copy: Path) -> None:
    _sealed_with_erratum(edition_copy)
    assert verify_path(edition_copy).ok
    (edition_copy / "errata.yaml").unlink()
    report = verify_path(edition_copy)
    [found] = _mismatches(report, "errata.yaml")
    assert found.record == "2026-11-30" and "removed" in found.found
    with pytest.raises(UsageProblem) as refused:
        ensure_published(edition_copy, edition_results(edition_copy))
    assert any("erratum 2026-11-30 was removed" in line for line in refused.value.lines)


def test_edited_erratum_fails_verify_and_build(edition_copy: Path) -> None:
    _sealed_with_erratum(edition_copy)
    _write_errata(edition_copy, [_erratum("2026-11-30", old="0.9")])
    report = verify_path(edition_copy)
    assert any(
        m.record == "2026-11-30" and "edited" in m.found for m in _mismatches(report, "errata.yaml")
    ), report.lines()
    with pytest.raises(UsageProblem) as refused:
        ensure_published(edition_copy, edition_results(edition_copy))
    assert any("erratum 2026-11-30 was edited" in line for line in refused.value.lines)


def test_appended_erratum_is_sealed_by_the_next_build(edition_copy: Path) -> None:
    _sealed_with_erratum(edition_copy)
    _write_errata(edition_copy, [_erratum("2026-11-30"), _erratum("2026-12-01")])
    report = verify_path(edition_copy)
    assert report.ok, report.lines()
    assert any("2026-12-01 is not sealed" in note for note in report.notes)
    ensure_published(edition_copy, edition_results(edition_copy))
    lines = seal.read_index(edition_copy.parent / layout.INDEX_NAME)
    assert [e.id for e in lines[-1].entry.errata] == ["2026-11-30", "2026-12-01"]
    assert seal.chain_problems(lines) == []


def test_deleted_published_json_fails_when_the_index_lists_the_edition(
    edition_copy: Path,
) -> None:
    (edition_copy / "published.json").unlink()
    report = verify_path(edition_copy)
    [found] = _mismatches(report, "published.json")
    assert found.found == "missing" and "publications.jsonl line" in found.expected
    with pytest.raises(UsageProblem):
        ensure_published(edition_copy, edition_results(edition_copy))


def test_deleted_published_json_fails_once_the_window_closed(edition_copy: Path) -> None:
    (edition_copy.parent / layout.INDEX_NAME).unlink()  # no index to lean on
    (edition_copy / "published.json").unlink()
    manifest = yaml.safe_load((edition_copy / "edition.yaml").read_text())
    closes = dt.datetime.fromisoformat(manifest["window"]["closes"])
    from ledgerrate.core.edition import load_edition
    from ledgerrate.verify.publication import check_publication
    from ledgerrate.verify.report import Report

    edition = load_edition(edition_copy)
    report = Report()
    later = closes + dt.timedelta(minutes=1)
    check_publication(
        edition.paths, edition.manifest, report, in_bundle=False, expect=None, now=later
    )
    [found] = _mismatches(report, "published.json")
    assert "window has closed" in found.expected


def test_expect_accepts_the_digest_and_its_extensions_only(edition_copy: Path) -> None:
    index = edition_copy.parent / layout.INDEX_NAME
    [first] = seal.read_index(index)
    assert verify_path(edition_copy, expect=first.entry.digest).ok
    _sealed_with_erratum(edition_copy)
    later = verify_path(edition_copy, expect=first.entry.digest)  # the reader saw d0
    assert later.ok and any("appended since" in n for n in later.notes)
    wrong = verify_path(edition_copy, expect="0" * 64)
    assert any(m.field == "publication digest (--expect)" for m in wrong.mismatches)


def test_bundle_without_sealed_files_fails(edition_copy: Path, tmp_path: Path) -> None:
    (edition_copy / "published.json").unlink()
    (edition_copy / "results.json").unlink()
    (edition_copy.parent / layout.INDEX_NAME).unlink()
    bundle = write_bundle(edition_copy, tmp_path / "bundle")
    report = verify_path(bundle)
    assert {"published.json", "results.json"} <= {m.file for m in report.mismatches}
    assert not report.ok


def test_first_build_bundles_the_sealed_files(edition_copy: Path, tmp_path: Path) -> None:
    """The first build after the window closed links a bundle that already holds
    published.json and results.json, and a second build links the very same bundle."""
    from ledgerrate.publish.build import build_site

    for name in ("published.json", "results.json"):
        (edition_copy / name).unlink()
    (edition_copy.parent / layout.INDEX_NAME).unlink()
    manifest_path = edition_copy / "edition.yaml"
    manifest = yaml.safe_load(manifest_path.read_text())
    # An edition whose window already closed (the build does not re-check the registration).
    opens = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(hours=3)
    manifest["window"] = {
        "opens": opens.isoformat(),
        "closes": (opens + dt.timedelta(hours=1)).isoformat(),
    }
    manifest_path.write_text(yaml.safe_dump(manifest, sort_keys=False))
    site = build_site(edition_copy.parent, tmp_path / "out")
    [bundle] = sorted(site.rglob("ledgerrate-evidence-*.tar.gz"))
    with tarfile.open(bundle) as tar:
        names = {m.name.split("/", 1)[1] for m in tar.getmembers()}
    assert {"published.json", "results.json", layout.INDEX_NAME} <= names
    assert (site / layout.INDEX_NAME).is_file()
    again = build_site(edition_copy.parent, tmp_path / "out")
    assert [b.name for b in again.rglob("ledgerrate-evidence-*.tar.gz")] == [bundle.name]


def test_bundled_editions_are_in_the_index() -> None:
    lines = seal.read_index(REPO_EDITIONS / layout.INDEX_NAME)
    assert seal.chain_problems(lines) == []
    for edition in ("2026-11", "2026-11-b"):
        mine = seal.for_edition(lines, edition)
        assert mine, edition
        root = REPO_EDITIONS / edition
        from ledgerrate.core.io import load_model
        from ledgerrate.schema import ErrataFile

        errata = (
            load_model(ErrataFile, root / "errata.yaml").entries
            if (root / "errata.yaml").exists()
            else []
        )
        assert seal.sealed_problems(mine[-1].entry, errata) == []
        published = seal.published_sha(root)
        assert mine[-1].entry.published_json == published
        assert (
            mine[-1].entry.digest == seal.chain(published, errata[: len(mine[-1].entry.errata)])[-1]
        )
    assert json.loads((REPO_EDITIONS / layout.INDEX_NAME).read_text().splitlines()[0])
