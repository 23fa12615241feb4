"""The operator's facts about the site (`editions/site.yaml`, `schema/site.py`) on its pages.

The home page and the About page carry them under "Who runs this site"; a fact the file leaves
out (or a site without the file) reads "Not stated", never a guess. The About page is written
by hand, so its block is appended to the copy the build makes of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.io import load_model
from ledgerrate.schema import SITE_FILE, SiteFacts

if TYPE_CHECKING:  # the build's no-change check imports `digest` without loading jinja
    from jinja2 import Environment

ABOUT = "about.md"


def load_site_facts(editions_dir: Path) -> SiteFacts:
    """The facts `site.yaml` beside the edition folders states; none when there is no file.
    A file that does not validate stops the build with one line naming the file and field."""
    path = editions_dir / SITE_FILE
    return load_model(SiteFacts, path) if path.is_file() else SiteFacts()


def digest(editions_dir: Path) -> str:
    """What the build's no-change check must see of the file: a change to it alone changes the
    home and About pages (publish/build.py)."""
    path = editions_dir / SITE_FILE
    return sha256_bytes(path.read_bytes()) if path.is_file() else "absent"


def append_to_about(env: Environment, facts: SiteFacts, docs: Path) -> None:
    about = docs / ABOUT
    if not about.is_file():
        return
    block = env.get_template("_site_facts.md.j2").module.block(facts, "")  # type: ignore[attr-defined]
    about.write_text(about.read_text("utf-8").rstrip("\n") + "\n\n" + str(block), "utf-8")
