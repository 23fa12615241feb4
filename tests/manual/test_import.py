"""`manual import`: what an analyst returns is checked, recorded as a sitting, or refused.

Every return here is a TEST FIXTURE (tests/manual/kit.py), labelled so in its timing sheet.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import FileProblem, load_model, read_jsonl
from ledgerrate.core.layout import EditionPaths
from ledgerrate.manual.importer import import_manual
from ledgerrate.metrics.report import edition_results
from ledgerrate.run.rawlog import run_id
from ledgerrate.schema import ManualSitting, RunRecord, RunStatus
from ledgerrate.verify.logs import derived_run_id
from tests.manual import kit


@pytest.fixture(scope="module")
def edition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("imports")
    os.environ.setdefault("LEDGERRATE_PRIVATE_DIR", str(root / "private"))
    return kit.registered_edition(root / "2026-12-i", [kit.EXTRACT, kit.MONTH_END])


@pytest.fixture
def fresh(edition: Path, tmp_path: Path) -> Path:
    """A copy of the registered edition, so each test records its own sittings."""
    copy = tmp_path / edition.name
    shutil.copytree(edition, copy)
    return copy


def _import(edition: Path, folder: Path):  # type: ignore[no-untyped-def]
    return import_manual(edition, folder, now=lambda: kit.window_close(edition))


def _state(edition: Path) -> dict[str, bytes]:
    return {
        p.relative_to(edition).as_posix(): p.read_bytes() for p in edition.rglob("*") if p.is_file()
    }


def test_a_return_becomes_one_ungraded_record_per_item(fresh: Path, tmp_path: Path) -> None:
    packet = kit.fill(fresh, kit.packet(fresh, kit.EXTRACT, tmp_path / "p"), skip=("item-02",))
    done = _import(fresh, packet)
    paths = EditionPaths(fresh)
    records = read_jsonl(paths.runs(kit.EXTRACT, "manual", "by-hand"), RunRecord)
    assert len(records) == len(done.written) == 15
    by_item = {r.item_id: r for r in records}
    # A missing answer is a fail, as for a model; it still took the analyst's time.
    assert by_item["item-02"].status == RunStatus.model_failure
    assert by_item["item-02"].latency_s == 360.0
    assert by_item["item-01"].status == RunStatus.completed
    assert json.loads(by_item["item-01"].answer or "") == json.loads(
        kit.fixture_answer(fresh, kit.EXTRACT, "item-01")
    )
    for record in records:
        assert record.run_id == derived_run_id(record)  # verify re-derives it
        assert record.run_id == run_id(
            fresh.name, 1, kit.EXTRACT, "manual", "by-hand", record.item_id, 1
        )
        assert record.cost.total_usd == 0 and str(record.cost_basis) == "manual"
        assert record.finished_at - record.started_at == dt.timedelta(minutes=6)
    assert not paths.grades(kit.EXTRACT, "manual", "by-hand").exists()  # never graded here
    sitting = load_model(ManualSitting, paths.manual_sitting(kit.EXTRACT, 1))
    assert sitting.test_fixture == kit.FIXTURE and sitting.void_reasons == []
    assert sitting.analyst_role.startswith("senior AP clerk") and sitting.analyst_name is None
    assert [i.answered for i in sitting.items].count(False) == 1


def test_importing_the_same_return_twice_adds_nothing_and_a_new_one_is_sitting_two(
    fresh: Path, tmp_path: Path
) -> None:
    packet = kit.fill(fresh, kit.packet(fresh, kit.EXTRACT, tmp_path / "p"))
    _import(fresh, packet)
    before = _state(fresh)
    again = _import(fresh, packet)
    assert again.already and again.written == [] and _state(fresh) == before
    second = kit.fill(fresh, kit.packet(fresh, kit.EXTRACT, tmp_path / "q"), minutes=4.5)
    made = _import(fresh, second)
    assert made.sitting.sitting == 2
    paths = EditionPaths(fresh)
    records = read_jsonl(paths.runs(kit.EXTRACT, "manual", "by-hand"), RunRecord)
    assert sorted({r.sitting for r in records}) == [1, 2] and len(records) == 30
    # Kept and counted, never pooled: the cell is the latest sitting's, and says there were two.
    cell = next(
        c
        for w in edition_results(fresh).workloads
        for c in w.cells
        if c.model == "manual" and w.workload == kit.EXTRACT
    )
    assert cell.sitting == 2 and cell.other_sittings == 1 and cell.n == 15
    assert cell.manual is not None and cell.manual.sittings == [1, 2]
    assert cell.latency_median_s == 270.0


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"statement": None}, "no timing statement"),
        ({"statement": "   "}, "no timing statement"),
        ({"minutes": None}, "no elapsed time for 15 item(s)"),
    ],
)
def test_without_a_timing_statement_or_elapsed_times_the_arm_is_void(
    fresh: Path, tmp_path: Path, change: dict, reason: str
) -> None:
    packet = kit.fill(fresh, kit.packet(fresh, kit.EXTRACT, tmp_path / "p"), **change)
    done = _import(fresh, packet)
    paths = EditionPaths(fresh)
    assert done.written == [] and not paths.runs(kit.EXTRACT, "manual", "by-hand").exists()
    assert reason in " ".join(done.sitting.void_reasons)
    assert "VOID" in done.lines()[0]
    cell = next(
        c
        for w in edition_results(fresh).workloads
        for c in w.cells
        if c.model == "manual" and w.workload == kit.EXTRACT
    )
    assert cell.void and reason in " ".join(cell.void_reasons)
    assert cell.pass_rate is None and cell.cpo_usd is None and not cell.qualifying


def _one_line_refusal(fresh: Path, packet: Path, *expected: str) -> None:
    before = _state(fresh)
    with pytest.raises((UsageProblem, FileProblem)) as caught:
        _import(fresh, packet)
    text = "\n".join(caught.value.lines)
    for part in expected:
        assert part in text, text
    assert _state(fresh) == before  # nothing recorded


def test_answers_before_the_registration_or_after_the_window_are_refused(
    fresh: Path, tmp_path: Path
) -> None:
    early = kit.registered_at(fresh) - dt.timedelta(minutes=30)
    packet = kit.fill(fresh, kit.packet(fresh, kit.EXTRACT, tmp_path / "p"), started=early)
    _one_line_refusal(
        fresh, packet, "timing.yaml: items.item-01.started_at", "before the edition's registration"
    )
    late = kit.window_close(fresh) - dt.timedelta(minutes=3)
    packet = kit.fill(fresh, kit.packet(fresh, kit.EXTRACT, tmp_path / "q"), started=late)
    _one_line_refusal(fresh, packet, "after the window closed", "nothing was imported")


def _edit_sheet(packet: Path, **fields: object) -> None:
    sheet = yaml.safe_load((packet / "timing.yaml").read_text())
    sheet.update(fields)
    (packet / "timing.yaml").write_text(yaml.safe_dump(sheet, sort_keys=False))


def test_a_name_without_consent_and_a_tool_without_a_cost_line_are_refused(
    fresh: Path, tmp_path: Path
) -> None:
    packet = kit.fill(fresh, kit.packet(fresh, kit.EXTRACT, tmp_path / "p"))
    _edit_sheet(packet, analyst_name="Jane Example")
    _one_line_refusal(fresh, packet, "timing.yaml", "analyst_name is given without name_consent")
    _edit_sheet(packet, analyst_name=None, tools=["spreadsheet", "calculator"])
    _one_line_refusal(fresh, packet, "tool_costs has no line for calculator")


def test_an_answer_off_the_output_schema_names_its_file_and_field(
    fresh: Path, tmp_path: Path
) -> None:
    packet = kit.fill(fresh, kit.packet(fresh, kit.EXTRACT, tmp_path / "p"))
    answer = packet / "items" / "item-03" / "answer.json"
    doc = json.loads(answer.read_text())
    doc["total"] = "a lot"
    answer.write_text(json.dumps(doc))
    _one_line_refusal(fresh, packet, "items/item-03/answer.json: total:", "output-schema.json")
    answer.write_text("{not json")
    _one_line_refusal(fresh, packet, "items/item-03/answer.json: line 1: not JSON")


def test_a_hand_written_close_goes_through_the_models_journal_tool(
    fresh: Path, tmp_path: Path
) -> None:
    packet = kit.fill(fresh, kit.packet(fresh, kit.MONTH_END, tmp_path / "p"))
    answer = packet / "items" / "item-02" / "answer.json"
    doc = json.loads(answer.read_text())
    doc["journal_entries"][0]["lines"][0]["account"] = "9999"
    answer.write_text(json.dumps(doc))
    _one_line_refusal(fresh, packet, "item-02/answer.json: journal_entries/1:", "unknown account")
    doc["journal_entries"][0]["lines"][0]["account"] = json.loads(
        kit.fixture_answer(fresh, kit.MONTH_END, "item-02")
    )["journal_entries"][0]["lines"][0]["account"]
    answer.write_text(json.dumps(doc))
    _import(fresh, packet)
    records = read_jsonl(EditionPaths(fresh).runs(kit.MONTH_END, "manual", "by-hand"), RunRecord)
    state = records[1].tool_state or {}
    assert [e["entry"] for e in state["journal_entries"]][:2] == ["JE-001", "JE-002"]


def test_a_test_fixture_is_never_recorded_in_the_bundled_editions(
    fresh: Path, tmp_path: Path
) -> None:
    packet = kit.fill(fresh, kit.packet(fresh, kit.EXTRACT, tmp_path / "p"))
    before = _state(fresh)
    with pytest.raises(UsageProblem) as caught:
        import_manual(fresh, packet, now=lambda: kit.window_close(fresh), bundled=fresh.parent)
    assert "test_fixture: a test fixture is never recorded in the bundled editions" in str(
        caught.value
    )
    assert _state(fresh) == before


def test_the_bundled_editions_have_no_manual_arm(repo_root: Path) -> None:
    """No analyst has done their items, so nothing may sit where a manual arm would."""
    for edition in (repo_root / "editions").iterdir():
        if edition.is_dir():
            assert not (edition / "manual").exists(), edition
            assert not list((edition / "runs").glob("*/manual/*")), edition
