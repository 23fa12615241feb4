"""Static assets the site serves itself, so no page makes a request that leaves the site.

The theme's web fonts would come from a third-party host; the site uses DejaVu Sans instead
(the face of the PDF card and the charts), copied from matplotlib's own package data so the
bytes are pinned with the dependency and no system path is needed.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

from ledgerrate.core.io import atomic_write_bytes

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
    source = _matplotlib_data() / "fonts" / "ttf"
    written = []
    for name in (*FONTS, "LICENSE_DEJAVU"):
        path = source / name
        if not path.is_file():
            continue  # the licence file is missing from some matplotlib builds
        target = docs / FONT_DIR / name
        atomic_write_bytes(target, path.read_bytes())
        written.append(target)
    return written


def _matplotlib_data() -> Path:
    """matplotlib's `mpl-data` folder (what `matplotlib.get_data_path()` returns), found without
    importing matplotlib: a build whose charts all come from the cache never loads it, and
    importing it costs more than the rest of such a build's own work."""
    spec = find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("matplotlib is not installed; the site's fonts come from it")
    return Path(spec.origin).parent / "mpl-data"
