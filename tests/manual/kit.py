"""Test kit of the manual arm: a registered edition, packets, and TEST FIXTURE returns.

The fixture answers are the workloads' reference solvers' answers, written into the packet's
answer files, and every timing sheet says `test_fixture:` in the file itself: nothing here is
an analyst's work, and `manual import` refuses such a sheet for the bundled `editions/`.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from ledgerrate.core.edition import load_edition
from ledgerrate.generate.escrow import RECIPIENTS_ENV
from ledgerrate.generate.register import register_edition
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.manual.packet import TIMING, answer_name, write_packet
from ledgerrate.testing.reference_edition import write_reference_edition
from ledgerrate.workloads import get

EXTRACT = "extract.invoice.v2"
VARIANCE = "generate.variance-commentary.v1"
MONTH_END = "execute.month-end.v2"
FIXTURE = "TEST FIXTURE: answers written by the test suite, times made up; no analyst worked"


def registered_edition(folder: Path, workloads: list[str]) -> Path:
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    write_reference_edition(folder, now=now, workloads=workloads)
    # The suite escrows seeds to its test key (tests/conftest.py); run alone, say where.
    escrowed = bool(os.environ.get(RECIPIENTS_ENV))
    register_edition(folder, seeds_kept_elsewhere=None if escrowed else "test fixture: tmp")
    return folder


def fixture_answer(edition: Path, workload_id: str, item_id: str) -> str:
    """A plainly labelled fixture answer: for extraction the item's ground truth (so the arm
    qualifies), otherwise the workload's reference solver on the item."""
    workload = get(workload_id)
    dataset = dataset_for(edition, workload_id)
    if workload_id == EXTRACT:
        truth = dataset.item(item_id).truth
        return json.dumps(_as_schema(truth, workload.output_schema), indent=2)
    assert workload.baseline is not None
    answer = workload.baseline(dataset.item(item_id), dataset)
    if answer.tool_state is not None:
        entries = [
            {"memo": e["memo"], "lines": e["lines"]} for e in answer.tool_state["journal_entries"]
        ]
        return json.dumps({"journal_entries": entries, "summary": answer.text}, indent=2)
    if answer_name(workload) == "answer.md":
        return answer.text
    doc = json.loads(answer.text)
    if not jsonschema.Draft202012Validator(workload.output_schema).is_valid(doc):
        return ""  # the solver's answer is off-schema here: returned as no answer (a fail)
    return json.dumps(doc, indent=2)


def _as_schema(value: Any, schema: Any) -> Any:
    """The truth written the way the output schema asks (amounts as JSON numbers)."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return {k: _as_schema(v, props.get(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_schema(v, schema.get("items")) for v in value]
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if isinstance(value, str) and ("number" in kinds or "integer" in kinds):
        number = float(value)
        return int(number) if "integer" in kinds and number.is_integer() else number
    return value


def fill(
    edition: Path,
    packet: Path,
    *,
    statement: str | None = "Phone stopwatch started on opening each item folder, stopped on "
    "saving the answer; breaks paused it.",
    minutes: float | None = 6.0,
    skip: tuple[str, ...] = (),
    started: dt.datetime | None = None,
    rate: Any = "42.50",
    tools: dict[str, Any] | None = None,
) -> Path:
    """Answer every item of a packet (except `skip`) and fill in its timing sheet."""
    sheet = yaml.safe_load((packet / TIMING).read_text())
    workload_id = sheet["workload"]
    begin = started or registered_at(edition) + dt.timedelta(minutes=1)
    step = dt.timedelta(minutes=minutes or 1)
    for number, item_id in enumerate(sheet["items"]):
        if item_id not in skip:
            path = packet / "items" / item_id / answer_name(get(workload_id))
            path.write_text(fixture_answer(edition, workload_id, item_id))
        sheet["items"][item_id] = {
            "started_at": (begin + number * step).isoformat(),
            "elapsed_minutes": minutes,
        }
    tool_lines = tools if tools is not None else {"spreadsheet": "0"}
    sheet.update(
        test_fixture=FIXTURE,
        analyst_role="senior AP clerk (test fixture)",
        timing_statement=statement,
        hourly_rate_usd=rate,
        rate_basis="test fixture: an assumed loaded hourly cost",
        tools=list(tool_lines),
        tool_costs=[
            {"tool": t, "usd": usd, "basis": "test fixture"} for t, usd in tool_lines.items()
        ],
    )
    (packet / TIMING).write_text(yaml.safe_dump(sheet, sort_keys=False))
    return packet


def registered_at(edition: Path) -> dt.datetime:
    return load_edition(edition).registration.registered_at  # type: ignore[union-attr]


def window_close(edition: Path) -> dt.datetime:
    """The clock `manual import` is given in tests: the fixture's made-up times lie ahead of the
    real clock, inside the window."""
    return load_edition(edition).manifest.window.closes


def packet(edition: Path, workload_id: str, out: Path) -> Path:
    write_packet(edition, workload_id, out)
    return out
