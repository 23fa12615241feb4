"""The site's generated paths are one list (`site_paths.GENERATED`): the build refuses a
hand-written page under any of them, the list is exactly what a build writes at the top of the
docs tree, and the navigation orders the same folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.layout import INDEX_NAME
from ledgerrate.publish import site_paths
from ledgerrate.publish.engine import nav
from ledgerrate.publish.render import SITE_SRC, render_into
from tests.publish.factory import write_two_editions

REPO = Path(__file__).resolve().parents[2]


def _hand_written_page(generated: str) -> str:
    """A hand-written page a site author could put under `generated`."""
    path = generated.replace("*", "2026-07")
    return path if Path(path).suffix else f"{path}/index.md"


@pytest.mark.parametrize("generated", site_paths.GENERATED)
def test_a_hand_written_page_under_a_generated_path_is_refused(
    generated: str, tmp_path: Path
) -> None:
    site_src = tmp_path / "pages"
    shutil.copytree(SITE_SRC, site_src)
    page = site_src / _hand_written_page(generated)
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text("# Mine\n", encoding="utf-8")
    clashing = page.relative_to(site_src).as_posix().split("/")[0]
    if generated == site_paths.FONT_DIR:
        clashing = generated  # assets/ of its own is the author's; only assets/fonts is ours
    (tmp_path / "editions").mkdir()
    with pytest.raises(UsageProblem) as refused:
        render_into(tmp_path / "editions", tmp_path / "docs", site_src=site_src)
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"{site_src}: {clashing}: the build generates this path")
    assert "move or rename it" in message
    assert not (tmp_path / "docs").exists() or not any((tmp_path / "docs").iterdir())


def test_primitives_is_reserved() -> None:
    # `pages.render_primitives` writes primitives/ and the nav lists it; the list once omitted it.
    assert site_paths.PRIMITIVES in site_paths.GENERATED


def test_the_bundled_hand_written_pages_clash_with_nothing() -> None:
    assert site_paths.clashes(SITE_SRC) == []


def test_several_clashes_are_named_on_one_line(tmp_path: Path) -> None:
    for name in ("primitives/index.md", "runs/x.md", "ratecard-2026-07.csv"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("mine", encoding="utf-8")
    (tmp_path / "assets" / "logo.svg").parent.mkdir()
    (tmp_path / "assets" / "logo.svg").write_text("<svg/>", encoding="utf-8")  # not generated
    clash = site_paths.clashes(tmp_path)
    assert clash == ["primitives", "ratecard-2026-07.csv", "runs"]
    message = site_paths.clash_message(tmp_path, clash)
    assert "primitives, ratecard-2026-07.csv, runs: the build generates these paths" in message
    assert "move or rename them" in message


def test_the_list_is_what_a_build_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    editions = tmp_path / "editions"
    write_two_editions(editions, monkeypatch)
    # The chain as the bundled editions keep it beside their folders; the build copies it as is.
    shutil.copyfile(REPO / "editions" / INDEX_NAME, editions / INDEX_NAME)
    docs = tmp_path / "docs"
    render_into(editions, docs)
    hand_written = {p.name for p in SITE_SRC.iterdir()}
    written = {p.name for p in docs.iterdir()} - hand_written
    listed: set[str] = set()
    for generated in site_paths.GENERATED:
        found = sorted(docs.glob(generated))
        assert found, f"{generated} is listed as generated but the build wrote no such path"
        listed |= {p.relative_to(docs).parts[0] for p in found}
    assert written == listed
    # Every top folder the navigation shows is one the build writes, but the hand-written one.
    folders = {folder for folder, _ in nav.SECTIONS}
    assert folders - set(site_paths.GENERATED) == {site_paths.METHODOLOGY}
    assert site_paths.METHODOLOGY in hand_written
