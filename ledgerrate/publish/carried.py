"""Folders of the site that skip the static-site engine and pass from one build to the next.

At ten 215-model editions the drill-down's cell pages are 28,020 files in 43,000 folders, and
the editions' run and grade logs 56,000 files more. Every build that was not a no-change one
made them again: hard links from the products cache into the rendered docs, mkdocs listing and
linking each into the site, and, once the new site was swapped in, the old one deleted, file by
file. That was most of a build after a one-template upgrade or an added edition, though not one
of those files had changed, and no page of the engine reads them.

So a workload's cell folders (`runs/<edition>/<workload>/`, `publish/drilldown.py`) and an
edition's log folders (`data/<edition>/runs|grades/`, `publish/downloads.py`) are written
beside the engine's input, into `staging/carried/`, and moved into the built site once the
engine has written its own pages there (`assemble`). Each such folder is named by the digest of
what it holds (every cell page's cache key; every log's gzip digest). The last build's keys are
kept in `out/state/carried.json` with the inode of the site they were swapped in with; a folder
whose key is unchanged is not written at all (`Carried.folder`): the swap (`swap_in`) moves it
from the outgoing site into the new one, a rename per folder, in the moment the site was
already being renamed into place. A site edited by hand, or swapped by an earlier toolchain,
has another inode or no record: its folders are written again.

`ledgerrate build` alone uses this; `render_into` without a `Carried` (plain `mkdocs build`,
`mkdocs serve`, the tests of the rendered docs) writes the cell pages and logs into the docs as
before.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ledgerrate.core.io import atomic_write_bytes

STATE = "carried.json"
# What a forked worker reports of a folder for `Carried.note`: its place in the site, its key,
# whether it was written, and the files it holds.
Noted = tuple[str, str, bool, list[str]]


@dataclass
class Carried:
    live: Path  # the site now published (`out/site`)
    staging: Path  # where the folders this build writes go, until `assemble`
    remembered: dict[str, str] = field(default_factory=dict)  # folder -> key, in `live`
    keys: dict[str, str] = field(default_factory=dict)  # folder -> key, in this build's site
    kept: set[str] = field(default_factory=set)  # folders to move from `live` at the swap
    # Every file of the folders, as a path in the site: links to them are checked by the engine
    # (`engine/raw_html.py`), which does not see them.
    files: set[str] = field(default_factory=set)

    @classmethod
    def open(cls, state: Path, live: Path, staging: Path) -> Carried:
        """The folders of `live` that the last build recorded in `state` (none if the site
        there is not the one it swapped in)."""
        carried = cls(live, staging)
        try:
            record = json.loads((state / STATE).read_text(encoding="utf-8"))
            if record["site"] == live.stat().st_ino:
                carried.remembered = dict(record["folders"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return carried

    def folder(self, rel: str, key: str) -> Path | None:
        """Where to write folder `rel` made from `key`, or None when the live site holds it as
        `key` made it (it is then moved across at the swap)."""
        if self.remembered.get(rel) == key and (self.live / rel).is_dir():
            return None
        return self.staging / rel

    def note(self, rel: str, key: str, written: bool, files: list[str]) -> None:
        """Record `folder`'s answer, and the `files` (paths in the folder) it holds (a forked
        worker asks; its parent notes what it did)."""
        self.keys[rel] = key
        self.files.update(f"{rel}/{name}" for name in files)
        if written:
            self.kept.discard(rel)
        else:
            self.kept.add(rel)

    def assemble(self, site: Path) -> None:
        """Move the folders this build wrote into `site`, the engine's output."""
        for rel in sorted(self.keys):
            if rel not in self.kept:
                _merge(self.staging / rel, site / rel, [])

    def swap_in(self, site: Path, graveyard: Path) -> None:
        """Publish `site` as `live`: the old site goes to `graveyard`, and the folders this
        build kept move from it into `site` before `site` takes the live name. Each step is a
        rename; a failure undoes them, old site included, before it is raised."""
        missing = [rel for rel in self.kept if not (self.live / rel).is_dir()]
        if missing:
            raise FileNotFoundError(f"{self.live / sorted(missing)[0]}: gone during the build")
        undo: list[Callable[[], object]] = []
        if self.live.exists():
            self.live.rename(graveyard)
            undo.append(partial(graveyard.rename, self.live))
        try:
            for rel in sorted(self.kept):
                _merge(graveyard / rel, site / rel, undo, aside=graveyard)
            site.rename(self.live)
        except BaseException:
            for step in reversed(undo):
                step()
            raise

    @staticmethod
    def forget(state: Path) -> None:
        """Before a swap: a crash between it and `remember` leaves no record, so the next build
        writes every folder again rather than trust a record of another site."""
        (state / STATE).unlink(missing_ok=True)

    def remember(self, state: Path) -> None:
        """Record the folders of the site just swapped in, for the next build."""
        record = {"site": self.live.stat().st_ino, "folders": dict(sorted(self.keys.items()))}
        atomic_write_bytes(state / STATE, json.dumps(record, sort_keys=True).encode())


def _merge(
    folder: Path, into: Path, undo: list[Callable[[], object]], aside: Path | None = None
) -> None:
    """Move `folder` to `into`, where the engine may already have written pages of its own
    (the items page beside a workload's cell folders): those files move into `folder` first,
    and a file of the same name there (the outgoing site's page) goes to `aside`. Each rename
    is appended to `undo` as the step that reverses it."""
    if into.is_dir():
        for entry in os.scandir(into):
            if entry.is_dir(follow_symlinks=False):
                raise IsADirectoryError(f"{into / entry.name}: written by the engine and carried")
            source, target = Path(entry.path), folder / entry.name
            if target.exists():
                if aside is None:
                    raise FileExistsError(f"{target}: written by the engine and carried")
                old = aside / f".replaced-{len(undo)}-{entry.name}"
                target.rename(old)
                undo.append(partial(old.rename, target))
            source.rename(target)
            undo.append(partial(target.rename, source))
        into.rmdir()
        undo.append(into.mkdir)
    else:
        into.parent.mkdir(parents=True, exist_ok=True)
    folder.rename(into)
    undo.append(partial(into.rename, folder))
