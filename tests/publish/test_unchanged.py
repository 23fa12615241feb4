"""A build with nothing to do stops on the stats of its inputs alone, and any change is seen."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ledgerrate.publish import build as build_mod
from ledgerrate.publish import load as load_mod
from ledgerrate.publish import unchanged
from tests.publish.factory import write_edition


@pytest.fixture
def counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, list]:
    """A one-edition folder (its window still open, so its files may change); counts the
    figures computed, the full checks and the engine runs."""
    # Files written by the test are seconds old: trust their stamps at once.
    monkeypatch.setattr(unchanged, "_RACY_S", 0.0)
    root = tmp_path / "editions"
    fixtures = {"2027-07": write_edition(root, "2027-07", "2027-07-01")}
    seen: dict[str, list] = {"figures": [], "full checks": [], "engine": [], "fixtures": [fixtures]}

    def results(path: Path):
        seen["figures"].append(Path(path).name)
        return fixtures[Path(path).name]

    real_fingerprint, real_engine = build_mod._fingerprint, build_mod.run_engine
    monkeypatch.setattr(load_mod, "edition_results", results)
    monkeypatch.setattr(
        build_mod,
        "_fingerprint",
        lambda *a: (seen["full checks"].append(1), real_fingerprint(*a))[1],
    )
    monkeypatch.setattr(
        build_mod, "run_engine", lambda *a: (seen["engine"].append(1), real_engine(*a))[1]
    )
    return seen


def _counts(seen: dict[str, list]) -> tuple[int, int, int]:
    return len(seen["figures"]), len(seen["full checks"]), len(seen["engine"])


def test_nothing_changed_is_answered_by_stats_and_every_change_is_seen(
    counted: dict[str, list], tmp_path: Path
) -> None:
    root, out = tmp_path / "editions", tmp_path / "out"
    build_mod.build_site(root, out)
    assert _counts(counted) == (1, 2, 1)  # a check before, the fingerprint after
    assert unchanged.nothing_to_do(root, out, "mkdocs", None)
    build_mod.build_site(root, out)  # stats alone: no digest, no figures, no engine
    assert _counts(counted) == (1, 2, 1)
    # Asked differently: another engine or site URL is another build.
    assert not unchanged.nothing_to_do(root, out, "zensical", None)
    assert not unchanged.nothing_to_do(root, out, "mkdocs", "https://example.org/")
    # A file added inside an edition: built again.
    notes = root / "2027-07" / "notes.txt"
    notes.write_text("new input\n", encoding="utf-8")
    assert not unchanged.nothing_to_do(root, out, "mkdocs", None)
    build_mod.build_site(root, out)
    assert _counts(counted)[1:] == (4, 2)
    # A file touched but not changed: the full check reads it, finds the same digest, builds
    # nothing, and the next build stops on stats again.
    st = notes.stat()
    os.utime(notes, ns=(st.st_atime_ns, st.st_mtime_ns - 10**9))
    assert not unchanged.nothing_to_do(root, out, "mkdocs", None)
    build_mod.build_site(root, out)
    assert _counts(counted)[1:] == (5, 2)
    assert unchanged.nothing_to_do(root, out, "mkdocs", None)
    # An edited input, its size unchanged: built again.
    notes.write_text("NEW INPUT\n", encoding="utf-8")
    assert not unchanged.nothing_to_do(root, out, "mkdocs", None)
    build_mod.build_site(root, out)
    assert _counts(counted)[2] == 3
    # A new edition beside it: built again, only its figures computed.
    counted["fixtures"][0]["2027-08"] = write_edition(root, "2027-08", "2027-08-01")
    assert not unchanged.nothing_to_do(root, out, "mkdocs", None)
    build_mod.build_site(root, out)
    assert _counts(counted)[2] == 4 and counted["figures"][-1] == "2027-08"
    # The output damaged at its top: built again, though no input changed.
    assert unchanged.nothing_to_do(root, out, "mkdocs", None)
    (out / "site" / "index.html").unlink()
    assert not unchanged.nothing_to_do(root, out, "mkdocs", None)
    build_mod.build_site(root, out)
    assert _counts(counted)[2] == 5 and (out / "site" / "index.html").is_file()


def test_a_window_closing_since_the_last_build_is_a_change(
    counted: dict[str, list], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, out = tmp_path / "editions", tmp_path / "out"
    build_mod.build_site(root, out)
    asked = unchanged.asked_of(root, "mkdocs", None)
    assert unchanged.unchanged(out / "state", out, asked, 0.0)
    # The record says when the next window closes; at that moment the build is due again.
    record = (out / "state" / unchanged.FILE).read_text(encoding="utf-8")
    closes = __import__("json").loads(record)["closes_next"]
    if closes is None:
        pytest.skip("the fixture's window is already closed")
    assert unchanged.unchanged(out / "state", out, asked, closes - 1)
    assert not unchanged.unchanged(out / "state", out, asked, closes)


def test_inputs_written_within_the_racy_interval_leave_no_record(
    counted: dict[str, list], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unchanged, "_RACY_S", 3600.0)
    root, out = tmp_path / "editions", tmp_path / "out"
    build_mod.build_site(root, out)
    assert not (out / "state" / unchanged.FILE).exists()
    build_mod.build_site(root, out)  # the full check: same digests, nothing built
    assert _counts(counted) == (1, 3, 1)
