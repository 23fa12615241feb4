"""Atomic writes, torn-line handling and one-line-a-problem errors."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from ledgerrate.core.io import (
    FileProblem,
    TornLineWarning,
    append_jsonl,
    atomic_write_text,
    load_model,
    read_jsonl,
    repair_torn_tail,
)
from ledgerrate.schema import CardItem, EditionManifest


def test_malformed_edition_names_file_field_and_fix(tmp_path: Path) -> None:
    path = tmp_path / "edition.yaml"
    path.write_text(
        "id: 2026-07\ndate: 2026-07-15\nmethodology_version: '1.0'\n"
        "window: {opens: 2026-07-01T00:00:00Z, closes: 2026-07-02T00:00:00Z}\n"
        "workloads: [{id: extract.invoice.v1}]\n"
        "models: [{id: ref, name: Ref, provider: baseline, family: none, flagshp: true}]\n"
    )
    before = path.read_bytes()
    with pytest.raises(FileProblem) as caught:
        load_model(EditionManifest, path)
    lines = caught.value.lines
    assert len(lines) == 1
    assert str(path) in lines[0]
    assert "models.0.flagshp" in lines[0]
    assert "remove this field" in lines[0]
    assert path.read_bytes() == before


def test_each_problem_is_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "edition.yaml"
    path.write_text("id: 'bad id!'\nmethodology_version: one\n")
    with pytest.raises(FileProblem) as caught:
        load_model(EditionManifest, path)
    text = "\n".join(caught.value.lines)
    assert "id:" in text and "methodology_version" in text and "window" in text
    assert all(line.startswith(str(path)) for line in caught.value.lines)


def test_window_longer_than_72_hours_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "edition.yaml"
    path.write_text(
        "id: e1\ndate: 2026-07-15\nmethodology_version: '1.0'\n"
        "window: {opens: 2026-07-01T00:00:00Z, closes: 2026-07-04T00:00:01Z}\n"
        "workloads: [{id: extract.invoice.v1}]\n"
        "models: [{id: ref, name: Ref, provider: baseline, family: none}]\n"
    )
    with pytest.raises(FileProblem, match="72 hours"):
        load_model(EditionManifest, path)


def test_invalid_yaml_reports_position(tmp_path: Path) -> None:
    path = tmp_path / "pricing.yaml"
    path.write_text("models: [unclosed\n")
    with pytest.raises(FileProblem, match=r"line \d+, column \d+"):
        load_model(EditionManifest, path)


def test_torn_last_line_is_dropped_with_warning(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    append_jsonl(log, CardItem(id="a"))
    append_jsonl(log, CardItem(id="b"))
    with log.open("ab") as handle:
        handle.write(b'{"id": "c", "stra')
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        items = read_jsonl(log, CardItem)
    assert [i.id for i in items] == ["a", "b"]
    assert any(issubclass(w.category, TornLineWarning) for w in seen)
    assert repair_torn_tail(log)
    append_jsonl(log, CardItem(id="d"))
    assert [i.id for i in read_jsonl(log, CardItem)] == ["a", "b", "d"]


def test_corrupt_middle_line_is_an_error(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"id": "a"}\nnot json\n{"id": "b"}\n')
    with pytest.raises(FileProblem, match="line 2"):
        read_jsonl(log, CardItem)


def test_atomic_write_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "file.txt"
    atomic_write_text(target, "one")
    atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["file.txt"]
