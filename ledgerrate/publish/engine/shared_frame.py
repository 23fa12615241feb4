"""The theme's frame, rendered once per kind of page for the pages outside the navigation.

A 215-model edition has ~3,000 drill-down pages outside the navigation, and after
`shared_nav` shares their sidebar the theme's templates (header, search, footer, the
translation macros) were still a third of mkdocs' time. For such a page, everything the theme
writes around the page's content depends only on its depth, its front matter and a few values
of its own: its title (as written, and with tags stripped for `<title>`), the id of its first
heading (the "skip to content" link) and its canonical URL. So the first page of each kind is
rendered in full, and the frame is that page with its content and those values cut out; every
later page of the kind is rendered with a template that writes nothing, and gets the frame
filled with its own content and values.

Nothing is spliced at a guess: a kind's frame is used only if the first page's values are
unambiguous in it, and once its second page, also rendered in full, came out the same. A page
whose table of contents would show in the sidebar, or that differs from its kind's first page
in anything the frame does not fill, is rendered in full. `tests/publish/test_shared_frame.py`
proves the site byte-identical to one built without this.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jinja2 import ChoiceLoader, DictLoader
from markupsafe import Markup

from ledgerrate.publish.engine.shared_nav import NavScope

# A page given this template renders as nothing; `on_post_page` writes it from its kind's frame.
BARE_TEMPLATE = "ledgerrate-frame-bare.html"
_HOLE = "\x00"  # never in a page's title, id or URL: it marks the frame's holes


def _values(page: Any) -> dict[str, str] | None:
    """What the theme writes of a page outside its content; None if the frame cannot hold it:
    no title, or a table of contents the sidebar would list (headings under the title)."""
    title = page.title
    toc = list(page.toc or [])
    if not title or len(toc) != 1 or toc[0].level != 1 or toc[0].children:
        return None
    found = {"title": str(title), "plain": Markup(str(title)).striptags(), "id": toc[0].id}
    if page.canonical_url:
        found["url"] = page.canonical_url
    return found


def _kind(depth: int, page: Any, values: dict[str, str]) -> tuple[Any, ...]:
    """Pages of one kind share a frame: the same depth, front matter and theme choices."""
    meta = json.dumps(page.meta or {}, sort_keys=True, default=str)
    # Equal values cannot be told apart in a frame: a page whose title has nothing to strip is
    # its own kind.
    equal = tuple(sorted(a for a in values for b in values if a < b and values[a] == values[b]))
    linked = (page.edit_url, page.previous_page, page.next_page, page.is_homepage)
    return depth, meta, tuple(sorted(values)), equal, tuple(v is None for v in linked)


@dataclass(frozen=True)
class _Frame:
    pieces: tuple[str, ...]  # text, hole name, text, …, text; the hole "content" included
    heading: bool  # "<h1" in the content: the theme adds a heading to a page without one

    @classmethod
    def learn(cls, full: str, content: str, values: dict[str, str]) -> _Frame | None:
        before, found, after = full.partition(content)
        if not found or content in after or not content:
            return None
        named = sorted(values.items(), key=lambda kv: -len(kv[1]))
        texts = list(values.values())
        if any(a != b and a in b for a in texts for b in texts):
            return None  # one value inside another: which one a hole holds is ambiguous
        frame = f"{before}{_HOLE}content{_HOLE}{after}"
        for name, value in named:
            if value:
                frame = frame.replace(value, f"{_HOLE}{name}{_HOLE}")
        pieces = tuple(frame.split(_HOLE))
        made = cls(pieces, "<h1" in content)
        return made if made.fill(content, values) == full else None

    def fill(self, content: str, values: dict[str, str]) -> str:
        given = {**values, "content": content}
        return "".join(
            piece if index % 2 == 0 else given[piece] for index, piece in enumerate(self.pieces)
        )


class SharedFrame:
    """mkdocs plugin events (registered by `publish.engine.run.run_mkdocs` and the mkdocs hook)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._scope = NavScope()
        self._env: Any = None
        self._first: dict[tuple[Any, ...], str] = {}  # kind → the page rendered in full
        self._kind_of: dict[str, tuple[Any, ...]] = {}
        # Kind → its frame (None: not to be used), and whether a second page confirmed it.
        self._frames: dict[tuple[Any, ...], _Frame | None] = {}
        self._confirmed: set[tuple[Any, ...]] = set()
        self._contexts: dict[str, Any] = {}

    def on_nav(self, nav: Any, **_: Any) -> Any:
        self._reset()  # a new build (mkdocs serve rebuilds with the same plugin)
        self._scope.learn(nav)
        return nav

    def on_page_content(self, html: str, page: Any, **_: Any) -> str:
        # After markdown, before the template is chosen: the title and headings are known.
        depth = self._scope.depth(page)
        values = _values(page) if depth is not None else None
        if depth is None or values is None or "template" in (page.meta or {}):
            return html
        kind = _kind(depth, page, values)
        uri = page.file.src_uri
        self._kind_of[uri] = kind
        if kind not in self._first:
            self._first[kind] = uri
        else:
            page.meta = {**(page.meta or {}), "template": BARE_TEMPLATE}
        return html

    def keep_pages(self, pages: Sequence[Any]) -> None:
        """After a fork (`publish/engine/parallel_pages.py`): this process writes only `pages`, so
        each kind's frame is learned from the first of them, rendered in full."""
        kind_of: dict[str, tuple[Any, ...]] = {}
        first: dict[tuple[Any, ...], str] = {}
        for page in pages:
            uri = page.file.src_uri
            kind = self._kind_of.get(uri)
            if kind is None:
                continue
            kind_of[uri] = kind
            if kind not in first:
                first[kind] = uri
                page.meta = {k: v for k, v in page.meta.items() if k != "template"}
        self._kind_of, self._first = kind_of, first

    def on_env(self, env: Any, **_: Any) -> Any:
        env.loader = ChoiceLoader([DictLoader({BARE_TEMPLATE: ""}), env.loader])
        self._env = env
        return env

    def on_page_context(self, context: Any, page: Any, **_: Any) -> Any:
        if (page.meta or {}).get("template") == BARE_TEMPLATE:
            self._contexts[page.file.src_uri] = context
        return context

    def _full(self, page: Any, context: Any) -> str:
        return str(self._env.get_template("main.html").render(context))

    def on_post_page(self, output: str, page: Any, **_: Any) -> str:
        uri = page.file.src_uri
        kind = self._kind_of.pop(uri, None)
        if kind is None:
            return output
        values = _values(page)
        context = self._contexts.pop(uri, None)
        if context is None:  # the first page of its kind, rendered in full
            if self._first.get(kind) == uri and values is not None:
                self._frames[kind] = _Frame.learn(output, page.content, values)
            return output
        frame = self._frames.get(kind)
        if frame is None or values is None or frame.heading != ("<h1" in page.content):
            return self._full(page, context)
        filled = frame.fill(page.content, values)
        if kind not in self._confirmed:
            full = self._full(page, context)
            if full != filled:
                self._frames[kind] = None
                return full
            self._confirmed.add(kind)
        return filled

    # After engine.shared_nav's on_post_page (its splice makes the first page's output whole)
    # and before engine.raw_html's, which releases the content the frame is filled with.
    on_post_page.mkdocs_priority = 40  # type: ignore[attr-defined]
