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

SECTIONS = (
    ("editions", "Editions"),
    ("workloads", "Workloads"),
    ("primitives", "Primitives"),
    ("models", "Models"),
    ("compare", "Compare"),
    ("methodology", "Methodology"),
    ("data", "Data"),
    ("errata", "Errata"),
)
_HEADING = re.compile(r"^#\s+(.+?)\s*$", re.MULTILINE)
_TAG = re.compile(r"<[^>]+>")


def page_title(path: Path) -> str:
    match = _HEADING.search(path.read_text(encoding="utf-8"))
    if match is None:
        return path.stem.replace("-", " ")
    # The theme prints nav titles as HTML without escaping them, and a heading may carry a
    # model name from an edition file: the title is plain text, escaped once here.
    return html.escape(html.unescape(_TAG.sub("", match.group(1))).strip(), quote=False)


def _entries(docs: Path, folder: Path) -> list[Any]:
    """Index page first, then pages, then sub-folders (newest edition/version first)."""
    entries: list[Any] = []
    index = folder / "index.md"
    if index.exists():
        entries.append(index.relative_to(docs).as_posix())
    for page in sorted(p for p in folder.glob("*.md") if p.name != "index.md"):
        entries.append({page_title(page): page.relative_to(docs).as_posix()})
    subfolders = sorted((p for p in folder.iterdir() if p.is_dir()), reverse=True)
    if folder.name == "workloads":
        subfolders.reverse()  # workloads read best alphabetically, versions side by side
    for sub in subfolders:
        inner = _entries(docs, sub)
        if not inner:
            continue
        if len(inner) == 1 and isinstance(inner[0], str):
            entries.append({page_title(docs / inner[0]): inner[0]})
        else:
            title = page_title(sub / "index.md") if (sub / "index.md").exists() else sub.name
            entries.append({title: inner})
    return entries


def site_nav(docs: Path) -> list[Any]:
    nav: list[Any] = []
    if (docs / "index.md").exists():
        nav.append({"Rate card": "index.md"})
    for folder, title in SECTIONS:
        if (docs / folder).is_dir():
            entries = _entries(docs, docs / folder)
            if entries:
                nav.append({title: entries})
    for page in sorted(p for p in docs.glob("*.md") if p.name != "index.md"):
        nav.append({page_title(page): page.name})
    return nav
