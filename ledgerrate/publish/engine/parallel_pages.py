"""The site's drill-down pages written by forked processes beside mkdocs' own page loop.

mkdocs writes pages one at a time, and at ten 215-model editions (28,000 pages) its page loop
kept one core of two busy for tens of seconds while the other idled: every page was already
converted (markdown, table of contents, anchors) and only the theme, the raw-HTML blocks
(`engine/raw_html.py`) and the file write were left. So once every page is converted (mkdocs'
`env` event), the process forks: each child writes a share of the drill-down pages, the pages
outside the navigation that the search leaves out, and mkdocs' own loop, in the parent, passes
over them with a template that writes nothing. What a child learns per kind of page
(`engine/shared_frame.py`, `shared_nav.py`) it learns from its own pages.

Everything mkdocs checks is still checked: the anchors of every page after the loop (from
what the conversion recorded, in the parent), and a warning in a child is logged again in the
parent before mkdocs counts them, so `--strict` fails as it would have. A child that fails or
dies fails the build, and a build that fails kills its children: the site is built in a
staging folder and published whole or not at all (`publish/build.py`).
`tests/publish/test_parallel_pages.py` proves the site byte-identical to one process's.

The per-cell pages have since left mkdocs (plain HTML, `publish/drilldown.py`): what is left
to delegate is the items pages (one per edition and workload, 70 at ten editions), fewer than
a share is worth (`MIN_SHARE`), so at that size mkdocs' own loop writes every page again.

Only `ledgerrate build` forks (`publish.engine.run.run_mkdocs`): `mkdocs serve` rebuilds in its own
server, and `LEDGERRATE_WORKERS=1` keeps one process.
"""

from __future__ import annotations

import logging
import os
import traceback
from collections.abc import Sequence
from functools import partial
from typing import Any

from jinja2 import ChoiceLoader, DictLoader

from ledgerrate.core import forked

# The template the parent gives a page a child writes: it renders nothing, so mkdocs writes
# nothing for it ("Page skipped", at info level).
ELSEWHERE = "ledgerrate-built-elsewhere.html"
# A share smaller than this is not worth a process.
MIN_SHARE = 200
# What a page costs to write, as bytes of its source: the theme's frame and the file's
# creation, beside the raw HTML read, spliced and written per byte. A page the parent keeps
# (in the navigation and the search, with the sidebar and headings of its own) costs about
# five times a drill-down page of its size. Measured at ten 215-model editions: 28,020
# drill-down pages of 37 KB on average took 0.72 ms each, 276 other pages of 399 KB 19 ms.
PAGE_COST_BYTES = 48_000
KEPT_WEIGHT = 5
_log = logging.getLogger("mkdocs.plugins.ledgerrate.parallel_pages")


def _delegable(file: Any, in_nav: set[int]) -> bool:
    page = file.page
    meta = page.meta or {}
    search = meta.get("search")
    return id(page) not in in_nav and isinstance(search, dict) and search.get("exclude") is True


def _cost(file: Any, delegable: bool) -> int:
    try:
        size = os.stat(file.abs_src_path).st_size
    except OSError:
        size = 0
    return (PAGE_COST_BYTES + size) * (1 if delegable else KEPT_WEIGHT)


def shares(costs: Sequence[int], delegable: Sequence[bool], processes: int) -> list[list[int]]:
    """Page indices per process (the first is the parent): the delegable pages are dealt in
    runs of consecutive pages (pages of one kind sit together, and each process learns a
    kind's frame once) so that every process's total cost is about the same; the parent keeps
    every page that is not delegable."""
    total = sum(costs)
    parent = [i for i, d in enumerate(delegable) if not d]
    kept = sum(costs[i] for i in parent)
    # The parent's own pages may outweigh an even share: the children then share the rest.
    target = min(total / processes, (total - kept) / (processes - 1))
    movable = [i for i, d in enumerate(delegable) if d]
    # Children take runs from the end of the delegable pages; the parent keeps the rest.
    children: list[list[int]] = []
    end = len(movable)
    for _ in range(processes - 1):
        share: list[int] = []
        spent = 0
        while end > 0 and spent < target:
            end -= 1
            share.append(movable[end])
            spent += costs[movable[end]]
        children.append(sorted(share))
    children = [share for share in children if len(share) >= MIN_SHARE]
    given = {i for share in children for i in share}
    return [sorted(parent + [i for i in movable if i not in given]), *children]


def _restrict(config: Any, pages: Sequence[Any]) -> None:
    """Tell every plugin that keeps per-page state which pages this process writes."""
    for plugin in list(config.plugins.values()):
        keep = getattr(plugin, "keep_pages", None)
        if keep is not None:
            keep(pages)


def _write_share(pages: Sequence[Any], config: Any, files: Any, nav: Any, env: Any) -> Any:
    """In a child: write `pages` as mkdocs' loop would; the report to send the parent."""
    from mkdocs.commands.build import _build_page
    from mkdocs.structure.files import InclusionLevel

    from ledgerrate.publish.engine.warning_lines import WarningLines

    logger = logging.getLogger("mkdocs")
    capture = WarningLines()
    # The parent shows and counts what a child logs; the child shows nothing itself.
    logger.handlers = [capture]
    logger.propagate = False
    error = None
    try:
        _restrict(config, pages)
        doc_files = files.documentation_pages(inclusion=InclusionLevel.is_included)
        for page in pages:
            _build_page(page, config, doc_files, nav, env)
    except BaseException:  # any failure goes to the parent, which fails the build
        error = traceback.format_exc()
    return {"warnings": capture.lines, "error": error}


class ParallelPages:
    """mkdocs plugin events (registered by `publish.engine.run.run_mkdocs`)."""

    def __init__(self) -> None:
        self._children: list[forked.Beside] = []
        self._nav: Any = None

    def on_nav(self, nav: Any, **_: Any) -> Any:
        self._nav = nav
        return nav

    def on_env(self, env: Any, config: Any, files: Any, **_: Any) -> Any:
        if self._nav is None:
            return env
        docs = files.documentation_pages()
        in_nav = {id(page) for page in self._nav.pages}
        delegable = [_delegable(f, in_nav) for f in docs]
        count = forked.workers(sum(delegable) // MIN_SHARE)
        if count < 2:
            return env
        costs = [_cost(f, d) for f, d in zip(docs, delegable, strict=True)]
        split = shares(costs, delegable, count)
        if len(split) < 2:
            return env
        env.loader = ChoiceLoader([DictLoader({ELSEWHERE: ""}), env.loader])
        pages = [[docs[i].page for i in share] for share in split]
        nav = self._nav
        for share in pages[1:]:
            self._children.append(
                forked.beside(partial(_write_share, share, config, files, nav, env))
            )
        for share in pages[1:]:
            for page in share:
                page.meta = {**(page.meta or {}), "template": ELSEWHERE}
        _restrict(config, pages[0])
        return env

    def on_post_build(self, **_: Any) -> None:
        from mkdocs.exceptions import PluginError

        children, self._children = self._children, []
        failures = []
        for child in children:
            try:
                found = child.join()
            except forked.BesideFailed as failed:
                failures.append(str(failed))
                continue
            for line in found["warnings"]:
                _log.warning("%s", line)
            if found["error"]:
                failures.append(found["error"])
        if failures:
            raise PluginError("pages written beside mkdocs failed:\n" + "\n".join(failures))

    def on_build_error(self, **_: Any) -> None:
        children, self._children = self._children, []
        for child in children:
            child.kill()

    # The last `nav` and `env` handlers: the navigation mkdocs' loop uses, and every other
    # plugin has set up what a child copies.
    on_nav.mkdocs_priority = -200  # type: ignore[attr-defined]
    on_env.mkdocs_priority = -200  # type: ignore[attr-defined]
