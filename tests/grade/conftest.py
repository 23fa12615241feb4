"""Fixtures for grading tests; the helpers live in `gradekit` (importable beside this file)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def private_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "private"
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(where))
    return where
