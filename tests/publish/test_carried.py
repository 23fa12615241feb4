"""The drill-down's cell folders pass from one build's site to the next when made from the same
products, and a build that keeps them publishes the same site as one that writes them."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

from ledgerrate.publish import carried as carried_mod
from ledgerrate.publish import load as load_mod
from ledgerrate.publish.build import build_site
from ledgerrate.publish.carried import STATE, Carried
from tests.publish.factory import WL, write_edition

FOLDER = "runs/2026-07/wl"


def _site(root: Path, items: str) -> Path:
    """A site as the engine leaves it, with a workload's items page, and its cell pages."""
    (root / FOLDER / "m1" / "single-shot").mkdir(parents=True)
    (root / FOLDER / "index.html").write_text(items, "utf-8")
    (root / FOLDER / "m1" / "single-shot" / "index.html").write_text("cell m1", "utf-8")
    (root / "index.html").write_text(f"home {items}", "utf-8")
    return root


def _remembered(tmp_path: Path, key: str) -> tuple[Path, Path]:
    """A live site swapped in by a build that recorded its cell folder as made from `key`."""
    live, state = _site(tmp_path / "out" / "site", "old items"), tmp_path / "out" / "state"
    first = Carried(live, tmp_path / "unused")
    first.note(FOLDER, key, True, ["m1/single-shot/index.html"])
    first.remember(state)
    return live, state


def test_a_folder_made_from_the_same_products_moves_into_the_new_site(tmp_path: Path) -> None:
    live, state = _remembered(tmp_path, "k1")
    folder_inode = (live / FOLDER).stat().st_ino
    staging = tmp_path / "out" / ".staging"
    carried = Carried.open(state, live, staging / "carried")
    assert carried.folder(FOLDER, "k2") == staging / "carried" / FOLDER  # other products
    assert carried.folder(FOLDER, "k1") is None  # the live site holds it: not written
    carried.note(FOLDER, "k1", False, ["m1/single-shot/index.html"])
    assert carried.files == {f"{FOLDER}/m1/single-shot/index.html"}
    new = staging / "site"
    (new / FOLDER).mkdir(parents=True)  # the engine wrote the new items page and home
    (new / FOLDER / "index.html").write_text("new items", "utf-8")
    (new / "index.html").write_text("home new items", "utf-8")
    carried.assemble(new)  # nothing written this time: nothing to move in
    carried.swap_in(new, staging / "old-site")
    carried.remember(state)
    assert (live / FOLDER).stat().st_ino == folder_inode  # moved, not copied
    assert (live / FOLDER / "index.html").read_text("utf-8") == "new items"
    assert (live / FOLDER / "m1" / "single-shot" / "index.html").read_text("utf-8") == "cell m1"
    assert (live / "index.html").read_text("utf-8") == "home new items"
    assert not (staging / "old-site" / FOLDER).exists()
    assert not [p for p in live.rglob("*") if p.name.startswith(".")]
    # The record now names the new site: its folder can be kept again.
    assert Carried.open(state, live, staging / "carried").folder(FOLDER, "k1") is None


def test_a_record_of_another_site_keeps_nothing(tmp_path: Path) -> None:
    live, state = _remembered(tmp_path, "k1")
    live.rename(tmp_path / "elsewhere")
    _site(live, "edited by hand")  # same path, another folder
    assert Carried.open(state, live, tmp_path / "s").folder(FOLDER, "k1") is not None
    Carried.forget(state)
    assert not (state / STATE).exists()
    assert Carried.open(state, live, tmp_path / "s").folder(FOLDER, "k1") is not None


def test_a_swap_that_fails_puts_the_old_site_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    live, state = _remembered(tmp_path, "k1")
    (live / "runs" / "2026-07" / "other" / "m2").mkdir(parents=True)
    (live / "runs" / "2026-07" / "other" / "index.html").write_text("other items", "utf-8")
    before = sorted(p.relative_to(live).as_posix() for p in live.rglob("*"))
    carried = Carried.open(state, live, tmp_path / "staging" / "carried")
    carried.note(FOLDER, "k1", False, [])
    carried.note("runs/2026-07/other", "k9", False, [])
    new = tmp_path / "staging" / "site"
    for rel in (FOLDER, "runs/2026-07/other"):
        (new / rel).mkdir(parents=True)
        (new / rel / "index.html").write_text("new items", "utf-8")
    real = carried_mod._merge
    calls: list[Path] = []

    def second_fails(folder: Path, into: Path, undo: list, aside: Path | None = None) -> None:
        calls.append(into)
        if len(calls) == 2:
            raise OSError("disk full")
        real(folder, into, undo, aside)

    monkeypatch.setattr(carried_mod, "_merge", second_fails)
    with pytest.raises(OSError, match="disk full"):
        carried.swap_in(new, tmp_path / "staging" / "old-site")
    assert sorted(p.relative_to(live).as_posix() for p in live.rglob("*")) == before
    assert (live / FOLDER / "index.html").read_text("utf-8") == "old items"
    assert (new / FOLDER / "index.html").read_text("utf-8") == "new items"


def _tree(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


@pytest.mark.slow
def test_a_rebuild_keeps_the_cell_folders_and_publishes_the_same_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second build differs in its site URL (every page is made again; no cell page depends
    on it): it keeps the cell folders of the first, and its site is the one a build into an
    empty folder makes."""
    root = tmp_path / "editions"
    fixtures = {"2026-07": write_edition(root, "2026-07", "2026-07-01")}
    monkeypatch.setattr(load_mod, "edition_results", lambda d: fixtures[Path(d).name])
    cache = tmp_path / "cache"
    out = tmp_path / "out"
    site = build_site(root, out, site_url="https://a.example/", cache_dir=cache)
    folders = [site / "runs" / "2026-07" / WL, site / "data" / "2026-07" / "runs"]
    assert sorted(folders[0].glob("*/*/index.html")), "the fixture has no cell page"
    assert sorted(folders[1].glob("*/*/*.jsonl.gz")), "the fixture has no run log"
    assert not (out / "docs" / "data" / "2026-07" / "runs").exists()  # never the engine's
    inodes = [folder.stat().st_ino for folder in folders]
    build_site(root, out, site_url="https://b.example/", cache_dir=cache)
    assert [folder.stat().st_ino for folder in folders] == inodes  # carried, not written again
    fresh = build_site(root, tmp_path / "fresh", site_url="https://b.example/", cache_dir=cache)
    assert (fresh / "runs" / "2026-07" / WL).stat().st_ino != inodes[0]
    assert _tree(site) == _tree(fresh)
    files = [p.relative_to(site) for p in site.rglob("*") if p.is_file()]
    differ = [str(p) for p in files if not filecmp.cmp(site / p, fresh / p, shallow=False)]
    assert differ == []
    assert "https://b.example/" in (site / "sitemap.xml").read_text("utf-8")
