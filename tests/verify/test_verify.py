"""Tamper tests: one changed byte or digit anywhere makes verify fail and name it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledgerrate.cli import app
from ledgerrate.core import forked
from ledgerrate.core.errors import UsageProblem
from ledgerrate.metrics.report import edition_results
from ledgerrate.publish.bundle import write_bundle
from ledgerrate.publish.published import ensure_published
from ledgerrate.verify import evidence
from ledgerrate.verify.run import verify_path

pytestmark = pytest.mark.slow


def _mismatch_files(report) -> set[str]:
    return {m.file for m in report.mismatches}


def _first_log(root: Path, kind: str) -> Path:
    return sorted((root / kind).rglob("*.jsonl"))[0]


def _edit_json_line(path: Path, edit) -> None:
    lines = path.read_text().splitlines()
    record = json.loads(lines[0])
    edit(record)
    lines[0] = json.dumps(record, sort_keys=True, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")


def test_clean_edition_verifies(published_edition: Path) -> None:
    report = verify_path(published_edition)
    assert report.ok, report.lines()
    verdict = report.lines()[-1]
    assert verdict.startswith("VERIFIED")
    for category in (
        "costs recomputed",
        "grades re-derived",
        "prompts built from the items",
        "seed commitments",
        "published figures recomputed",
    ):
        assert report.checked[category] > 0, category


def test_cli_verify_exit_codes(published_edition: Path, edition_copy: Path) -> None:
    ok = CliRunner().invoke(app, ["verify", str(published_edition)])
    assert ok.exit_code == 0 and "VERIFIED" in ok.output
    (edition_copy / "pricing.yaml").write_text(
        (edition_copy / "pricing.yaml").read_text().replace("0.0475", "0.0476")
    )
    bad = CliRunner().invoke(app, ["verify", str(edition_copy)])
    assert bad.exit_code == 1 and "MISMATCH" in bad.output and "FAILED" in bad.output


def test_flipped_byte_in_raw_log(edition_copy: Path) -> None:
    log = _first_log(edition_copy, "runs")
    data = bytearray(log.read_bytes())
    index = data.index(b'"latency_s":') + len(b'"latency_s":')
    data[index] = ord("9") if data[index] != ord("9") else ord("8")
    log.write_bytes(bytes(data))
    report = verify_path(edition_copy)
    assert not report.ok
    assert log.relative_to(edition_copy).as_posix() in _mismatch_files(report)


def test_changed_cost_digit_in_raw_log(edition_copy: Path) -> None:
    log = _first_log(edition_copy, "runs")

    def bump(record: dict) -> None:
        value = record["cost"]["compute_usd"]
        record["cost"]["compute_usd"] = value[:-1] + ("1" if value[-1] != "1" else "2")

    _edit_json_line(log, bump)
    report = verify_path(edition_copy)
    fields = {(m.file, m.field) for m in report.mismatches}
    assert (log.relative_to(edition_copy).as_posix(), "cost.compute_usd") in fields


def test_flipped_grade(edition_copy: Path) -> None:
    log = _first_log(edition_copy, "grades")

    def flip(record: dict) -> None:
        record["outcome"] = "fail" if record["outcome"] == "pass" else "pass"

    _edit_json_line(log, flip)
    report = verify_path(edition_copy)
    assert any(
        m.file == log.relative_to(edition_copy).as_posix() and m.field == "outcome"
        for m in report.mismatches
    ), report.lines()


def test_forked_regrading_names_the_same_flipped_grade(
    edition_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The re-grading on worker processes (ledgerrate/core/forked.py) reports exactly what the
    serial re-grading does, the adversary's flipped grade included."""
    log = _first_log(edition_copy, "grades")
    _edit_json_line(log, lambda r: r.update(outcome="fail" if r["outcome"] == "pass" else "pass"))
    serial = verify_path(edition_copy).lines()
    monkeypatch.setenv(forked.WORKERS_ENV, "2")
    monkeypatch.setattr(evidence, "_BATCH", 4)  # many jobs, on two workers
    assert verify_path(edition_copy).lines() == serial
    assert any("outcome" in line and log.name in line for line in serial), serial


def test_changed_price_table(edition_copy: Path) -> None:
    pricing = edition_copy / "pricing.yaml"
    pricing.write_text(pricing.read_text().replace("0.0475", "0.0575"))
    report = verify_path(edition_copy)
    text = "\n".join(report.lines())
    assert "pricing.yaml changed since registration" in text
    assert "pricing.yaml" in _mismatch_files(report)


def test_changed_seed(edition_copy: Path) -> None:
    seeds = edition_copy / "seeds.json"
    doc = json.loads(seeds.read_text())
    first = sorted(doc["seeds"])[0]
    doc["seeds"][first]["seed"] += 1
    seeds.write_text(json.dumps(doc))
    report = verify_path(edition_copy)
    assert any(m.file == "seeds.json" and m.record == first for m in report.mismatches)


def test_changed_results_figure(edition_copy: Path) -> None:
    results = edition_copy / "results.json"
    text = results.read_text()
    changed = re.sub(
        r'"spend_usd": "(\d)', lambda m: f'"spend_usd": "{(int(m[1]) + 1) % 10}', text, count=1
    )
    assert changed != text
    results.write_text(changed)
    report = verify_path(edition_copy)
    assert any(m.file == "results.json" and m.field == "spend_usd" for m in report.mismatches)


def test_changed_registration(edition_copy: Path) -> None:
    registration = edition_copy / "registration.json"
    doc = json.loads(registration.read_text())
    first = sorted(doc["workloads"])[0]
    digest = doc["workloads"][first]["grader_hash"]
    doc["workloads"][first]["grader_hash"] = ("0" if digest[0] != "0" else "1") + digest[1:]
    registration.write_text(json.dumps(doc, indent=2))
    report = verify_path(edition_copy)
    text = "\n".join(report.lines())
    assert "grader hash changed since registration" in text


def test_bundle_is_deterministic_and_verifies(published_edition: Path, tmp_path: Path) -> None:
    first = write_bundle(published_edition, tmp_path / "a")
    second = write_bundle(published_edition, tmp_path / "b")
    assert first.name == second.name
    assert first.read_bytes() == second.read_bytes()
    report = verify_path(first)
    assert report.ok, report.lines()


def test_tampered_bundle_fails(published_edition: Path, tmp_path: Path) -> None:
    bundle = write_bundle(published_edition, tmp_path)
    renamed = bundle.with_name(bundle.name.replace(bundle.name[-20:-7], "0" * 13))
    bundle.rename(renamed)
    report = verify_path(renamed)
    assert any(m.field == "name" for m in report.mismatches)


def test_build_refuses_silent_change_and_accepts_erratum(edition_copy: Path) -> None:
    log = _first_log(edition_copy, "grades")

    def flip(record: dict) -> None:
        record["outcome"] = "fail" if record["outcome"] == "pass" else "pass"

    _edit_json_line(log, flip)
    rel = log.relative_to(edition_copy).as_posix()
    with pytest.raises(UsageProblem) as refused:
        ensure_published(edition_copy, edition_results(edition_copy))
    assert any(rel in line and "no erratum" in line for line in refused.value.lines)
    (edition_copy / "errata.yaml").write_text(
        "edition: e-verify\nentries:\n"
        "- id: 2026-11-30\n  date: 2026-11-30\n  title: Regraded one run\n"
        "  what_changed: one grade\n  why: test\n"
        f"  files: ['{rel}', results.json]\n"
    )
    ensure_published(edition_copy, edition_results(edition_copy))
    assert json.loads((edition_copy / "results.json").read_text())


def test_reproduction_is_verified_and_changes_no_published_figure(edition_copy: Path) -> None:
    from ledgerrate.grade.stage import grade_edition
    from ledgerrate.run.reproduce import reproduce_cell

    reproduce_cell(edition_copy, "triage.ap-inbox.v1/reference/single-shot", show_progress=False)
    grade_edition(edition_copy)
    assert list((edition_copy / "reproductions").rglob("*.jsonl"))
    report = verify_path(edition_copy)
    assert report.ok, report.lines()
    ensure_published(edition_copy, edition_results(edition_copy))  # figures unchanged
