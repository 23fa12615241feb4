"""The site's downloads as hard links to the rendered folder's files, not copies.

A 215-model edition's data page offers ~6,000 files (every cell's run and grade log, gzip, the
bundle, the datasets' PDFs), about 350 MB, and they are already hard links to the products
cache (`publish/downloads.place_product`). mkdocs copies each into the site, byte for byte:
a sixth of its time on such an edition. Linked first, mkdocs' copy finds source and
destination the same file and leaves it (`File.copy_file` lets plugins write into site_dir).

Only files mkdocs would copy from the docs folder are linked: never a documentation page, a
file a plugin generated, or a theme's own asset. Where a link cannot be made (another
filesystem, as `mkdocs serve`'s temporary site may be), mkdocs copies as before.
"""

from __future__ import annotations

import os
from typing import Any

from mkdocs.structure.files import InclusionLevel


def link_static_files(files: Any, docs_dir: str) -> int:
    """Hard-link every static file of `files` that lies in `docs_dir` to its place in the
    site; the number linked."""
    docs = os.path.join(os.path.abspath(docs_dir), "")
    made: set[str] = set()
    linked = 0
    for file in files:
        source = file.abs_src_path
        if (
            file.is_documentation_page()
            or not file.inclusion.is_included()
            or getattr(file, "_content", None) is not None
            or source is None
            or not source.startswith(docs)
        ):
            continue
        target = file.abs_dest_path
        folder = os.path.dirname(target)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        try:
            os.link(source, target)
        except FileExistsError:
            continue  # already there (another plugin wrote it): mkdocs decides as before
        except OSError:
            return linked  # no links on this filesystem: mkdocs copies the rest
        # In place, so mkdocs' copy (of included files only; every link to this one was
        # checked when the pages were converted) passes it by: finding a linked file to be the
        # same file again cost ~40 microseconds each, 2.4 s at ten 215-model editions.
        # `mkdocs serve` still copies a draft, and finds it the same file.
        file.inclusion = InclusionLevel.DRAFT
        linked += 1
    return linked


class StaticLinks:
    """mkdocs plugin event (registered by `publish.build.run_mkdocs` and the mkdocs hook)."""

    def on_env(self, env: Any, config: Any, files: Any, **_: Any) -> Any:
        # The last event before mkdocs copies the static files: every plugin has had its say
        # on which files there are.
        link_static_files(files, config.docs_dir)
        return env

    on_env.mkdocs_priority = -100  # type: ignore[attr-defined]
