"""The interchange example in the operator's guide is a run record `ingest --format jsonl` would
parse."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ledgerrate.schema import RunRecord

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "operator-guide.md"


def test_the_guide_example_is_a_run_record() -> None:
    text = GUIDE.read_text()
    section = text.split("**Any other harness: the interchange format.**", 1)[1]
    block = re.search(r"```json\n(.*?)\n```", section, re.S)
    assert block is not None, "the interchange section lost its example"
    record = RunRecord.model_validate(json.loads(block.group(1)))
    assert record.source is not None and record.source.harness == "jsonl"
    assert record.request is not None and record.calls
