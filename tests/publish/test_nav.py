"""The sidebar: sections in reading order, and a long section left to its index page.

A 215-model edition put every model page into every page's sidebar (about 500 links rendered
into each of 3,000 pages); the strict build must still accept the pages the sidebar leaves out.
"""

from __future__ import annotations

from pathlib import Path

from ledgerrate.publish.engine.nav import MAX_SECTION_ENTRIES, site_nav
from ledgerrate.publish.engine.run import run_mkdocs

MODELS = MAX_SECTION_ENTRIES + 6


def _docs(root: Path, models: int) -> Path:
    docs = root / "docs"
    (docs / "editions" / "2027-01").mkdir(parents=True)
    (docs / "index.md").write_text("# Rate card\n", "utf-8")
    (docs / "editions" / "index.md").write_text("# Editions\n", "utf-8")
    (docs / "editions" / "2027-01" / "index.md").write_text("# Edition 2027-01\n", "utf-8")
    lines = ["# Models", ""]
    for n in range(models):
        page = docs / "models" / f"m{n:03d}" / "index.md"
        page.parent.mkdir(parents=True)
        page.write_text(f"# Model <b>{n}</b> & co\n\n[All models](../index.md)\n", "utf-8")
        lines.append(f"- [m{n:03d}](m{n:03d}/index.md)")
    (docs / "models" / "index.md").write_text("\n".join(lines) + "\n", "utf-8")
    return docs


def test_short_sections_list_their_pages_by_heading(tmp_path: Path) -> None:
    nav, omitted = site_nav(_docs(tmp_path, 3))
    sections = {next(iter(entry)): next(iter(entry.values())) for entry in nav}
    assert list(sections) == ["Rate card", "Editions", "Models"]
    edition = {"Edition 2027-01": "editions/2027-01/index.md"}
    assert sections["Editions"] == ["editions/index.md", edition]
    # Titles are the pages' headings as plain text (tags dropped), escaped once.
    assert {"Model 0 &amp; co": "models/m000/index.md"} in sections["Models"]
    assert omitted == []


def test_a_long_section_is_its_index_page_alone(tmp_path: Path) -> None:
    nav, omitted = site_nav(_docs(tmp_path, MODELS))
    assert {"Models": "models/index.md"} in nav
    # The folder but its index, as two patterns: mkdocs matches every file against each one.
    assert omitted == ["/models/*", "!/models/index.md"]


def test_strict_build_accepts_the_pages_the_sidebar_leaves_out(tmp_path: Path) -> None:
    docs = _docs(tmp_path, MODELS)
    site = tmp_path / "site"
    run_mkdocs(docs, site)  # strict: an omitted page not in `not_in_nav` would fail it
    page = (site / "models" / "m007" / "index.html").read_text("utf-8")
    index = (site / "models" / "index.html").read_text("utf-8")
    assert "m007/" in index  # reached from its section's index page
    assert 'href="../m008/"' not in page  # and no model page lists the others
    assert "Model <b>7</b> &amp; co" in page


def test_errata_are_one_entry_and_models_alphabetical(tmp_path: Path) -> None:
    docs = _docs(tmp_path, 3)
    for n in (1, 2, 9, 10, 12):
        page = docs / "errata" / f"2026-12-01-{n}" / "index.md"
        page.parent.mkdir(parents=True)
        page.write_text(f"# Erratum 2026-12-01-{n}\n", "utf-8")
    (docs / "errata" / "index.md").write_text("# Errata\n", "utf-8")
    nav, omitted = site_nav(docs)
    sections = {next(iter(entry)): next(iter(entry.values())) for entry in nav}
    # Errata, however few, are one index entry: the index page lists them by edition.
    assert sections["Errata"] == "errata/index.md"
    assert omitted == ["/errata/*", "!/errata/index.md"]
    models = [next(iter(e.values())) for e in sections["Models"][1:]]
    assert models == [f"models/m{n:03d}/index.md" for n in range(3)]


def test_compare_is_one_entry_and_a_single_methodology_version_is_the_section(
    tmp_path: Path,
) -> None:
    docs = _docs(tmp_path, 3)
    (docs / "compare").mkdir()
    (docs / "compare" / "index.md").write_text("# Compare models\n", "utf-8")
    for edition in ("2027-01", "2027-02"):
        page = docs / "compare" / edition / "index.md"
        page.parent.mkdir(parents=True)
        page.write_text(f"# Compare models (edition {edition})\n", "utf-8")
    for name in ("index", "figures"):
        page = docs / "methodology" / "1.0" / f"{name}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"# {name}\n", "utf-8")
    nav, _ = site_nav(docs)
    sections = {next(iter(entry)): next(iter(entry.values())) for entry in nav}
    # "Compare" opens the page that lists every edition's comparison.
    assert sections["Compare"] == "compare/index.md"
    # "Methodology" is a link (its first entry is the version's index page), not a label.
    assert sections["Methodology"][0] == "methodology/1.0/index.md"
