"""`verify` on an escrowed edition, and on one whose seeds were declared lost (folder and
bundle alike): the loss is a disclosed limitation, never a passed release check."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledgerrate.cli import app
from ledgerrate.generate.seed_loss import declare_seeds_lost
from ledgerrate.publish.bundle import write_bundle
from ledgerrate.verify.run import verify_path


def test_the_sealed_escrow_is_checked(published_edition: Path) -> None:
    report = verify_path(published_edition)
    assert report.ok, report.lines()
    assert report.checked["seed escrow as sealed"] == 1


def test_a_swapped_escrow_is_a_mismatch(edition_copy: Path) -> None:
    (edition_copy / "seeds.escrow.age").write_text("-----BEGIN AGE ENCRYPTED FILE-----\n")
    report = verify_path(edition_copy)
    assert not report.ok
    assert any(m.file == "seeds.escrow.age" for m in report.mismatches)


def test_lost_seeds_are_named_as_a_disclosed_limitation(
    edition_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As on a machine that never had the seeds: unreleased, no private copy, no identity.
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(tmp_path / "empty-private"))
    (edition_copy / "seeds.json").unlink()
    loss = declare_seeds_lost(edition_copy, "the registering machine was recycled")
    for target in (edition_copy, write_bundle(edition_copy, tmp_path / "bundle")):
        report = verify_path(target)
        assert report.ok, report.lines()
        assert report.checked["seed commitments"] == 0  # nothing passed for the seeds
        lines = report.lines()
        assert f"disclosed limitation: edition {edition_copy.name}: {loss.statement}" in "\n".join(
            lines
        )
        assert lines[-1].startswith("VERIFIED") and "1 disclosed limitation(s)" in lines[-1]
    result = CliRunner().invoke(app, ["verify", str(edition_copy)])
    assert result.exit_code == 0 and "lost on" in result.output
