"""Operator incidents an edition discloses: `incidents/<id>/README.md` and the files set aside.

When something went wrong while an edition was run (an operator error, a log that had to be
set aside), the evidence is kept in the edition under `incidents/<id>/`, byte for byte, with a
README saying what happened. The edition page names each incident and links its README and
files as downloads; the text itself is never rendered as markup (edition files are untrusted),
only its first heading is shown, escaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ledgerrate.publish.safe import segment

FOLDER = "incidents"
README = "README.md"
TITLE_CHARS = 200


@dataclass(frozen=True)
class Incident:
    id: str
    title: str
    files: list[str]
    """Paths relative to the edition folder, README first."""

    @property
    def downloads(self) -> list[tuple[str, str]]:
        """(edition path, download path) of each file."""
        return [(f, download_name(f)) for f in self.files]


def download_name(path: str) -> str:
    """A markdown file goes out as text: the site engine would render `README.md` as a page,
    and an edition file's markup is never rendered."""
    return f"{path}.txt" if path.endswith(".md") else path


def _title(readme: Path, fallback: str) -> str:
    if not readme.is_file():
        return fallback
    for line in readme.read_text(encoding="utf-8", errors="replace").splitlines():
        text = line.strip().lstrip("#").strip()
        if text:
            return text[:TITLE_CHARS]
    return fallback


def incidents(root: Path) -> list[Incident]:
    """Every incident folder of the edition whose name is a safe URL segment, oldest first."""
    base = root / FOLDER
    if not base.is_dir():
        return []
    found = []
    for folder in sorted(p for p in base.iterdir() if p.is_dir() and not p.is_symlink()):
        try:
            segment(folder.name)
        except ValueError:
            continue
        files = sorted(
            p.relative_to(root).as_posix()
            for p in folder.rglob("*")
            if p.is_file() and not p.is_symlink() and not p.name.startswith(".")
        )
        files.sort(key=lambda f: not f.endswith("/" + README))
        found.append(Incident(folder.name, _title(folder / README, folder.name), files))
    return found
