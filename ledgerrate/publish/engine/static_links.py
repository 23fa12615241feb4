"""The site's downloads as hard links to the rendered folder's files, not copies.

A 215-model edition's data page offers ~6,000 files (every cell's run and grade log, gzip, the
bundle, the datasets' PDFs), about 350 MB, and they are already hard links to the products
cache (`publish/cache.place_product`). mkdocs copies each into the site, byte for byte:
a sixth of its time on such an edition. Linked first, mkdocs' copy finds source and
destination the same file and leaves it (`File.copy_file` lets plugins write into site_dir).

Only files mkdocs would copy from the docs folder are linked: never a documentation page, a
file a plugin generated, or a theme's own asset. Where a link cannot be made (another
filesystem, as `mkdocs serve`'s temporary site may be), mkdocs copies as before.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import partial
from typing import Any

from mkdocs.structure.files import InclusionLevel

from ledgerrate.core import forked


def _listed(files: Any, docs_dir: str) -> list[Any]:
    """The static files of `files` that lie in `docs_dir`: never a documentation page, a file a
    plugin generated, or a theme's own asset."""
    docs = os.path.join(os.path.abspath(docs_dir), "")
    return [
        file
        for file in files
        if not file.is_documentation_page()
        and file.inclusion.is_included()
        and getattr(file, "_content", None) is None
        and file.abs_src_path is not None
        and file.abs_src_path.startswith(docs)
    ]


def _link(listed: Sequence[Any]) -> list[int]:
    """Hard-link each file into the site; the indices of those linked."""
    made: set[str] = set()
    linked = []
    for index, file in enumerate(listed):
        target = file.abs_dest_path
        folder = os.path.dirname(target)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        try:
            os.link(file.abs_src_path, target)
        except FileExistsError:
            continue  # already there (another plugin wrote it): mkdocs decides as before
        except OSError:
            break  # no links on this filesystem: mkdocs copies the rest
        linked.append(index)
    return linked


def _in_place(file: Any) -> None:
    # So mkdocs' copy (of included files only; every link to this one was checked when the
    # pages were converted) passes it by: finding a linked file to be the same file again
    # cost ~40 microseconds each, 2.4 s at ten 215-model editions. `mkdocs serve` still
    # copies a draft, and finds it the same file.
    file.inclusion = InclusionLevel.DRAFT


def link_static_files(files: Any, docs_dir: str) -> int:
    """Hard-link every static file of `files` that lies in `docs_dir` to its place in the
    site; the number linked."""
    listed = _listed(files, docs_dir)
    linked = _link(listed)
    for index in linked:
        _in_place(listed[index])
    return len(linked)


# Fewer files than this are linked in a moment: not worth a process.
MIN_BESIDE = 2_000


class StaticLinks:
    """mkdocs plugin events (registered by `publish.engine.run.run_mkdocs` and the mkdocs hook).

    With `beside`, the links are made in a forked process while mkdocs converts the pages
    (`forked.beside`): at ten 215-model editions, 63,000 links took 4 s of one core while the
    other idled. Only `ledgerrate build` asks for it, never `mkdocs serve`'s server."""

    def __init__(self, beside: bool = False) -> None:
        self._beside = beside
        self._side: forked.Beside | None = None
        self._listed: list[Any] = []

    def on_files(self, files: Any, config: Any, **_: Any) -> Any:
        if self._beside and forked.workers(2) > 1:
            listed = _listed(files, config.docs_dir)
            if len(listed) >= MIN_BESIDE:
                self._listed = listed
                self._side = forked.beside(partial(_link, listed))
        return files

    def on_env(self, env: Any, config: Any, files: Any, **_: Any) -> Any:
        # The last event before mkdocs copies the static files: every plugin has had its say
        # on which files there are.
        side, self._side = self._side, None
        if side is not None:
            from mkdocs.exceptions import PluginError

            try:
                linked = side.join()
            except forked.BesideFailed as failed:
                raise PluginError(f"linking the downloads into the site failed: {failed}") from None
            for index in linked:
                file = self._listed[index]
                if file.inclusion.is_included():
                    _in_place(file)
                else:  # excluded after it was listed (mkdocs.yml's exclude_docs): not published
                    os.unlink(file.abs_dest_path)
            self._listed = []
        link_static_files(files, config.docs_dir)  # any file listed since, or in this process
        return env

    def on_build_error(self, **_: Any) -> None:
        side, self._side = self._side, None
        if side is not None:
            side.kill()

    # The last `files` handler: every plugin has added its files.
    on_files.mkdocs_priority = -200  # type: ignore[attr-defined]
    on_env.mkdocs_priority = -100  # type: ignore[attr-defined]
