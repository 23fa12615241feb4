"""The site's navigation sidebar, rendered once per depth for the pages that are not in it.

Material renders the whole navigation into every page: on a 200-model edition, whose ~3,000
drill-down pages are left out of the navigation, that was a fifth of mkdocs' time. For a page
outside the navigation the sidebar depends on nothing but the page's depth: no item of it is
active, and each of its links is the page's way up to the root followed by the target, as long
as no target lies under the page's own top folder (mkdocs' relative links would share that
prefix). So the first such page of a depth is rendered twice, with and without the sidebar; the
difference is the sidebar, spliced into every later page of that depth, which is rendered
without it.

A splice is made only where the page rendered without the sidebar holds the same text on both
sides of the cut as the first page did, once; otherwise that page is rendered again in full.
`tests/publish/test_shared_nav.py` proves the site is byte-identical to one built without this.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

# Text either side of the cut that must match for a splice: the theme's markup around the
# sidebar (the page's own content comes later in the document).
_CONTEXT = 160


class _Hidden:
    """The navigation, falsy: the theme's `{% if nav %}` skips the sidebar; anything else the
    template reads of it (the logo's link to the home page) is the real navigation's."""

    def __init__(self, nav: Any) -> None:
        self._nav = nav

    def __len__(self) -> int:
        return 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._nav, name)


@dataclass(frozen=True)
class _Sidebar:
    html: str
    before: str  # the text just before the cut, in a page rendered without the sidebar
    after: str  # and just after it

    def splice(self, bare: str) -> str | None:
        if bare.count(self.before) != 1:
            return None
        cut = bare.index(self.before) + len(self.before)
        if not bare.startswith(self.after, cut):
            return None
        return bare[:cut] + self.html + bare[cut:]


def _cut(full: str, bare: str) -> _Sidebar | None:
    """The text `full` holds and `bare` (the same page without the sidebar) lacks, and where."""
    missing = len(full) - len(bare)
    start = 0
    while start < len(bare) and full[start] == bare[start]:
        start += 1
    if missing <= 0 or full[start + missing :] != bare[start:]:
        return None
    sidebar = _Sidebar(
        full[start : start + missing], bare[:start][-_CONTEXT:], bare[start : start + _CONTEXT]
    )
    return sidebar if sidebar.splice(bare) == full else None


def _items(items: Iterable[Any]) -> Iterator[Any]:
    for item in items:
        yield item
        yield from _items(getattr(item, "children", None) or [])


def _parts(url: str) -> list[str]:
    # As mkdocs' get_relative_url reads a page's URL: its folder, a file name dropped.
    folder, _, name = url.rpartition("/")
    return [part for part in (folder if "." in name else url).split("/") if part]


class NavScope:
    """Which pages are outside the navigation, and at what depth: for those pages, every link
    the theme writes is the page's way up to the root followed by the target, as long as no
    target lies under the page's own top folder (mkdocs' relative links would share that
    prefix)."""

    def __init__(self) -> None:
        self._nav_id: int | None = None
        self._in_nav: set[int] = set()
        self._tops: set[str] = set()

    def learn(self, nav: Any) -> None:
        if id(nav) == self._nav_id:
            return
        self._nav_id = id(nav)
        items = list(_items(nav.items))
        self._in_nav = {id(item) for item in items}
        self._tops = {parts[0] for item in items if (parts := _parts(getattr(item, "url", "")))}

    def depth(self, page: Any) -> int | None:
        """The page's depth if it is outside the navigation and its top folder; else None."""
        if self._nav_id is None:
            return None
        parts = _parts(page.url)
        if id(page) in self._in_nav or (parts and parts[0] in self._tops):
            return None
        return len(parts)


class SharedNav:
    """mkdocs plugin events (registered by `publish.engine.run.run_mkdocs` and the mkdocs hook)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._env: Any = None
        self._scope = NavScope()
        # Per depth (and whether the page hides the sidebar): the sidebar to splice in, or None
        # where the first page's two renderings showed no clean cut.
        self._sidebars: dict[tuple[int, bool], _Sidebar | None] = {}
        self._pending: dict[str, tuple[tuple[int, bool], Any, Any]] = {}

    def on_env(self, env: Any, **_: Any) -> Any:
        self._reset()  # a new build (mkdocs serve rebuilds with the same plugin)
        self._env = env
        return env

    def _key(self, page: Any) -> tuple[int, bool] | None:
        depth = self._scope.depth(page)
        if depth is None:
            return None
        hide = (page.meta or {}).get("hide") or []
        return depth, "navigation" in hide

    def on_page_context(self, context: Any, page: Any, nav: Any = None, **_: Any) -> Any:
        if self._env is None or nav is None or not len(nav):
            return context
        if (page.meta or {}).get("template", "main.html") != "main.html":
            return (
                context  # another template (publish/engine/shared_frame.py's): no sidebar to share
            )
        self._scope.learn(nav)
        key = self._key(page)
        if key is None:
            return context
        if key in self._sidebars:
            if self._sidebars[key] is None:
                return context  # this depth's first page showed no splice: render in full
            context["nav"] = _Hidden(nav)
        self._pending[page.file.src_uri] = (key, context, nav)
        return context

    def _render(self, page: Any, context: Any, nav: Any) -> str:
        template = self._env.get_template(page.meta.get("template", "main.html"))
        return str(template.render({**context, "nav": nav}))

    def on_post_page(self, output: str, page: Any, **_: Any) -> str:
        pending = self._pending.pop(page.file.src_uri, None)
        if pending is None:
            return output
        key, context, nav = pending
        if isinstance(context["nav"], _Hidden):
            sidebar = self._sidebars[key]
            spliced = sidebar.splice(output) if sidebar is not None else None
            return spliced if spliced is not None else self._render(page, context, nav)
        self._sidebars[key] = _cut(output, self._render(page, context, _Hidden(nav)))
        return output

    # Before publish.engine.raw_html's on_post_page, which releases the page's content that a render
    # here still needs (mkdocs runs higher priorities first).
    on_post_page.mkdocs_priority = 50  # type: ignore[attr-defined]
