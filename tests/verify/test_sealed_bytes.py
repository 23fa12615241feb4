"""Issue #44 points 1 and 8: sealed bytes are never written over, and an erratum seals the bytes
of every file it names.

A correction used to rewrite the sealed results.json in place, and an erratum naming a grade log
accepted any later bytes of it: an edited check or a flipped superseded grade still verified.
Each test works on a copy of a small published edition, or of the bundled 2026-11.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from ledgerrate.core import layout, seal
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_file
from ledgerrate.metrics.report import edition_results
from ledgerrate.publish.published import ensure_published
from ledgerrate.verify.run import verify_path
from tests.verify.conftest import write_erratum

pytestmark = pytest.mark.slow

REPO_EDITIONS = Path(__file__).resolve().parents[2] / "editions"
CURRENT = "results-current.json"
WORKLOAD = "triage.ap-inbox.v1"
LOG = f"grades/{WORKLOAD}/reference/single-shot.jsonl"
NL2SQL = "grades/query.nl2sql.v1/reference/single-shot.jsonl"


def _rewrite(log: Path, change) -> str:
    """Apply `change` to the first record it accepts (returns True); the record's run id."""
    lines = log.read_text().splitlines()
    for index, line in enumerate(lines):
        record = json.loads(line)
        if change(record):
            lines[index] = json.dumps(record, sort_keys=True, separators=(",", ":"))
            log.write_text("\n".join(lines) + "\n")
            return record["run_id"]
    raise AssertionError(f"no record of {log} to change")


def _flip_failing(record: dict) -> bool:
    if record["outcome"] != "fail":
        return False
    record["outcome"] = "pass"
    return True


def _corrected(edition: Path) -> None:
    """Regrade one run by hand and publish the correction as an erratum, as an operator does."""
    _rewrite(edition / LOG, _flip_failing)
    write_erratum(edition, [LOG, "results.json"], "a test of the seal")
    ensure_published(edition, edition_results(edition))


def _seal_mismatches(report) -> list:
    """Mismatches of sealed bytes and figures (a grade flipped by hand is also reported as not
    re-derived; that is another check's business)."""
    return [
        m
        for m in report.mismatches
        if "sealed" in m.field or "published.json" in m.field or m.file in ("results.json", CURRENT)
    ]


def _published(edition: Path) -> dict:
    return json.loads((edition / "published.json").read_text())


def test_a_correction_never_writes_over_the_sealed_results(edition_copy: Path) -> None:
    sealed = (edition_copy / "results.json").read_bytes()
    _corrected(edition_copy)
    assert (edition_copy / "results.json").read_bytes() == sealed
    assert (
        sha256_file(edition_copy / "results.json")
        == _published(edition_copy)["files"]["results.json"]
    )
    current = json.loads((edition_copy / CURRENT).read_text())
    assert current == edition_results(edition_copy).model_dump(mode="json")
    assert current != json.loads(sealed)
    index = edition_copy.parent / layout.INDEX_NAME
    [line] = [ln for ln in seal.read_index(index) if ln.entry.files]
    assert set(line.entry.files) == {LOG, CURRENT}
    assert line.entry.files[LOG].sha256 == sha256_file(edition_copy / LOG)
    assert _seal_mismatches(verify_path(edition_copy)) == []


def test_a_rewritten_sealed_results_file_is_refused(edition_copy: Path) -> None:
    _corrected(edition_copy)
    shutil.copyfile(edition_copy / CURRENT, edition_copy / "results.json")
    assert [m.file for m in _seal_mismatches(verify_path(edition_copy))] == ["results.json"]
    with pytest.raises(UsageProblem, match=r"results\.json differs from the file published\.json"):
        ensure_published(edition_copy, edition_results(edition_copy))


def test_an_edited_check_in_a_corrected_log_fails_verify_and_build(edition_copy: Path) -> None:
    _corrected(edition_copy)

    def edit_detail(record: dict) -> bool:
        if not record.get("checks"):
            return False
        record["checks"][0]["detail"] = f"{record['checks'][0].get('detail') or ''} (edited)"
        return True

    _rewrite(edition_copy / LOG, edit_detail)
    report = verify_path(edition_copy)
    assert any(m.file == LOG and "sealed" in m.field for m in report.mismatches), report.mismatches
    with pytest.raises(UsageProblem, match="changed after an erratum sealed its bytes"):
        ensure_published(edition_copy, edition_results(edition_copy))


def test_a_later_erratum_seals_new_bytes_of_a_named_log(edition_copy: Path) -> None:
    """Holding a log to its sealed bytes does not freeze it: a new erratum naming it seals the
    corrected bytes, and a log may grow (append-only) without one."""
    _corrected(edition_copy)
    run_id = _rewrite(edition_copy / LOG, _flip_failing)
    doc = yaml.safe_load((edition_copy / "errata.yaml").read_text())
    doc["entries"].append(
        {
            **doc["entries"][0],
            "id": "2026-12-01",
            "date": "2026-12-01",
            "what_changed": f"the grade of {run_id}",
        }
    )
    (edition_copy / "errata.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    ensure_published(edition_copy, edition_results(edition_copy))
    latest = seal.read_index(edition_copy.parent / layout.INDEX_NAME)[-1].entry
    assert latest.files is not None
    assert latest.files[LOG].sha256 == sha256_file(edition_copy / LOG)
    assert _seal_mismatches(verify_path(edition_copy)) == []
    with (edition_copy / LOG).open("a") as log:  # a new sitting's records are appended
        log.write((edition_copy / LOG).read_text().splitlines()[0] + "\n")
    assert _seal_mismatches(verify_path(edition_copy)) == []


def test_a_superseded_grade_is_re_derived(edition_copy: Path) -> None:
    """A run graded twice: the first record is superseded, and still re-derived."""
    log = edition_copy / LOG
    first = json.loads(log.read_text().splitlines()[0])
    with log.open("a") as handle:  # the same verdict as a second revision
        handle.write(json.dumps({**first, "revision": 2}, sort_keys=True) + "\n")
    assert verify_path(edition_copy).ok

    def flip_first(record: dict) -> bool:
        if record["run_id"] != first["run_id"] or record["revision"] != 1:
            return False
        record["outcome"] = "fail" if record["outcome"] == "pass" else "pass"
        return True

    _rewrite(log, flip_first)
    report = verify_path(edition_copy)
    assert any(
        m.file == LOG and m.record == first["run_id"] and m.field == "outcome"
        for m in report.mismatches
    ), report.mismatches


@pytest.fixture
def bundled_2026_11(tmp_path: Path) -> Path:
    target = tmp_path / "editions" / "2026-11"
    shutil.copytree(REPO_EDITIONS / "2026-11", target)
    shutil.copyfile(REPO_EDITIONS / layout.INDEX_NAME, target.parent / layout.INDEX_NAME)
    return target


def test_the_bundled_corrected_grade_log_is_held_to_its_sealed_bytes(
    bundled_2026_11: Path,
) -> None:
    """The issue's case: a superseded (revision-1) grade flipped in a log an erratum names."""
    log = bundled_2026_11 / NL2SQL

    def flip_superseded(record: dict) -> bool:
        if record["revision"] != 1:
            return False
        record["outcome"] = "fail" if record["outcome"] == "pass" else "pass"
        return True

    run_id = _rewrite(log, flip_superseded)
    report = verify_path(bundled_2026_11)
    mine = [m for m in report.mismatches if m.file == NL2SQL]
    assert any("sealed" in m.field for m in mine), report.mismatches
    assert any(m.record == run_id and m.field == "outcome" for m in mine), report.mismatches


def test_an_erratum_naming_unchanged_figures_seals_them_beside_the_sealed_file(
    edition_copy: Path,
) -> None:
    sealed = (edition_copy / "results.json").read_bytes()
    doc = {
        "edition": edition_copy.name,
        "entries": [
            {
                "id": "2026-11-30",
                "date": "2026-11-30",
                "title": "A figure restated",
                "what_changed": "nothing in the figures",
                "why": "a test of the seal",
                "files": ["results.json"],
            }
        ],
    }
    (edition_copy / "errata.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    ensure_published(edition_copy, edition_results(edition_copy))
    assert (edition_copy / "results.json").read_bytes() == sealed
    held = seal.read_index(edition_copy.parent / layout.INDEX_NAME)[-1].entry.files
    assert held is not None and held[CURRENT].sha256 == sha256_file(edition_copy / CURRENT)
    assert _seal_mismatches(verify_path(edition_copy)) == []


def test_corrected_figures_no_erratum_names_are_refused(edition_copy: Path) -> None:
    shutil.copyfile(edition_copy / "results.json", edition_copy / CURRENT)
    assert [m.file for m in _seal_mismatches(verify_path(edition_copy))] == [CURRENT]
    with pytest.raises(UsageProblem, match="no erratum names results"):
        ensure_published(edition_copy, edition_results(edition_copy))


def test_the_bundle_of_an_edition_with_stored_bodies_verifies(tmp_path: Path) -> None:
    """2026-12's run logs keep their prompts in bodies/: its evidence bundle carries them (and
    probes/), so every sealed file in it is the sealed bytes."""
    from ledgerrate.publish.bundle import write_bundle

    target = tmp_path / "editions" / "2026-12"
    shutil.copytree(REPO_EDITIONS / "2026-12", target)
    shutil.copyfile(REPO_EDITIONS / layout.INDEX_NAME, target.parent / layout.INDEX_NAME)
    report = verify_path(write_bundle(target, tmp_path))
    assert report.ok, report.mismatches[:5]
