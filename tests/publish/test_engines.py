"""`--engine zensical` publishes the same pages with the same links as mkdocs."""

from __future__ import annotations

import html.parser
import posixpath
import shutil
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from ledgerrate.publish.engine.run import run_mkdocs
from ledgerrate.publish.engine.zensical import run_zensical
from ledgerrate.publish.render import render_into
from tests.publish.factory import write_two_editions

pytestmark = pytest.mark.slow


class _Anchors(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.base: str | None = None  # the first <base href> (the cell pages have one)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs += [v for k, v in attrs if k == "href" and v]
        elif tag == "base" and self.base is None:
            self.base = next((v for k, v in attrs if k == "href" and v), None)


def _target(site: Path, page: str, href: str) -> str | None:
    """The site file a link on `page` opens, or None for an external link or a bare anchor."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = unquote(parts.path)
    joined = (
        path.lstrip("/") if path.startswith("/") else posixpath.join(posixpath.dirname(page), path)
    )
    target = posixpath.normpath(joined)
    if target == "." or path.endswith("/") or (site / target).is_dir():
        target = posixpath.normpath(posixpath.join(target, "index.html"))
    return target


def pages_and_links(site: Path) -> tuple[set[str], set[tuple[str, str]]]:
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html")}
    links = set()
    for page in pages - {"404.html"}:  # the 404 page's links are absolute by design
        parser = _Anchors()
        parser.feed((site / page).read_text("utf-8"))
        # Links resolve against the page's <base>, as a browser resolves them.
        at = page
        if parser.base is not None:
            at = posixpath.join(posixpath.dirname(page), parser.base, "index.html")
        links |= {(page, t) for t in (_target(site, at, h) for h in parser.hrefs) if t}
    return pages, links


def test_both_engines_publish_the_same_pages_and_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "editions"
    write_two_editions(root, monkeypatch)
    render_into(root, tmp_path / "m" / "docs")
    shutil.copytree(tmp_path / "m" / "docs", tmp_path / "z" / "docs")
    run_mkdocs(tmp_path / "m" / "docs", tmp_path / "m" / "site")
    run_zensical(tmp_path / "z" / "docs", tmp_path / "z" / "site")
    m_pages, m_links = pages_and_links(tmp_path / "m" / "site")
    z_pages, z_links = pages_and_links(tmp_path / "z" / "site")
    assert len(m_pages) > 10
    assert z_pages == m_pages
    # mkdocs' theme links the home page to itself ("."); that is the one link Zensical omits.
    assert z_links == m_links - {("index.html", "index.html")}
    broken = sorted(t for _, t in z_links if not (tmp_path / "z" / "site" / t).exists())
    assert broken == []
