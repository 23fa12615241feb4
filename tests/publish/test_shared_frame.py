"""Pages outside the navigation get the theme's frame filled in
(publish/engine/shared_frame.py), and the site is byte for byte the one mkdocs builds
rendering the theme into every page."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import jinja2
import pytest

from ledgerrate.publish.engine import shared_frame
from ledgerrate.publish.engine.run import run_mkdocs
from ledgerrate.publish.engine.shared_frame import SharedFrame
from tests.publish.factory import (
    mkdocs_drilldowns,
    rendered_two_editions,
    tree_bytes,
    with_items_copies,
)
from tests.publish.fake_mkdocs import Heading, Nav, Page, full, theme_env


def test_the_site_is_byte_identical_to_one_rendering_the_theme_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = with_items_copies(rendered_two_editions(tmp_path, monkeypatch))

    made: Counter[str] = Counter()
    real_fill, real_full = shared_frame._Frame.fill, SharedFrame._full

    def fill(self: Any, content: str, values: dict[str, str]) -> str:
        made["filled"] += 1
        return real_fill(self, content, values)

    def full(self: Any, page: Any, context: Any) -> str:
        made["in full"] += 1
        return real_full(self, page, context)

    with monkeypatch.context() as patch:
        patch.setattr(shared_frame._Frame, "fill", fill)
        patch.setattr(SharedFrame, "_full", full)
        run_mkdocs(docs, tmp_path / "framed")
    with monkeypatch.context() as patch:
        patch.setattr(SharedFrame, "on_page_content", lambda self, html, **_: html)
        run_mkdocs(docs, tmp_path / "everywhere")

    framed, everywhere = tree_bytes(tmp_path / "framed"), tree_bytes(tmp_path / "everywhere")
    drilldowns = mkdocs_drilldowns(framed)
    assert len(drilldowns) > 4
    # Each kind's first page is learned and its second confirmed; the rest are filled.
    kinds = made["in full"]
    assert 1 <= kinds <= 4 and made["filled"] >= len(drilldowns) - 2 * kinds
    assert framed.keys() == everywhere.keys()
    assert sorted(name for name in framed if framed[name] != everywhere[name]) == []
    assert b"md-sidebar--primary" in framed[drilldowns[-1]]


# The plugin on its own, under a tiny theme that writes what material writes of a page.
THEME = (
    "<html><title>{{ page.title | striptags }} - Site</title>"
    '{% if page.toc | first is defined %}<a href="#{{ (page.toc | first).id }}">skip</a>'
    "{% for h in (page.toc | first).children %}<li>{{ h.title }}</li>{% endfor %}{% endif %}"
    "<header>{{ page.title }}</header><nav>{% for item in nav.items %}"
    '<a href="{{ item.url | rel(page) }}">{{ item.title }}</a>{% endfor %}</nav>'
    "<main>{{ page.content }}</main></html>"
)


def _build(plugin: SharedFrame, env: jinja2.Environment, nav: Nav, pages: list[Page]):
    """Each page as mkdocs builds it: every page converted, then each one rendered."""
    plugin.on_nav(nav)
    for page in pages:
        plugin.on_page_content(page.content, page=page)
    plugin.on_env(env)
    out = {}
    for page in pages:
        context = plugin.on_page_context({"page": page, "nav": nav}, page=page, nav=nav)
        html = env.get_template(page.meta.get("template", "main.html")).render(context)
        out[page.url] = plugin.on_post_page(html, page=page)
    return out


def _run(i: int, title: str | None = None, **extra: Any) -> Page:
    title = title or f"Run {i}"
    heading = Heading(f"run-{i}", title)
    return Page(
        f"runs/e1/m{i}/", title, f'<h1 id="run-{i}">{title}</h1><p>{i}</p>', [heading], **extra
    )


def _counting(plugin: SharedFrame) -> list[str]:
    rendered: list[str] = []
    real = plugin._full

    def full(page: Any, context: Any) -> str:
        rendered.append(page.url)
        return real(page, context)

    plugin._full = full  # type: ignore[method-assign]
    return rendered


def test_each_page_comes_out_as_if_rendered_in_full() -> None:
    home = Page("", "Home", "h", is_homepage=True)
    nav = Nav([home])
    with_headings = _run(5)
    with_headings.toc[0].children.append(Heading("sub", "A section", level=2))
    pages = [
        home,
        *[_run(i) for i in range(4)],
        _run(6, "Run 6 &amp; <em>more</em>"),  # a title with markup: another kind
        _run(7, "Run 7 &amp; <em>more</em>"),
        with_headings,  # its headings show in the sidebar: left to the theme
        _run(8, canonical_url="https://example.org/runs/e1/m8/"),
    ]
    env = theme_env(THEME)
    plugin = SharedFrame()
    rendered = _counting(plugin)
    assert _build(plugin, env, nav, pages) == full(env, nav, pages)
    assert rendered == ["runs/e1/m1/", "runs/e1/m7/"]  # each kind's second page, to confirm
    assert with_headings.meta.get("template") is None


def test_a_kind_whose_second_page_differs_is_rendered_in_full() -> None:
    # The theme writes the page's URL, which no hole of the frame holds: the second page's
    # full rendering disagrees with its filled frame, so every later page is rendered in full.
    theme = THEME.replace("<main>", "<p>{{ page.url }}</p><main>")
    nav = Nav([Page("", "Home", "h", is_homepage=True)])
    pages = [_run(i) for i in range(4)]
    env = theme_env(theme)
    plugin = SharedFrame()
    rendered = _counting(plugin)
    assert _build(plugin, env, nav, pages) == full(env, nav, pages)
    assert rendered == [p.url for p in pages[1:]]


def test_a_frame_is_never_learned_from_an_ambiguous_page() -> None:
    # The first page's id is part of its title: a hole could not tell them apart.
    pages = [_run(i, title=f"run-{i} results") for i in range(3)]
    nav = Nav([Page("", "Home", "h", is_homepage=True)])
    env = theme_env(THEME)
    plugin = SharedFrame()
    rendered = _counting(plugin)
    assert _build(plugin, env, nav, pages) == full(env, nav, pages)
    assert rendered == [p.url for p in pages[1:]]


def test_after_a_fork_each_process_learns_from_its_own_pages() -> None:
    # engine/parallel_pages.py hands one process every other page of a kind: the kind's first
    # page is another process's, so this one learns the frame from its own first page (rendered
    # in full), confirms it on its second, and fills the rest.
    nav = Nav([Page("", "Home", "h", is_homepage=True)])
    pages = [_run(i) for i in range(8)]
    env = theme_env(THEME)
    plugin = SharedFrame()
    rendered = _counting(plugin)
    plugin.on_nav(nav)
    for page in pages:
        plugin.on_page_content(page.content, page=page)
    plugin.on_env(env)
    own = pages[1::2]
    plugin.keep_pages(own)
    assert own[0].meta.get("template") is None  # rendered in full, to learn from
    assert all(page.meta.get("template") == shared_frame.BARE_TEMPLATE for page in own[1:])
    out = {}
    for page in own:
        context = plugin.on_page_context({"page": page, "nav": nav}, page=page, nav=nav)
        html = env.get_template(page.meta.get("template", "main.html")).render(context)
        out[page.url] = plugin.on_post_page(html, page=page)
    assert out == full(env, nav, own)
    assert rendered == [own[1].url]  # only the confirmation: every later page was filled
