"""Reading what an analyst returns: the packet's `timing.yaml` and one answer per item.

Every problem is one line naming the file, the field and the fix, and nothing is recorded
while any remains (`manual/importer.py`). The answers are checked for form only (parseable, in
the workload's published output schema, journal entries a model's tool would accept): whether
they are right is for the grader, which this stage never calls.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.io import FileProblem, parse_model, read_yaml
from ledgerrate.core.tools import ToolError
from ledgerrate.manual.packet import ITEMS, PACKET, TIMING, answer_name, blank_answer
from ledgerrate.schema import ManualTimesheet
from ledgerrate.workloads.base import Dataset, Item, Workload

JOURNAL_TOOL = "post_journal_entry"


@dataclass(frozen=True)
class ReturnedAnswer:
    item_id: str
    file: str  # relative to the returned folder
    text: str | None  # None: no answer (missing or left blank), a fail as for a model
    tool_state: dict[str, Any] | None
    sha256: str | None


@dataclass(frozen=True)
class Returned:
    folder: Path
    packet: dict[str, Any]
    packet_sha256: str
    timesheet: ManualTimesheet
    answers: dict[str, ReturnedAnswer]
    digest: str  # of every returned file's sha256, by name


def read_packet(folder: Path) -> tuple[dict[str, Any], str]:
    path = folder / PACKET
    if not path.is_file():
        raise FileProblem(
            path, [f"{path}: missing; return the whole packet folder `manual packet` wrote"]
        )
    raw = path.read_bytes()
    try:
        doc = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise FileProblem(
            path, [f"{path}: not JSON ({exc.msg}); restore the packet's packet.json"]
        ) from None
    return doc, sha256_bytes(raw)


def read_timesheet(folder: Path) -> ManualTimesheet:
    path = folder / TIMING
    if not path.is_file():
        raise FileProblem(path, [f"{path}: missing; fill in and return the packet's timing.yaml"])
    return parse_model(ManualTimesheet, read_yaml(path), path)


def _schema_problem(rel: str, error: jsonschema.ValidationError) -> str:
    where = "/".join(str(part) for part in error.absolute_path) or "(the whole answer)"
    return (
        f"{rel}: {where}: {error.message[:160]}; write it as output-schema.json asks "
        "(or leave the file blank to record no answer)"
    )


def _journal_state(
    rel: str,
    answer: dict[str, Any],
    workload: Workload,
    item: Item,
    dataset: Dataset,
    scratch: Path,
) -> dict[str, Any]:
    """The journal the model's own tool would hold after posting these entries: the same
    writer checks each entry, so a hand-written close is graded on the state a model's is."""
    assert workload.tools is not None
    toolset = workload.tools(item, dataset, scratch)
    try:
        post = next(tool for tool in toolset.tools if tool.name == JOURNAL_TOOL)
        for number, entry in enumerate(answer.get("journal_entries") or [], start=1):
            args = {k: v for k, v in entry.items() if k in ("memo", "lines")}
            try:
                post.run(args)
            except ToolError as exc:
                raise FileProblem(
                    Path(rel),
                    [f"{rel}: journal_entries/{number}: {exc}; correct the entry"],
                ) from None
        state = toolset.state()
    finally:
        toolset.close()
    assert state is not None
    return state


def read_answer(
    folder: Path, workload: Workload, item: Item, dataset: Dataset, scratch: Path
) -> ReturnedAnswer:
    rel = f"{ITEMS}/{item.id}/{answer_name(workload)}"
    path = folder / rel
    if not path.is_file():
        return ReturnedAnswer(item.id, rel, None, None, None)
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    if not text.strip() or text.strip() == blank_answer(workload).strip():
        return ReturnedAnswer(item.id, rel, None, None, None)
    if answer_name(workload) == "answer.md":
        return ReturnedAnswer(item.id, rel, text, None, sha256_bytes(raw))
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileProblem(
            path,
            [f"{path}: line {exc.lineno}: not JSON ({exc.msg}); fix the syntax or leave it blank"],
        ) from None
    errors = sorted(
        jsonschema.Draft202012Validator(workload.output_schema).iter_errors(doc),
        key=lambda e: list(e.absolute_path),
    )
    if errors:
        raise FileProblem(path, [_schema_problem(str(path), e) for e in errors[:5]])
    state = None
    if workload.tools is not None and "journal_entries" in workload.output_schema.get(
        "properties", {}
    ):
        item_scratch = scratch / item.id
        item_scratch.mkdir(parents=True, exist_ok=True)
        state = _journal_state(str(path), doc, workload, item, dataset, item_scratch)
        summary = doc.get("summary") if isinstance(doc.get("summary"), str) else ""
        text = summary or f"{len(state['journal_entries'])} journal entries proposed."
    return ReturnedAnswer(item.id, rel, text, state, sha256_bytes(raw))


def returned_digest(folder: Path) -> str:
    """sha256 over every returned file's sha256, by relative name: one import per return."""
    names = sorted(p for p in folder.rglob("*") if p.is_file())
    listing = {p.relative_to(folder).as_posix(): sha256_bytes(p.read_bytes()) for p in names}
    return sha256_bytes(json.dumps(listing, sort_keys=True).encode())
