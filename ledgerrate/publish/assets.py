"""Static assets the site serves itself, so no page makes a request that leaves the site.

The theme's web fonts would come from a third-party host; the site uses DejaVu Sans instead
(the face of the PDF card and the charts), copied from matplotlib's own package data so the
bytes are pinned with the dependency and no system path is needed.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

from ledgerrate.io import atomic_write_bytes

FONTS = (
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "DejaVuSans-Oblique.ttf",
    "DejaVuSansMono.ttf",
    "DejaVuSansMono-Bold.ttf",
)
FONT_DIR = "assets/fonts"


def write_fonts(docs: Path) -> list[Path]:
    """Copy the site's fonts (and their licence) into `docs/assets/fonts`."""
    source = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    written = []
    for name in (*FONTS, "LICENSE_DEJAVU"):
        path = source / name
        if not path.is_file():
            continue  # the licence file is missing from some matplotlib builds
        target = docs / FONT_DIR / name
        atomic_write_bytes(target, path.read_bytes())
        written.append(target)
    return written
