"""The site's navigation, read off the rendered docs tree.

Without an explicit nav, mkdocs titles sections after folder names, and our folders are
permanent URL segments (`extract.invoice.v1`, `2026-11`) that read badly as titles. Each page's
own first heading is the title instead; sections come in the order a reader needs them.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from ledgerrate.publish import site_paths

# In the order a reader needs them; the folders are `site_paths`', which `render` also reserves.
SECTIONS = site_paths.SECTIONS
# A sidebar section with more entries than this shows only its index page, which lists them
# all: 215 model pages in every page's sidebar are unreadable, and each of a site's N pages then
# carries an N-entry nav (the theme rendered ~500 links into each drill-down, 80% of mkdocs'
# time on a 215-model edition).
MAX_SECTION_ENTRIES = 24
# Sections shown in the sidebar by their index page alone, whatever their length: the index
# lists every erratum (grouped by edition), primitive and workload (in the card's order), and
# fifteen errata or seven primitives made the sidebar longer than the page beside it.
INDEX_ONLY = frozenset(
    {site_paths.ERRATA, site_paths.PRIMITIVES, site_paths.WORKLOADS, site_paths.COMPARE}
)
# Sections that read best alphabetically (workload versions side by side); the others list
# their newest entry (edition, erratum, methodology version) first.
ALPHABETICAL = frozenset({site_paths.WORKLOADS, site_paths.MODELS})
_HEADING = re.compile(r"^#\s+(.+?)\s*$", re.MULTILINE)
_TAG = re.compile(r"<[^>]+>")


def page_title(path: Path) -> str:
    match = _HEADING.search(path.read_text(encoding="utf-8"))
    if match is None:
        return path.stem.replace("-", " ")
    # The theme prints nav titles as HTML without escaping them, and a heading may carry a
    # model name from an edition file: the title is plain text, escaped once here.
    return html.escape(html.unescape(_TAG.sub("", match.group(1))).strip(), quote=False)


def _natural(path: Path) -> list[Any]:
    # Erratum 2026-12-01-12 after -9, not between -1 and -2 (runs of digits compare as numbers;
    # re.split puts them at the same odd positions of every key, so int meets int).
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]


def _entries(docs: Path, folder: Path, omitted: list[str]) -> list[Any]:
    """Index page first, then pages, then sub-folders (newest edition/version first); a
    section too long for a sidebar is its index page alone, everything else in its folder
    named in `omitted` (gitignore patterns, for mkdocs' `not_in_nav`)."""
    entries: list[Any] = []
    index = folder / "index.md"
    if index.exists():
        entries.append(index.relative_to(docs).as_posix())
    pages = sorted((p for p in folder.glob("*.md") if p.name != "index.md"), key=_natural)
    subfolders = sorted((p for p in folder.iterdir() if p.is_dir()), key=_natural, reverse=True)
    if folder.name in ALPHABETICAL:
        subfolders.reverse()
    too_long = len(pages) + len(subfolders) > MAX_SECTION_ENTRIES
    if index.exists() and (too_long or folder.relative_to(docs).as_posix() in INDEX_ONLY):
        # The folder's whole content but its index, in two patterns rather than one per entry:
        # mkdocs matches every file of the site against every pattern (215 model folders made
        # two million matches). Files that are not pages are never in a nav either way.
        here = folder.relative_to(docs).as_posix()
        omitted.extend([f"/{here}/*", f"!/{here}/index.md"])
        return entries
    for page in pages:
        entries.append({page_title(page): page.relative_to(docs).as_posix()})
    for sub in subfolders:
        inner = _entries(docs, sub, omitted)
        if not inner:
            continue
        if len(inner) == 1 and isinstance(inner[0], str):
            entries.append({page_title(docs / inner[0]): inner[0]})
        else:
            title = page_title(sub / "index.md") if (sub / "index.md").exists() else sub.name
            entries.append({title: inner})
    return entries


def site_nav(docs: Path) -> tuple[list[Any], list[str]]:
    """The nav (mkdocs' `nav` setting) and the pages it leaves to their section's index page
    (patterns to add to `not_in_nav`, which strict mode otherwise reports as omitted)."""
    nav: list[Any] = []
    omitted: list[str] = []
    if (docs / site_paths.HOME).exists():
        nav.append({"Rate card": site_paths.HOME})
    for folder, title in SECTIONS:
        if (docs / folder).is_dir():
            entries = _entries(docs, docs / folder, omitted)
            if len(entries) == 1 and isinstance(entries[0], dict):
                # One sub-section (one methodology version): its pages are the section's, so
                # the section's label is a link to its index page, not a bare heading.
                (inner,) = entries[0].values()
                entries = inner if isinstance(inner, list) else entries
            if len(entries) == 1 and isinstance(entries[0], str):
                nav.append({title: entries[0]})
            elif entries:
                nav.append({title: entries})
    for page in sorted(p for p in docs.glob("*.md") if p.name != "index.md"):
        nav.append({page_title(page): page.name})
    return nav, omitted


def apply_nav(config: Any) -> None:
    """Give a loaded mkdocs config the site's nav (unless it names one), adding the pages the
    nav leaves to their section's index to `not_in_nav`."""
    if config.nav:
        return
    from pathspec.gitignore import GitIgnoreSpec

    nav, omitted = site_nav(Path(config.docs_dir))
    config.nav = nav
    extra = GitIgnoreSpec.from_lines(omitted)
    config["not_in_nav"] = extra if config.not_in_nav is None else config.not_in_nav + extra
