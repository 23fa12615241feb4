"""Blind grading: the judge's input for an analyst's answer has the form of a model's.

A manual answer and a model's answer to the same item, with the same content written the way
each writes it (the analyst's indented answer file, the model's compact reply in a code fence
after a preamble), go through the grade stage's own steps (the workload's grader, the blinding,
the judge request). The two requests must have the same shape, and differ only in the opaque id.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.core.io import load_model, read_jsonl
from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.grade.anonymise import anon_id, identity_terms, strip_tells
from ledgerrate.grade.judge import hooks_for, judge_request
from ledgerrate.manual.importer import import_manual
from ledgerrate.schema import EditionManifest, RunRecord
from ledgerrate.workloads import get
from ledgerrate.workloads.base import Answer
from tests.manual import kit

SECRET = b"test-secret-of-the-blinding"


@pytest.fixture(scope="module")
def manual_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[RunRecord]]:
    root = tmp_path_factory.mktemp("blind")
    os.environ.setdefault("LEDGERRATE_PRIVATE_DIR", str(root / "private"))
    edition = kit.registered_edition(root / "2026-12-b", [kit.VARIANCE])
    packet = kit.fill(edition, kit.packet(edition, kit.VARIANCE, root / "p"))
    # The analyst says how they worked, in the answer itself: that must not reach the judge.
    answer = packet / "items" / "item-01" / "answer.json"
    doc = json.loads(answer.read_text())
    doc["commentary"] = "Prepared by hand. " + doc["commentary"]
    answer.write_text(json.dumps(doc, indent=4))
    import_manual(edition, packet, now=lambda: kit.window_close(edition))
    runs = read_jsonl(EditionPaths(edition).runs(kit.VARIANCE, "manual", "by-hand"), RunRecord)
    return edition, runs


def _judge_input(edition: Path, run: RunRecord) -> dict[str, Any]:
    """What `grade` sends the judge for this run (grade/stage.py, step by step)."""
    workload = get(run.workload)
    item = dataset_for(edition, run.workload).item(run.item_id)
    grade = workload.grade(item, Answer(run.answer or "", run.tool_state))
    assert grade.deterministic_pass and grade.needs_judge
    manifest = load_model(EditionManifest, EditionPaths(edition).manifest)
    text = strip_tells(grade.judge_input or "", identity_terms(manifest))
    request = judge_request(workload, hooks_for(workload), item, anon_id(SECRET, run.run_id), text)
    return json.loads(json.dumps(dataclasses.asdict(request), default=str))


def _shape(value: Any) -> Any:
    """The form of a JSON value: keys, roles and list lengths, not its text."""
    if isinstance(value, dict):
        return {k: (v if k == "role" else _shape(v)) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return type(value).__name__


def test_the_judge_cannot_tell_a_manual_answer_from_a_models(
    manual_runs: tuple[Path, list[RunRecord]],
) -> None:
    edition, runs = manual_runs
    manual = next(r for r in runs if r.item_id == "item-02")
    # The same content as a model writes it: compact JSON in a fence after a preamble.
    compact = json.dumps(json.loads(manual.answer or ""), separators=(",", ":"))
    model = manual.model_copy(
        update={
            "run_id": "r-" + "ab" * 12,
            "model": "alpha",
            "mode": "single-shot",
            "answer": f"Sure! Here is the commentary:\n```json\n{compact}\n```",
        }
    )
    by_hand, by_model = _judge_input(edition, manual), _judge_input(edition, model)
    assert _shape(by_hand) == _shape(by_model)
    text_hand = json.dumps(by_hand, sort_keys=True)
    text_model = json.dumps(by_model, sort_keys=True)
    hand_id, model_id = anon_id(SECRET, manual.run_id), anon_id(SECRET, model.run_id)
    assert text_hand != text_model  # the ids differ …
    assert text_hand.replace(hand_id, "ID") == text_model.replace(model_id, "ID")  # … nothing else
    for tell in ("manual", "by-hand", manual.run_id, "analyst"):
        assert tell not in text_hand


def test_words_saying_the_answer_was_made_by_hand_are_blinded(
    manual_runs: tuple[Path, list[RunRecord]],
) -> None:
    edition, runs = manual_runs
    said = next(r for r in runs if r.item_id == "item-01")
    assert "Prepared by hand." in (said.answer or "")
    sent = json.dumps(_judge_input(edition, said))
    assert "by hand" not in sent.lower() and "[redacted]" in sent
