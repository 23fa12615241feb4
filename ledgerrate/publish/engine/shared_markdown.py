"""Markdown for pages that are a title and raw HTML: converted once per kind, then filled in.

Once `publish/raw_html` has taken a drill-down page's runs and introduction out of its
markdown, what is left is one line, `# <title>`, and the placeholders of the raw blocks. mkdocs
still builds a new Markdown instance for it and runs every processor over it: 1.1 of the
1.85 ms mkdocs spent on each of a 215-model edition's 2,800 drill-down pages. What markdown
makes of such a page depends only on the title: a heading whose id is the table-of-contents
extension's slug of it, its permanent link, and the placeholders as they were.

So the first page of each kind (the same lines after the title) is converted by markdown, and
its outputs (content, table of contents, title, anchors) are learned with the title and its
slug as holes; the learning is refused unless filling the holes with that page's own values
gives its outputs back. The second page is also converted and must agree with its filling, or
the kind is converted in full from then on. A title markdown would change (emphasis, code,
links, escapes, HTML, a closing `#`) is always converted. `tests/publish/test_shared_markdown.py`
proves the site byte-identical to one built without this.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mkdocs.structure.toc import get_toc

_HOLE = "\x00"  # never in a title, a slug or a page: it marks the holes
# `# title` then nothing but the raw blocks' placeholders (engine/raw_html.py) and blank lines.
_PAGE = re.compile(r"# ([^\n]*)\n((?:\n|<!-- lr:raw-html \d+ -->\n)*)", re.ASCII)
# Markdown's inline syntax, HTML included, and a closing `#`: a title holding any of them is
# converted. A character reference is kept by markdown as written; a bare `&` is not.
_INLINE = re.compile(r"[\\`*_\[\]!<>]|#\s*$|^\s|\s$|&(?!#\d+;|#[xX][0-9a-fA-F]+;|[A-Za-z]\w*;)")


def _split(markdown: str) -> tuple[str, str] | None:
    """(title, the rest) of a page that is a plain title and placeholders; else None."""
    found = _PAGE.fullmatch(markdown.lstrip("\n"))
    if found is None or not found[1] or _INLINE.search(found[1]):
        return None
    return found[1], found[2]


@dataclass(frozen=True)
class _Outputs:
    """What `Page.render` leaves on a page, in a form two renderings can be compared in."""

    content: str
    toc: tuple[tuple[str, str, int, int], ...]  # title, id, level, children of each entry
    title: str | None
    anchors: frozenset[str]
    # Links to anchors (the heading's permanent link is one), by target: None for the page
    # itself; another target (a file) cannot be filled in, and is never learned.
    links: tuple[tuple[Any, tuple[tuple[str, str], ...]], ...]

    @classmethod
    def of(cls, page: Any) -> _Outputs:
        toc = tuple((a.title, a.id, a.level, len(a.children)) for a in page.toc or [])
        links = tuple(
            (None if target is page.file else target, tuple(sorted(anchors.items())))
            for target, anchors in (page.links_to_anchors or {}).items()
        )
        return cls(
            page.content, toc, page._title_from_render, frozenset(page.present_anchor_ids), links
        )

    def map(self, change: Callable[[str], str]) -> _Outputs:
        """The same outputs with `change` applied to every text in them."""
        return _Outputs(
            change(self.content),
            tuple((change(t), change(i), level, n) for t, i, level, n in self.toc),
            None if self.title is None else change(self.title),
            frozenset(change(a) for a in self.anchors),
            tuple(
                (target, tuple((change(a), change(o)) for a, o in anchors))
                for target, anchors in self.links
            ),
        )


@dataclass(frozen=True)
class _Learned:
    """A kind's outputs with `\\0title\\0` and `\\0slug\\0` where its first page's were."""

    outputs: _Outputs

    @classmethod
    def learn(cls, found: _Outputs, title: str, slug: str) -> _Learned | None:
        if not slug or title in slug or slug in title:
            return None
        if any(target is not None for target, _ in found.links):
            return None  # a link into another page: not a page of this kind
        if any(children for *_, children in found.toc):
            return None  # a heading under the title: not a page of this kind

        def hole(text: str) -> str:
            return text.replace(title, f"{_HOLE}title{_HOLE}").replace(slug, f"{_HOLE}slug{_HOLE}")

        learned = cls(found.map(hole))
        return learned if learned.fill(title, slug) == found else None

    def fill(self, title: str, slug: str) -> _Outputs:
        given = {"title": title, "slug": slug}

        def fill(text: str) -> str:
            pieces = text.split(_HOLE)
            return "".join(p if i % 2 == 0 else given[p] for i, p in enumerate(pieces))

        return self.outputs.map(fill)


def _apply(page: Any, outputs: _Outputs) -> None:
    """The outputs onto the page, as `Page.render` would have left them."""
    page.content = outputs.content
    page.toc = get_toc(
        [{"name": t, "id": i, "level": lv, "children": []} for t, i, lv, _ in outputs.toc]
    )
    page._title_from_render = outputs.title
    page.present_anchor_ids = set(outputs.anchors)
    # Learned only when every link is to the page itself (`_Learned.learn`).
    own = {anchor: link for _, pairs in outputs.links for anchor, link in pairs}
    page.links_to_anchors = {page.file: own} if outputs.links else {}


def _slugger(config: Any) -> Callable[[str], str] | None:
    """The heading-id function of the site's markdown (the toc extension's), or None."""
    import markdown

    md = markdown.Markdown(
        extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"] or {}
    )
    if "toc" not in md.treeprocessors:  # a Registry, with no `get`
        return None
    toc = md.treeprocessors["toc"]
    return lambda title: toc.slugify(html.unescape(title), toc.sep)


class SharedMarkdown:
    """mkdocs plugin events (registered by `publish.engine.run.run_mkdocs` and the mkdocs hook)."""

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, slug: Callable[[str], str] | None) -> None:
        self._slug = slug  # None: no toc extension (or no build yet), every page converted
        self._learned: dict[str, _Learned | None] = {}  # kind → its learning (None: refused)
        self._confirmed: set[str] = set()

    def on_config(self, config: Any, **_: Any) -> Any:
        # A new build (mkdocs serve rebuilds with the same plugin), perhaps with new extensions.
        self._reset(_slugger(config))
        return config

    def on_page_markdown(self, markdown: str, page: Any, config: Any, **_: Any) -> str:
        found = _split(markdown)
        if found is None:
            return markdown
        if self._slug is None:
            return markdown
        title, kind = found
        slug = self._slug(title)
        render = page.render
        if kind not in self._learned:

            def learn(config: Any, files: Any) -> None:
                render(config, files)
                self._learned[kind] = _Learned.learn(_Outputs.of(page), title, slug)

            page.render = learn
        elif (learned := self._learned[kind]) is None:
            pass
        elif kind not in self._confirmed:

            def confirm(config: Any, files: Any) -> None:
                render(config, files)
                if _Outputs.of(page) == learned.fill(title, slug):
                    self._confirmed.add(kind)
                else:
                    self._learned[kind] = None

            page.render = confirm
        else:
            page.render = lambda config, files: _apply(page, learned.fill(title, slug))
        return markdown

    # After publish.engine.raw_html's (mkdocs runs higher priorities first): the page it sees is the
    # one markdown would, its raw blocks already taken out.
    on_page_markdown.mkdocs_priority = -50  # type: ignore[attr-defined]
