"""`verify` holds every edition's price table to the freeze rule (standard §3), and a defect
of sealed bytes that an erratum discloses is reported as a disclosed exception naming it."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from ledgerrate.core.edition import load_edition
from ledgerrate.verify.price_times import check_price_times
from ledgerrate.verify.report import Report

EDITIONS = Path(__file__).resolve().parents[2] / "editions"
SEALED = ("edition.yaml", "pricing.yaml", "registration.json")


def _copy(edition: str, target: Path, errata: dict | None = None) -> Path:
    target.mkdir(parents=True)
    for name in SEALED:
        shutil.copyfile(EDITIONS / edition / name, target / name)
    if errata is not None:
        (target / "errata.yaml").write_text(yaml.safe_dump(errata))
    return target


def _erratum(**extra: object) -> dict:
    return {
        "id": "2026-12-05-10",
        "date": "2026-12-05",
        "title": "Price table times later than the registration (disclosed)",
        "what_changed": "Nothing; disclosed.",
        "why": "The table's times are later than the registration that sealed it.",
        **extra,
    }


def test_prices_after_registration_are_mismatches_without_an_erratum(tmp_path: Path) -> None:
    root = _copy("2026-12", tmp_path / "2026-12")
    report = Report()
    check_price_times(load_edition(root), report)
    assert {m.field for m in report.mismatches} == {
        "frozen_at",
        "compute.retrieved_at",
        "self_hosted.smollm2.retrieved_at",
    }
    frozen = next(m for m in report.mismatches if m.field == "frozen_at")
    assert frozen.file == "pricing.yaml"
    assert frozen.found.startswith("2026-12-01T21:45:00Z is after the registration")
    assert not report.exceptions and not report.ok


def test_an_erratum_that_does_not_disclose_it_changes_nothing(tmp_path: Path) -> None:
    errata = {"edition": "2026-12", "entries": [_erratum()]}
    root = _copy("2026-12", tmp_path / "2026-12", errata)
    report = Report()
    check_price_times(load_edition(root), report)
    assert len(report.mismatches) == 3 and not report.exceptions


def test_a_disclosing_erratum_makes_each_a_named_exception(tmp_path: Path) -> None:
    errata = {"edition": "2026-12", "entries": [_erratum(discloses=["price-times"])]}
    root = _copy("2026-12", tmp_path / "2026-12", errata)
    report = Report()
    check_price_times(load_edition(root), report)
    assert report.ok and report.checked["price times"] == 0  # disclosed is never "passed"
    assert len(report.exceptions) == 3
    assert all(line.endswith("(erratum 2026-12-05-10)") for line in report.exceptions)
    assert report.lines()[-1].endswith("3 disclosed exception(s)")


def test_bundled_editions(tmp_path: Path) -> None:
    for edition in ("2026-11", "2026-11-b"):
        report = Report()
        check_price_times(load_edition(EDITIONS / edition), report)
        assert report.ok and not report.exceptions and report.checked["price times"] == 1
    report = Report()
    check_price_times(load_edition(EDITIONS / "2026-12"), report)
    assert report.ok and len(report.exceptions) == 3, report.lines()
    assert "frozen_at: 2026-12-01T21:45:00Z is after the registration" in report.exceptions[0]


def test_an_erratum_without_disclosures_dumps_as_before() -> None:
    # An erratum's hash is the sha256 of its dump: the field must not appear in errata sealed
    # before it existed, or every sealed chain would break.
    from ledgerrate.core.io import load_model
    from ledgerrate.schema import ErrataFile

    for edition in ("2026-11", "2026-12"):
        errata = load_model(ErrataFile, EDITIONS / edition / "errata.yaml")
        for entry in errata.entries:
            dumped = entry.model_dump(mode="json")
            assert ("discloses" in dumped) == (entry.id == "2026-12-05-10"), entry.id
