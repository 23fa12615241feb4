"""Fixtures for runner tests: a mini edition folder with the toy workloads and stub models."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.run import toy
from tests.run.runkit import SENTINEL_KEY, write_edition


@pytest.fixture(autouse=True)
def private_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "private"
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(target))
    monkeypatch.setenv("TOY_API_KEY", SENTINEL_KEY)
    return target


@pytest.fixture
def edition_factory(tmp_path: Path) -> Callable[..., Path]:
    def make(name: str = "2026-07", **kw: Any) -> Path:
        return write_edition(tmp_path / "editions" / name, **kw)

    return make


@pytest.fixture
def lookup() -> Callable[[str], Any]:
    return toy.lookup
