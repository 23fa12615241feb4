"""The site's pages as build products: a build re-renders a page only when what it shows, the
page code or a template it read changed.

Every build that was not a no-change one rendered all of the site's pages again. At ten
215-model editions that was a third of a build after a one-line change to one template (each
workload's ten edition pages, each edition's page and every model's), though the change
reached seven pages.

A page job (`PageJob`) writes one or a few pages with their charts and tables. Its product is
the list of the files it wrote, each kept in the cache by its own digest (kind `page-file`, a
hard link), under a key made of:
- the job's name and its inputs: the keys of the editions it shows (each the digest of the
  edition's folder and whether it is provisional, from `build`), and whatever else the job
  shows (a data page's list of downloads);
- the page code: `BuildCache.code("pages")`, every module the pages import, but no template;
- the name and digest of every template the job read, `{% include %}`, `{% import %}` and
  `{% extends %}` included, as the environment (`Recording`) noted them while it ran.

Which templates a job reads is known only once it ran, so a first key, without them, leads to
the names the job read last time (`page-templates/<key>`, a hint, replaced when it changes).
The product is kept under the key made with the digests of the templates the run noted, so a
product is found only under the very templates it was made from: a stale hint finds nothing,
and the job runs again.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment

from ledgerrate.publish.cache import BuildCache, key_of, place_product

KIND = "pages"
FILES = "page-file"
_HINTS = "page-templates"


class Recording(Environment):
    """A jinja environment that notes the name of every template it hands out while `read` is
    a set: those a page job's output can depend on."""

    read: set[str] | None = None

    def _load_template(self, name: Any, globals: Any) -> Any:
        if self.read is not None:
            self.read.add(name)
        return super()._load_template(name, globals)


@dataclass(frozen=True)
class PageJob:
    name: str  # stable across builds, unique among a build's jobs
    inputs: Any  # canonical JSON: what the pages show besides the code and the templates
    # Writes its pages into the docs folder it is given; what it returns (JSON) is kept with
    # its files and returned again when they are placed.
    write: Callable[[Path], Any]


@dataclass(frozen=True)
class PageStore:
    """Runs page jobs, or places the files of their last run with the same key."""

    cache: BuildCache
    env: Recording
    templates: Path  # the folder the environment loads from
    scratch: Path  # a folder beside the docs, for a job's run

    def run(self, job: PageJob, docs: Path) -> Any:
        """The job's files into `docs`, and what it returned."""
        first = key_of(KIND, self.cache.code(KIND), job.name, job.inputs)
        hint = self._hint(first)
        try:
            second = self._key(first, hint) if hint is not None else None
        except FileNotFoundError:  # a template the job read last time is gone (an upgrade)
            second = None
        if second is not None:
            found = self.cache.stored(KIND, second)
            kept = json.loads(found.read_bytes()) if found is not None else None
            if kept is not None and self._place(kept["files"], docs):
                return kept["result"]
        return self._make(job, first, docs)

    def _key(self, first: str, names: list[str]) -> str:
        read = [(name, self.cache.file_digest(self.templates / name)) for name in sorted(names)]
        return key_of(first, read)

    def _hint_path(self, first: str) -> Path:
        return self.cache.root / _HINTS / first

    def _hint(self, first: str) -> list[str] | None:
        try:
            names = json.loads(self._hint_path(first).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        ok = isinstance(names, list) and all(isinstance(n, str) for n in names)
        return names if ok else None

    def _place(self, files: dict[str, str], docs: Path) -> bool:
        """Link the product's files into `docs`; False if one of them is missing (made again)."""
        entries = {rel: self.cache.stored(FILES, digest) for rel, digest in files.items()}
        if any(entry is None for entry in entries.values()):
            return False
        for rel, entry in entries.items():
            assert entry is not None
            place_product(entry, docs / rel)
        return True

    def _make(self, job: PageJob, first: str, docs: Path) -> Any:
        own = self.scratch / key_of(job.name)
        shutil.rmtree(own, ignore_errors=True)
        own.mkdir(parents=True)
        read: set[str] = set()
        self.env.read = read
        try:
            result = job.write(own)
        finally:
            self.env.read = None
        files = {}
        for folder, _, names in os.walk(own):
            for name in names:
                path = Path(folder, name)
                rel = path.relative_to(own).as_posix()
                files[rel] = self.cache.adopt(FILES, path)
                target = docs / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(path, target)
        shutil.rmtree(own, ignore_errors=True)
        kept = json.dumps({"files": files, "result": result}, sort_keys=True).encode()
        self.cache.product_path(KIND, self._key(first, sorted(read)), lambda: kept)
        hint = self._hint_path(first)
        hint.parent.mkdir(parents=True, exist_ok=True)
        scratch = hint.with_name(f".{hint.name}.{os.getpid()}.tmp")
        scratch.write_text(json.dumps(sorted(read)), encoding="utf-8")
        os.replace(scratch, hint)
        # as a placed product returns it: the same JSON either way
        return json.loads(kept)["result"]
