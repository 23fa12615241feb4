"""`ledgerrate manual packet EDITION WORKLOAD --out DIR`: what an analyst is given.

For each item, exactly what a model is shown: the prompt's text (system and user, as sent), the
item's files (invoice PDFs, the AP batch, the board pack) and, for the workloads that query the
finance database, that database as a SQLite file; then a blank answer in the workload's
published output schema and one `timing.yaml` for the whole packet. The dataset is regenerated
from the private seeds and checked against the registration, as `run` does. Nothing of an
item's ground truth is written: the truth stays in the dataset object and no code here reads it
(`tests/manual/test_packet.py` checks every packet file against the registered truth).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ledgerrate.core.edition import load_edition, require_current_registration
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.io import atomic_write_bytes, atomic_write_text
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.manual.materials import database_bytes
from ledgerrate.workloads.base import Workload

PACKET = "packet.json"
TIMING = "timing.yaml"
README = "README.md"
SCHEMA = "output-schema.json"
ITEMS = "items"
PROMPT = "prompt.md"
FILES = "files"
DATABASE = "database.sqlite"


def answer_name(workload: Workload) -> str:
    """`answer.json` for an object schema; `answer.md` where the answer is plain text."""
    return "answer.md" if workload.output_schema.get("type") == "string" else "answer.json"


def blank(schema: Any) -> Any:
    """A blank value of a JSON Schema: every property empty, nothing that could be an answer."""
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "object" in kinds:
        props = schema.get("properties", {})
        return {name: blank(sub) for name, sub in props.items()}
    if "array" in kinds:
        return []
    if "string" in kinds and "null" not in kinds:
        return ""
    return None


def blank_answer(workload: Workload) -> str:
    if answer_name(workload) == "answer.md":
        return ""
    return json.dumps(blank(workload.output_schema), indent=2) + "\n"


@dataclass(frozen=True)
class Packet:
    out: Path
    workload: str
    items: int
    digest: str


def _readme(edition: str, workload: Workload, answer: str, has_db: bool) -> str:
    db_line = (
        "- `database.sqlite` (beside `prompt.md`, or at the top when every item shares it): the "
        "finance database the model queries with `run_sql`; open it with any SQLite client.\n"
        if has_db
        else ""
    )
    return f"""# Work packet: {workload.id} ({workload.title}), edition {edition}

You are the manual arm of this benchmark: you do by hand the job the models are asked to do, on
the same items, and your answers are graded by the same graders, blind. Work through every item
in `items/`. Each folder holds:

- `prompt.md`: the instructions and data exactly as a model receives them;
- `files/`: the documents a model can open with its tools (when the item has any);
{db_line}- `{answer}`: your answer, in the published output schema (`output-schema.json`). Fill
  it in; an answer left blank counts as no answer, which is a fail (as for a model).

Fill in `timing.yaml` as you go: for every item, when you started (UTC) and the minutes on your
own stopwatch; once, how you measured (your words), your role, the hourly rate and where it
comes from, and the tools you used with what each cost (0 if nothing, `unknown` if nobody
knows). Without a timing statement or without an item's elapsed time the arm is void and is
published as void. Return the whole folder to the operator, who runs
`ledgerrate manual import`. Work inside the edition's window; answers from before its
registration or after its window are refused.

Pass rule: {workload.pass_rule}
"""


def _timing_template(edition: str, workload: str, digest: str, item_ids: list[str]) -> str:
    head = {
        "schema_version": 1,
        "edition": edition,
        "workload": workload,
        "packet_sha256": digest,
    }
    body: dict[str, Any] = {
        "analyst_role": "",
        "timing_statement": None,
        "hourly_rate_usd": "unknown",
        "rate_basis": "",
        "tools": [],
        "tool_costs": [],
        "items": {item: {"started_at": None, "elapsed_minutes": None} for item in item_ids},
    }
    note = (
        "# Fill in every field. timing_statement: how you measured, in your own words.\n"
        "# hourly_rate_usd: dollars per hour (or `unknown`); rate_basis: where it comes from.\n"
        "# tool_costs: one line per tool, e.g. {tool: spreadsheet, usd: 0, basis: licence "
        "already paid}.\n"
        "# analyst_name only with name_consent: true. started_at in UTC, e.g. "
        "2026-12-06T09:30:00Z.\n"
    )
    return (
        yaml.safe_dump(head, sort_keys=False)
        + note
        + yaml.safe_dump(body, sort_keys=False, allow_unicode=True)
    )


def write_packet(edition_dir: Path, workload_id: str, out: Path, *, lookup: Any = None) -> Packet:
    if lookup is None:
        from ledgerrate import workloads

        lookup = workloads.get
    edition = load_edition(Path(edition_dir))
    require_current_registration(edition, lookup)
    manifest = edition.manifest
    if workload_id not in {entry.id for entry in manifest.workloads}:
        raise UsageProblem(
            f"{edition.paths.manifest}: workloads: {workload_id} is not in this edition; "
            "name a workload id from its edition.yaml"
        )
    if out.exists() and any(out.iterdir()):
        raise UsageProblem(f"{out}: --out must be a new or empty folder; choose another")
    workload = lookup(workload_id)
    dataset = dataset_for(edition.paths.root, workload_id, lookup=lookup)
    answer = answer_name(workload)

    files: dict[str, bytes] = {}
    databases: dict[str, bytes] = {}
    for item in dataset.items:
        base = f"{ITEMS}/{item.id}"
        prompt = workload.prompt(item)
        files[f"{base}/{PROMPT}"] = (
            f"## System\n\n{prompt.system}\n\n## User\n\n{prompt.user}\n".encode()
        )
        for name, data in sorted(item.files.items()):
            files[f"{base}/{FILES}/{name}"] = data
        db = database_bytes(workload_id, item, dataset)
        if db is not None:
            databases[item.id] = db
        files[f"{base}/{answer}"] = blank_answer(workload).encode()
    if databases:
        if len(set(databases.values())) == 1:
            files[DATABASE] = next(iter(databases.values()))
        else:
            for item_id, db in databases.items():
                files[f"{ITEMS}/{item_id}/{DATABASE}"] = db
    files[SCHEMA] = (json.dumps(workload.output_schema, indent=2) + "\n").encode()

    registration = edition.registration
    assert registration is not None
    item_ids = [item.id for item in dataset.items]
    manifest_doc = {
        "edition": manifest.id,
        "workload": workload_id,
        "workload_hash": registration.workloads[workload_id].workload_hash,
        "dataset_hash": registration.workloads[workload_id].dataset_hash,
        "items": item_ids,
        "prompt_hashes": {item.id: workload.prompt(item).hash for item in dataset.items},
        "answer_file": answer,
        "files": {name: sha256_bytes(data) for name, data in sorted(files.items())},
    }
    packet_json = json.dumps(manifest_doc, indent=2, sort_keys=True) + "\n"
    digest = sha256_bytes(packet_json.encode())
    files[PACKET] = packet_json.encode()
    files[README] = _readme(manifest.id, workload, answer, bool(databases)).encode()
    files[TIMING] = _timing_template(manifest.id, workload_id, digest, item_ids).encode()
    for name, data in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith((".md", ".json", ".yaml")):
            atomic_write_text(path, data.decode())
        else:
            atomic_write_bytes(path, data)
    return Packet(out=out, workload=workload_id, items=len(item_ids), digest=digest)
