"""Stand-ins for the mkdocs objects the site's plugins read (a page, its file, the navigation),
and a tiny theme environment, for testing a plugin on its own."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jinja2


@dataclass
class File:
    src_uri: str


@dataclass
class Heading:
    id: str
    title: str
    level: int = 1
    children: list[Heading] = field(default_factory=list)


@dataclass
class Page:
    url: str
    title: str
    content: str
    toc: list[Heading] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    canonical_url: str | None = None
    edit_url: str | None = None
    previous_page: Any = None
    next_page: Any = None
    is_homepage: bool = False

    @property
    def file(self) -> File:
        return File(self.url + "index.md")


@dataclass
class Nav:
    items: list[Page]

    def __len__(self) -> int:
        return len(self.items)


def _rel(url: str, page: Page) -> str:
    return "../" * page.url.count("/") + url


def theme_env(main: str) -> jinja2.Environment:
    """`main` as the theme's main.html, with a `rel` filter for links relative to the page."""
    env = jinja2.Environment(loader=jinja2.DictLoader({"main.html": main}))
    env.filters["rel"] = _rel
    return env


def full(env: jinja2.Environment, nav: Nav, pages: list[Page]) -> dict[str, str]:
    """Each page rendered by the theme alone: what a plugin's output must equal."""
    template = env.get_template("main.html")
    return {page.url: template.render({"page": page, "nav": nav}) for page in pages}
