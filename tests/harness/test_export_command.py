"""`ledgerrate export`'s refusals, which need no Inspect: the one-line install hint when the
`inspect` extra is missing, and an unknown format; neither writes anything."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledgerrate.cli import app

REPO = Path(__file__).resolve().parents[2]


def test_without_inspect_the_command_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # `import inspect_ai` now fails
    out = tmp_path / "logs"
    result = CliRunner().invoke(
        app, ["export", str(REPO / "editions" / "2026-12"), "--out", str(out)]
    )
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [
        "error: --format inspect needs Inspect AI, the `inspect` extra: "
        "pip install 'ledgerrate[inspect]'"
    ]
    assert not out.exists()


def test_an_unknown_format_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "logs"
    result = CliRunner().invoke(
        app, ["export", str(REPO / "editions" / "2026-12"), "--format", "csv", "--out", str(out)]
    )
    assert result.exit_code == 2
    assert "--format 'csv': the one format is `inspect`" in result.stderr
    assert not out.exists()


def test_neither_an_edition_nor_a_bundle_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai")
    stray = tmp_path / "notes.tar.gz"
    stray.write_bytes(b"not a bundle")
    result = CliRunner().invoke(app, ["export", str(stray), "--out", str(tmp_path / "logs")])
    assert result.exit_code == 2
    assert "not an evidence bundle whose name carries its sha256" in result.stderr
    assert not (tmp_path / "logs").exists()
