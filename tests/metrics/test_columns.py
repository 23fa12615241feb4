"""The column reader of `results` (metrics/columns.py): what it checks, and what it reads as the
schema does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledgerrate.core.io import FileProblem
from ledgerrate.metrics.load import load_inputs


def _edition(tmp_path: Path, build) -> tuple[Path, Path]:
    """A written edition of one graded cell, and the run log of that cell."""
    runs, grades = build.graded_cell(12)
    root = build.write_edition(tmp_path, runs, grades)
    (log,) = (root / "runs").glob("*/*/*.jsonl")
    return root, log


def _edit_line(log: Path, number: int, change) -> None:
    lines = log.read_text().splitlines()
    record = json.loads(lines[number - 1])
    change(record)
    lines[number - 1] = json.dumps(record)
    log.write_text("\n".join(lines) + "\n")


def test_a_malformed_record_is_an_error_naming_file_line_and_field(tmp_path, build) -> None:
    root, log = _edition(tmp_path, build)
    _edit_line(log, 2, lambda r: r["usage"].update(input_tokens=-1))
    with pytest.raises(FileProblem) as raised:
        load_inputs(root)
    text = "\n".join(raised.value.lines)
    assert str(log) in text and "line 2" in text and "input_tokens" in text


def test_a_record_the_figures_read_wrongly_typed_is_refused(tmp_path, build) -> None:
    root, log = _edition(tmp_path, build)
    _edit_line(log, 5, lambda r: r.update(status="finished"))
    with pytest.raises(FileProblem) as raised:
        load_inputs(root)
    text = "\n".join(raised.value.lines)
    assert "line 5" in text and "status" in text


def test_an_id_with_a_trailing_line_break_is_refused_as_the_schema_refuses_it(
    tmp_path, build
) -> None:
    root, log = _edition(tmp_path, build)
    _edit_line(log, 1, lambda r: r.update(run_id=r["run_id"] + "\n"))
    with pytest.raises(FileProblem) as raised:
        load_inputs(root)
    assert "line 1" in "\n".join(raised.value.lines)


@pytest.mark.parametrize(
    ("line", "field", "change"),
    [
        (4, "dataset_hash", lambda r: r.update(dataset_hash=r["dataset_hash"].upper())),
        (6, "item_id", lambda r: r.update(item_id="item 06")),
    ],
)
def test_a_value_off_its_pattern_on_one_line_is_refused_naming_that_line(
    tmp_path, build, line, field, change
) -> None:
    """Patterns are checked once per distinct value of a log, yet the error is still the
    schema's, naming the line and the field that broke it."""
    root, log = _edition(tmp_path, build)
    _edit_line(log, line, change)
    with pytest.raises(FileProblem) as raised:
        load_inputs(root)
    text = "\n".join(raised.value.lines)
    assert str(log) in text and f"line {line}" in text and field in text


def test_integers_beyond_64_bits_stay_exact(tmp_path, build) -> None:
    root, log = _edition(tmp_path, build)
    huge = 2**70 + 1
    _edit_line(log, 3, lambda r: r["usage"].update(output_tokens=huge))
    runs = load_inputs(root).runs
    assert huge in runs["output"].tolist()
    assert all(type(v) is int for v in runs["output"].tolist())


def test_old_spellings_and_numbers_for_money_are_read_as_the_schema_reads_them(
    tmp_path, build
) -> None:
    root, log = _edition(tmp_path, build)
    before = load_inputs(root).runs

    def old_form(record: dict) -> None:
        record["status"] = "model_failure" if record["status"] == "model-failure" else "completed"
        record["cost"]["model_usd"] = float(record["cost"]["model_usd"])

    for number in range(1, 16):
        _edit_line(log, number, old_form)
    after = load_inputs(root).runs
    assert after["status"].tolist() == before["status"].tolist()
    assert after["spend_usd"].tolist() == before["spend_usd"].tolist()
    assert after["run_id"].tolist() == before["run_id"].tolist()
