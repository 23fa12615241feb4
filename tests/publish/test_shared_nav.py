"""Pages outside the navigation get its sidebar spliced in (publish/engine/shared_nav.py), and the
site is byte for byte the one mkdocs builds rendering the sidebar into every page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest

from ledgerrate.publish.engine import shared_nav
from ledgerrate.publish.engine.run import run_mkdocs
from ledgerrate.publish.engine.shared_frame import SharedFrame
from ledgerrate.publish.engine.shared_nav import SharedNav
from tests.publish.factory import (
    mkdocs_drilldowns,
    rendered_two_editions,
    tree_bytes,
    with_items_copies,
)
from tests.publish.fake_mkdocs import Nav, Page, full, theme_env


def test_the_site_is_byte_identical_to_one_rendering_the_sidebar_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = with_items_copies(rendered_two_editions(tmp_path, monkeypatch))

    spliced: list[str] = []
    real_splice = shared_nav._Sidebar.splice

    def counted(self: Any, bare: str) -> str | None:
        done = real_splice(self, bare)
        spliced.append("ok" if done is not None else "refused")
        return done

    # The sidebar on its own: engine/shared_frame.py (which would take these pages over) is off.
    monkeypatch.setattr(SharedFrame, "on_page_content", lambda self, html, **_: html)
    with monkeypatch.context() as patch:
        patch.setattr(shared_nav._Sidebar, "splice", counted)
        run_mkdocs(docs, tmp_path / "shared")
    with monkeypatch.context() as patch:
        patch.setattr(SharedNav, "on_page_context", lambda self, context, **_: context)
        run_mkdocs(docs, tmp_path / "everywhere")

    drilldowns = mkdocs_drilldowns(tree_bytes(tmp_path / "shared"))
    assert len(drilldowns) > 4
    # Every drill-down page but the first of its depth had the sidebar spliced in.
    assert spliced.count("ok") >= len(drilldowns) - 2 and "refused" not in spliced
    shared, everywhere = tree_bytes(tmp_path / "shared"), tree_bytes(tmp_path / "everywhere")
    assert shared.keys() == everywhere.keys()
    differ = sorted(name for name in shared if shared[name] != everywhere[name])
    assert differ == []
    assert b"md-sidebar--primary" in shared[drilldowns[-1]]


# The plugin on its own, under a tiny theme: what it does where a splice cannot be made.
THEME = (
    "<html>{{ page.title }}<main>{% if nav %}<nav>{% for item in nav.items %}"
    '<a href="{{ item.url | rel(page) }}">{{ item.title }}</a>{% endfor %}</nav>{% endif %}'
    "<article>{{ page.content }}</article></main></html>"
)


def _build(plugin: SharedNav, env: jinja2.Environment, nav: Nav, pages: list[Page]):
    """Each page as mkdocs builds it: context event, the template, post-page event."""
    plugin.on_env(env)
    out = {}
    for page in pages:
        context = plugin.on_page_context({"page": page, "nav": nav}, page=page, nav=nav)
        html = env.get_template("main.html").render(context)
        out[page.url] = plugin.on_post_page(html, page=page)
    return out


def test_each_page_comes_out_as_if_rendered_in_full() -> None:
    home, about = Page("", "Home", "h"), Page("about/", "About", "a")
    nav = Nav([home, about])
    pages = [
        home,
        about,
        Page("runs/e1/m1/", "Run one", "first <b>run</b>"),
        Page("runs/e1/m2/", "Run two", "second"),
        Page("runs/e2/m3/", "Run three", "third"),
        Page("about/team/", "Team", "under a folder the navigation links"),
        Page("x/", "Shallow", "another depth"),
    ]
    env = theme_env(THEME)
    assert _build(SharedNav(), env, nav, pages) == full(env, nav, pages)


def test_a_page_whose_markup_around_the_cut_differs_is_rendered_in_full() -> None:
    # The text before the sidebar is the page's own title here, so no later page of the depth
    # matches the first one's: each is rendered again, in full, never spliced at a guess.
    theme = THEME.replace("<main>", "<main>{{ page.content }}")
    nav = Nav([Page("", "Home", "h")])
    pages = [Page(f"runs/e1/m{i}/", f"Run {i}", f"content {i}") for i in range(4)]
    env = theme_env(theme)
    plugin = SharedNav()
    rendered = []
    real = plugin._render

    def render(page: Any, context: Any, nav: Any) -> str:
        rendered.append(page.url)
        return real(page, context, nav)

    plugin._render = render  # type: ignore[method-assign]
    assert _build(plugin, env, nav, pages) == full(env, nav, pages)
    assert rendered == [p.url for p in pages]  # the first page's bare render, then each again
