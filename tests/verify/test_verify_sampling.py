"""`verify` holds every stored request body to the edition's sampling settings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ledgerrate.verify.run import verify_path

REPO = Path(__file__).resolve().parents[2]
LOG = "runs/query.nl2sql.v1/smollm2/single-shot.jsonl"


def _edit_first_body(log: Path, change) -> str:
    lines = log.read_text().splitlines()
    record = json.loads(lines[0])
    body = record["request"] if record.get("request") else record["request_stored"]["body"]
    change(body)
    lines[0] = json.dumps(record)
    log.write_text("\n".join(lines) + "\n")
    return record["run_id"]


def test_an_edited_stored_request_body_fails_verification(tmp_path: Path) -> None:
    edition = tmp_path / "editions" / "2026-12"
    shutil.copytree(REPO / "editions" / "2026-12", edition)
    shutil.copyfile(REPO / "editions" / "publications.jsonl", edition.parent / "publications.jsonl")
    clean = verify_path(edition)
    assert clean.checked["requests sent with the edition's sampling settings"] == 95

    run_id = _edit_first_body(edition / LOG, lambda body: body.update(temperature=0.9))
    report = verify_path(edition)
    found = [m for m in report.mismatches if m.field.startswith("request.")]
    assert [(m.file, m.record, m.field, m.expected, m.found) for m in found] == [
        (LOG, run_id, "request.temperature", "0", "0.9")
    ]
    assert not report.ok
