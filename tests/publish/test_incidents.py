"""An edition's disclosed incidents: named on its page (the README's heading only, escaped),
their files downloadable and in the evidence bundle, their text never rendered as markup."""

from __future__ import annotations

from pathlib import Path

from ledgerrate.core.bundle_format import INCLUDED_DIRS
from ledgerrate.publish.incidents import incidents


def _incident(root: Path, name: str, readme: str) -> None:
    folder = root / "incidents" / name
    (folder / "runs" / "w.v1" / "m").mkdir(parents=True)
    (folder / "README.md").write_text(readme)
    (folder / "runs" / "w.v1" / "m" / "single-shot.jsonl").write_text("{}\n")


def test_incidents_are_listed_with_their_readme_first(tmp_path: Path) -> None:
    _incident(tmp_path, "2026-12-01-two-runners", "# Two runners wrote one cell\n\nbody\n")
    (found,) = incidents(tmp_path)
    assert found.id == "2026-12-01-two-runners"
    assert found.title == "Two runners wrote one cell"
    assert found.files == [
        "incidents/2026-12-01-two-runners/README.md",
        "incidents/2026-12-01-two-runners/runs/w.v1/m/single-shot.jsonl",
    ]
    assert "incidents" in INCLUDED_DIRS
    # The README goes out as text: the site engine would otherwise render it as a page.
    assert found.downloads[0] == (
        "incidents/2026-12-01-two-runners/README.md",
        "incidents/2026-12-01-two-runners/README.md.txt",
    )


def test_an_unsafe_folder_name_is_not_listed(tmp_path: Path) -> None:
    _incident(tmp_path, "ok", "# fine\n")
    (tmp_path / "incidents" / "bad name<script>").mkdir()
    assert [i.id for i in incidents(tmp_path)] == ["ok"]


def test_the_bundled_third_edition_discloses_its_incident_on_its_page(tmp_path: Path) -> None:
    from ledgerrate.publish.load import load_edition

    root = Path(__file__).resolve().parents[2] / "editions" / "2026-12"
    edition = load_edition(root)
    assert [i.id for i in edition.incidents] == ["2026-12-01-two-runners"]
    assert edition.incidents[0].title.startswith("2026-12-01: two runners wrote one cell")
