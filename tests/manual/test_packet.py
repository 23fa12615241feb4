"""`manual packet`: an analyst gets exactly what a model is shown, and nothing of the answer.

One registered edition with all seven workloads (n = 3 each); every packet file is checked
against the registered dataset: prompts and documents byte for byte, the database as the
model's tool serves it, blank answers, and no ground-truth value a model is not shown.
"""

from __future__ import annotations

import datetime as dt
import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ledgerrate.generate.escrow import RECIPIENTS_ENV
from ledgerrate.generate.register import register_edition
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.manual.materials import DATABASES, database_bytes
from ledgerrate.manual.packet import answer_name, blank_answer, write_packet
from ledgerrate.schema import ManualTimesheet
from ledgerrate.testing.reference_edition import write_reference_edition
from ledgerrate.workloads import catalogue, get

SEVEN = (
    "extract.invoice.v2",
    "triage.ap-inbox.v1",
    "reconcile.ledger.v1",
    "generate.variance-commentary.v1",
    "synthesize.board-brief.v1",
    "query.nl2sql.v2",
    "execute.month-end.v2",
)


@pytest.fixture(scope="module")
def edition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("packets")
    os.environ.setdefault("LEDGERRATE_PRIVATE_DIR", str(root / "private"))
    folder = root / "2026-12-p"
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    write_reference_edition(folder, now=now, workloads=SEVEN)
    manifest = yaml.safe_load((folder / "edition.yaml").read_text())
    manifest["workloads"] = [{"id": w, "n": 3, "n_reason": "test fixture"} for w in SEVEN]
    (folder / "edition.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    kept = None if os.environ.get(RECIPIENTS_ENV) else "test fixture: tmp"
    register_edition(folder, seeds_kept_elsewhere=kept)
    return folder


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _truth_strings(truth: Any) -> set[str]:
    """Every distinctive value of an item's ground truth, as text (short tokens such as `USD`
    or `2` appear in any document and prove nothing)."""
    found = set()
    for leaf in _leaves(truth):
        if isinstance(leaf, bool) or leaf is None:
            continue
        text = str(leaf)
        if len(text) >= 6:
            found.add(text)
    return found


@pytest.mark.parametrize("workload_id", SEVEN)
def test_a_packet_shows_what_a_model_sees_and_no_expected_answer(
    edition: Path, tmp_path: Path, workload_id: str
) -> None:
    out = tmp_path / "packet"
    made = write_packet(edition, workload_id, out)
    workload = get(workload_id)
    dataset = dataset_for(edition, workload_id)
    assert made.items == len(dataset.items) == 3
    written = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    expected_names = {"packet.json", "README.md", "timing.yaml", "output-schema.json"}
    for item in dataset.items:
        base = f"items/{item.id}"
        prompt = workload.prompt(item)
        shown = written[f"{base}/prompt.md"].decode()
        # The prompt exactly as sent: system and user text, whole.
        assert prompt.system in shown and prompt.user in shown
        for name, data in item.files.items():
            assert written[f"{base}/files/{name}"] == data  # the same PDFs and documents
        assert written[f"{base}/{answer_name(workload)}"].decode() == blank_answer(workload)
        expected_names |= {f"{base}/prompt.md", f"{base}/{answer_name(workload)}"}
        expected_names |= {f"{base}/files/{name}" for name in item.files}
        db = database_bytes(workload_id, item, dataset)
        if db is not None:
            at = "database.sqlite" if "database.sqlite" in written else f"{base}/database.sqlite"
            assert written[at] == db  # the very file the model's run_sql tool queries
            expected_names.add(at)
    assert set(written) == expected_names  # nothing else slipped in

    assert _leaks(written, workload, dataset) == []


def _leaks(written: dict[str, bytes], workload: Any, dataset: Any) -> list[tuple[str, str]]:
    """(file, value) for each ground-truth value a model is not shown that a packet file holds,
    and each item's whole truth found in one."""
    found: list[tuple[str, str]] = []
    visible = "\n".join(
        [workload.prompt(i).system + workload.prompt(i).user for i in dataset.items]
        + [d.decode("utf-8", "replace") for i in dataset.items for d in i.files.values()]
    )
    texts = {
        name: data.decode("utf-8", "replace")
        for name, data in written.items()
        if not name.endswith(".sqlite")
    }
    for item in dataset.items:
        whole = json.dumps(item.truth, sort_keys=True)
        hidden = {v for v in _truth_strings(item.truth) if v not in visible}
        for name, text in texts.items():
            if whole in text:
                found.append((name, "the whole truth"))
            found += [(name, v) for v in sorted(hidden) if v in text]
    return found


def test_the_truth_check_finds_an_answer_slipped_into_a_packet(
    edition: Path, tmp_path: Path
) -> None:
    """The check above can fail: a packet whose answer file held the expected answer."""
    write_packet(edition, "reconcile.ledger.v1", tmp_path / "p")
    workload, dataset = get("reconcile.ledger.v1"), dataset_for(edition, "reconcile.ledger.v1")
    item = dataset.items[0]
    (tmp_path / "p" / "items" / item.id / "answer.json").write_text(
        json.dumps(item.truth, sort_keys=True)
    )
    written = {
        p.relative_to(tmp_path / "p").as_posix(): p.read_bytes()
        for p in (tmp_path / "p").rglob("*")
        if p.is_file()
    }
    assert _leaks(written, workload, dataset)


def test_the_timing_sheet_is_prefilled_and_blank_where_the_analyst_writes(
    edition: Path, tmp_path: Path
) -> None:
    write_packet(edition, "extract.invoice.v2", tmp_path / "p")
    sheet = yaml.safe_load((tmp_path / "p" / "timing.yaml").read_text())
    assert sheet["edition"] == edition.name and sheet["workload"] == "extract.invoice.v2"
    assert sheet["timing_statement"] is None and sheet["analyst_role"] == ""
    assert all(v == {"started_at": None, "elapsed_minutes": None} for v in sheet["items"].values())
    # As handed out it is not a valid return: the analyst must fill it in.
    with pytest.raises(ValueError):
        ManualTimesheet.model_validate(sheet)


def test_every_workload_that_queries_the_database_ships_it() -> None:
    """A new version offering `run_sql` must be listed in manual/materials.py."""
    for workload in catalogue.WORKLOADS:
        if workload.tools is None:
            continue
        source = inspect.getsource(sys.modules[workload.tools.__module__])
        if "run_sql_tool" in source:
            assert workload.id in DATABASES, workload.id


def test_a_packet_for_a_workload_not_in_the_edition_is_one_line(
    edition: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from ledgerrate.cli import app

    run = CliRunner().invoke(
        app, ["manual", "packet", str(edition), "query.nl2sql.v1", "--out", str(tmp_path / "x")]
    )
    assert run.exit_code == 2
    lines = [line for line in run.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "query.nl2sql.v1 is not in this edition" in lines[0]
    assert not (tmp_path / "x").exists()
