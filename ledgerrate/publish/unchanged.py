"""Whether a build has nothing to do, answered from stat calls alone.

The last successful build into a folder leaves `state/unchanged.json`: the stat of every file
and folder its inputs were read from (the editions' files, the package's code and templates,
the checkout's mkdocs.yml, the installed libraries' folder), the stat of the output folders it
swapped in, how it was asked to build (editions folder, engine, site URL) and the first moment at
which an edition then open closes its window. A later build whose stats all match, before that
moment, has the same inputs and the same output, so it stops without reading a file, loading a
schema or walking the output (182,007 files and 148,646 folders at ten 215-model editions).
Any difference sends it on to the full check in `publish/build.py`, which reads what changed.

A folder's mtime changes when an entry is added to it, removed or renamed, so a new, deleted or
renamed input is noticed without listing the folder; a file's (size, mtime, ctime, inode)
changes when it is written. A stamp taken within `_RACY_S` of a write cannot tell a later
write in the same clock tick apart, so a build whose inputs were touched that recently leaves
no record and the next build checks in full. The output is checked by its two folders: every
build swaps in new ones, and removing or adding an entry at their top changes them; an edit
by hand deeper inside `site/` is not noticed (delete `<out>/state` to build in full).
"""

from __future__ import annotations

import json
import os
import sysconfig
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FILE = "unchanged.json"
_RACY_S = 2.0


def _file_stamp(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _folder_stamp(st: os.stat_result) -> list[int]:
    return [st.st_mtime_ns, st.st_ino]


def _inputs(roots: Iterable[Path]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """Stamps of every file and folder under `roots`, as `cache.tree_digest` lists them (no
    `__pycache__`, nothing hidden), and of each root's parent folder (an edition added or
    removed beside it)."""
    files: dict[str, list[int]] = {}
    folders: dict[str, list[int]] = {}
    for root in roots:
        parent = os.path.dirname(root)
        folders[parent] = _folder_stamp(os.stat(parent))
        if os.path.isfile(root):
            files[str(root)] = _file_stamp(os.stat(root))
            continue
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
            folders[folder] = _folder_stamp(os.stat(folder))
            for name in names:
                if not name.startswith("."):
                    full = os.path.join(folder, name)
                    files[full] = _file_stamp(os.stat(full))
    return files, folders


def _outputs(out: Path) -> dict[str, list[int]]:
    return {name: _folder_stamp(os.stat(out / name)) for name in ("docs", "site")}


def _site_packages() -> list[Any]:
    site = sysconfig.get_paths()["purelib"]
    return [site, os.stat(site).st_mtime_ns]


def record(
    state: Path,
    roots: list[Path],
    out: Path,
    asked: list[Any],
    closes_next: float | None,
    folders: Iterable[Path] = (),
) -> None:
    """Remember a successful build (`asked`: what it was asked to build, as JSON; `roots`: every
    input file and folder; `closes_next`: the first window close still ahead, as a POSIX
    timestamp; `folders`: more folders whose entries decide the inputs, such as every folder
    beside the editions, one of which may become an edition)."""
    path = state / FILE
    path.unlink(missing_ok=True)
    now_ns = time.time_ns()
    files, stamps = _inputs(r for r in roots if r.exists())
    stamps.update({str(f): _folder_stamp(os.stat(f)) for f in folders})
    newest = max([s[1] for s in files.values()] + [s[0] for s in stamps.values()], default=0)
    if now_ns - newest < _RACY_S * 1e9:
        return  # touched too recently to trust its stamp: the next build checks in full
    doc = {
        "asked": asked,
        "closes_next": closes_next,
        "site_packages": _site_packages(),
        "outputs": _outputs(out),
        "files": files,
        "folders": stamps,
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, separators=(",", ":")), encoding="utf-8")
    os.replace(tmp, path)


def asked_of(editions: Path, engine: str, site_url: str | None) -> list[Any]:
    """How a build was asked to run, as the record keeps it."""
    return [str(Path(editions).resolve()), engine, site_url or ""]


def nothing_to_do(editions: Path, out: Path, engine: str, site_url: str | None) -> bool:
    """Whether `ledgerrate build` of `editions` into `out` can stop at once. Light to import
    (the command line asks it before importing the renderers, pandas among them)."""
    out = Path(out).resolve()
    asked = asked_of(editions, engine, site_url)
    return unchanged(out / "state", out, asked, time.time())


def unchanged(state: Path, out: Path, asked: list[Any], now: float) -> bool:
    """Whether the build recorded in `state` had these inputs, this output and this request,
    and no window has closed since; False whenever anything differs or cannot be read."""
    try:
        doc = json.loads((state / FILE).read_text(encoding="utf-8"))
        if doc["asked"] != asked or doc["site_packages"] != _site_packages():
            return False
        if doc["closes_next"] is not None and now >= doc["closes_next"]:
            return False
        if doc["outputs"] != _outputs(out):
            return False
        stat = os.stat
        for folder, stamp in doc["folders"].items():
            if _folder_stamp(stat(folder)) != stamp:
                return False
        for name, stamp in doc["files"].items():
            if _file_stamp(stat(name)) != stamp:
                return False
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return True
