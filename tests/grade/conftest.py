"""Fixtures for grading tests; the helpers live in `gradekit` (importable beside this file)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def private_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "private"
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(where))
    return where
