"""Issue #14 points 3 and 4: dropped, duplicated and forged run records are named in their log.

Cherry-picking (drop a failing run and its grade, delete published.json, regenerate
results.json) must not end in VERIFIED, and a forged line must be blamed on the log and line
that holds it, with the rule it breaks, rather than on the figures it changes.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from ledgerrate.core.io import write_json
from ledgerrate.core.layout import INDEX_NAME
from ledgerrate.metrics.report import edition_results
from ledgerrate.run.rawlog import run_id
from ledgerrate.schema import RunRecord
from ledgerrate.verify.logs import LOGS, derived_run_id
from ledgerrate.verify.run import verify_path

pytestmark = pytest.mark.slow

CELL = ("triage.ap-inbox.v1", "reference", "single-shot")


def _run_log(edition: Path) -> Path:
    return edition.joinpath("runs", *CELL[:2], f"{CELL[2]}.jsonl")


def _grade_log(edition: Path) -> Path:
    return edition.joinpath("grades", *CELL[:2], f"{CELL[2]}.jsonl")


def _rel(edition: Path, path: Path) -> str:
    return path.relative_to(edition).as_posix()


def _log_mismatches(report, log: str) -> list:
    return [m for m in report.mismatches if m.file == log]


def test_cherry_picked_cell_names_the_missing_item(edition_copy: Path) -> None:
    runs, grades = _run_log(edition_copy), _grade_log(edition_copy)
    failing = {
        json.loads(line)["run_id"]
        for line in grades.read_text().splitlines()
        if json.loads(line)["outcome"] == "fail"
    }
    assert failing, "the fixture needs a failing run to drop"
    victim = next(
        json.loads(line)
        for line in runs.read_text().splitlines()
        if json.loads(line)["run_id"] in failing
    )
    for log in (runs, grades):
        kept = [ln for ln in log.read_text().splitlines() if victim["run_id"] not in ln]
        log.write_text("\n".join(kept) + "\n")
    (edition_copy / "published.json").unlink()
    (edition_copy.parent / INDEX_NAME).unlink()
    write_json(edition_copy / "results.json", edition_results(edition_copy))
    report = verify_path(edition_copy)
    assert not report.ok
    missing = [
        m
        for m in _log_mismatches(report, _rel(edition_copy, runs))
        if m.record == victim["item_id"]
    ]
    assert missing and "no final record" in missing[0].found, report.lines()


def test_duplicated_record_names_the_log_line_and_rule(edition_copy: Path) -> None:
    runs = _run_log(edition_copy)
    lines = runs.read_text().splitlines()
    runs.write_text("\n".join([*lines, lines[2]]) + "\n")
    report = verify_path(edition_copy)
    [dup] = [
        m for m in _log_mismatches(report, _rel(edition_copy, runs)) if "duplicated" in m.found
    ]
    assert dup.record == f"line {len(lines) + 1}" and "after line 3" in dup.found


def _forged(edition: Path, edit) -> tuple[str, int]:
    runs = _run_log(edition)
    lines = runs.read_text().splitlines()
    record = json.loads(lines[0])
    edit(record)
    runs.write_text("\n".join([*lines, json.dumps(record, sort_keys=True)]) + "\n")
    return _rel(edition, runs), len(lines) + 1


def test_forged_second_final_record_is_a_duplicate_item(edition_copy: Path) -> None:
    def second_attempt(record: dict) -> None:
        record["attempt"] = 2
        record["run_id"] = run_id(record["edition"], record["sitting"], *CELL, record["item_id"], 2)

    log, line = _forged(edition_copy, second_attempt)
    report = verify_path(edition_copy)
    assert any(
        m.record == f"line {line}" and "duplicate item in a sitting" in m.found
        for m in _log_mismatches(report, log)
    ), report.lines()


def test_forged_run_id_is_not_derivable(edition_copy: Path) -> None:
    def new_id(record: dict) -> None:
        record["attempt"] = 2
        record["run_id"] = "r-" + "ab" * 12

    log, line = _forged(edition_copy, new_id)
    report = verify_path(edition_copy)
    assert any(
        m.record == f"line {line}" and m.field.startswith("run_id")
        for m in _log_mismatches(report, log)
    ), report.lines()


def test_record_outside_the_window_is_named(edition_copy: Path) -> None:
    def late(record: dict) -> None:
        record["sitting"] = 2
        started = dt.datetime.fromisoformat(record["started_at"]) + dt.timedelta(days=30)
        record["started_at"] = started.isoformat()
        record["run_id"] = run_id(record["edition"], 2, *CELL, record["item_id"], 1)

    log, line = _forged(edition_copy, late)
    report = verify_path(edition_copy)
    assert any(
        m.record == f"line {line}" and "inside the window" in m.field
        for m in _log_mismatches(report, log)
    ), report.lines()
    # and sitting 2 holds one item only: the others are named as missing from it
    assert any(m.field == "sitting 2" for m in _log_mismatches(report, log))


def test_clean_edition_counts_the_log_rules(published_edition: Path) -> None:
    report = verify_path(published_edition)
    assert report.ok, report.lines()
    assert report.checked[LOGS] > 0


def test_verify_derives_run_ids_as_the_runner_does(published_edition: Path) -> None:
    records = [
        RunRecord.model_validate_json(line)
        for line in _run_log(published_edition).read_text().splitlines()
    ]
    for record in records:
        assert derived_run_id(record) == record.run_id
        assert derived_run_id(record) == run_id(
            record.edition, record.sitting, *CELL, record.item_id, record.attempt
        )
