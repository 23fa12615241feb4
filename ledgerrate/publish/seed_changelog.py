"""Each methodology version's changelog lists the seed releases of its editions, and says so
plainly where an edition's seeds were lost (the changelog is hand-written; this part is not,
so it can never fall behind the sealed statements)."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment

from ledgerrate.core.io import atomic_write_text
from ledgerrate.publish.load import Edition
from ledgerrate.publish.safe import segment

TEMPLATE = "changelog_seeds.md.j2"


def append_seed_changelog(env: Environment, editions: list[Edition], docs: Path) -> None:
    for version in sorted({e.manifest.methodology_version for e in editions}):
        page = docs / "methodology" / segment(version) / "changelog.md"
        if not page.is_file():
            continue
        mine = [e for e in editions if e.manifest.methodology_version == version]
        section = env.get_template(TEMPLATE).render({"root": "../../", "editions": mine})
        atomic_write_text(page, page.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + section)
