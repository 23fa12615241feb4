"""Raw HTML that skips markdown: the drill-down pages' runs and the large results tables.

A drill-down page is a short markdown introduction (headings, links that `mkdocs --strict`
checks) and then raw HTML blocks: a table of the cell's runs and one block per attempt, with
every record's text already escaped. A workload or edition page of a 200-model edition holds
tables of thousands of rows (`publish/html_table.py` writes them as HTML). Markdown would store
such blocks unchanged, but only after its HTML parser has read every tag and character
reference of them, which was most of the site build. So a page marks them: a tail after
`MARKER`, or regions between `REGION_START` and `REGION_END`; this plugin hands markdown the
rest of the page and puts the HTML back afterwards.

Two things markdown did for these blocks are done here instead:
- every relative link in them must land on a file of the site, or `mkdocs --strict` fails
  (markdown checked the links of the tables when they were markdown);
- they go back after the site search has indexed the page, so the index holds the pages'
  prose and headings, not thousands of table rows (the drill-down pages are left out of the
  search altogether by their front matter).

The page file stays complete, so an engine without the plugin (Zensical, which ignores hooks)
builds the same page the slow way. No marker can come from a record: every `<` of a record
is a character reference on our pages.
"""

from __future__ import annotations

import hashlib
import logging
import os
import posixpath
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from html import unescape
from typing import Any
from urllib.parse import unquote, urlsplit

from markupsafe import Markup

MARKER = "<!-- lr:raw-html-below -->"
REGION_START = "<!-- lr:raw-html -->"
REGION_END = "<!-- lr:/raw-html -->"
_SPLIT = f"\n{MARKER}\n"
_OPEN = f"\n{REGION_START}\n"
_CLOSE = f"\n{REGION_END}\n"
# A literal first: the regex engine then jumps between occurrences instead of trying a
# whitespace class at every character (the blocks of a 215-model edition are 120 MB; 8x faster).
# The character before each match must still be whitespace, as in `\shref=`.
_HREF = re.compile(r'href="([^"]*)"')
_log = logging.getLogger("mkdocs.plugins.ledgerrate.raw_html")


def region(html: str) -> Markup:
    """`html` (final HTML, every value already escaped) as a block that skips markdown. Blank
    lines are dropped: an engine that does read the block as markdown would end it at one."""
    lines = "\n".join(line for line in html.split("\n") if line.strip())
    return Markup(f"\n{REGION_START}\n{lines}\n{REGION_END}\n")


def _placeholder(index: int) -> str:
    return f"<!-- lr:raw-html {index} -->"


def broken_links(page_uri: str, html: str, exists: Callable[[str], object]) -> list[str]:
    """The relative links of `html`, on the page `page_uri`, whose target `exists` denies."""
    base = posixpath.dirname(page_uri)
    broken = []
    # A drill-down page links one items page under a dozen anchors: each target checked once.
    lands: dict[str, bool] = {}
    for written in _hrefs(html):
        # A browser reads the attribute with its character references decoded (`&#47;` is `/`).
        href = _decoded(written) if "&" in written else written
        if href.startswith("#"):  # most links of a drill-down page: its own runs
            continue
        target = href.partition("#")[0]
        if target not in lands:
            lands[target] = _lands(base, target, exists)
        if not lands[target]:
            broken.append(written)
    return broken


def _decoded(written: str) -> str:
    """`html.unescape(written)`, the two references every edition path holds replaced first:
    a reference never contains an `&` after its first character, so these never overlap."""
    plain = written.replace("&#47;", "/").replace("&#45;", "-")
    return unescape(plain) if "&" in plain else plain


def _hrefs(html: str) -> dict[str, None]:
    """Each `href` attribute value of `html` once, in order of first appearance."""
    found: dict[str, None] = {}
    for match in _HREF.finditer(html):
        start = match.start()
        if start and html[start - 1].isspace():
            found.setdefault(match[1])
    return found


# What makes `urlsplit` do more than return its argument as the path (a fragment is cut off
# before): a scheme, a host, a query, or characters it strips.
_NOT_PLAIN = re.compile(r"[:?\x00-\x20]|^//")


def _lands(base: str, href: str, exists: Callable[[str], object]) -> bool:
    path = href
    if _NOT_PLAIN.search(href):  # most links are plain relative paths: nothing to take apart
        parts = urlsplit(href)
        if parts.scheme or parts.netloc:
            return True  # another site
        path = parts.path
    if not path or path.startswith("/"):
        return True  # this page's own anchor, or absolute: not ours to check
    target = posixpath.normpath(posixpath.join(base, unquote(path)))
    if target.startswith("../"):
        return False
    if path.endswith("/"):
        # A folder URL: a page of the site's, or a page written outside it as the folder's
        # `index.html` (a cell's drill-down, `publish/drilldown.py`).
        return any(exists(posixpath.join(target, name)) for name in ("index.md", "index.html"))
    return bool(exists(target))


def _split(markdown: str) -> tuple[str, list[str]]:
    """(the page for markdown, a placeholder where each block stood; the blocks).

    `str.find`, not a lazy `.*?` regex: the regex engine stepped through every character of
    every block (a tenth of mkdocs' conversion of a 215-model edition's pages)."""
    blocks: list[str] = []
    parts: list[str] = []
    head, found, tail = markdown.partition(_SPLIT)
    start = 0
    while (opened := head.find(_OPEN, start)) >= 0:
        closed = head.find(_CLOSE, opened + len(_OPEN))
        if closed < 0:
            break  # no region closes after this one opens, so none after it does either
        blocks.append(head[opened + len(_OPEN) : closed])
        parts += [head[start:opened], f"\n\n{_placeholder(len(blocks) - 1)}\n\n"]
        start = closed + len(_CLOSE)
    parts.append(head[start:])
    head = "".join(parts)
    if found:
        blocks.append(tail)
        head = f"{head}\n\n{_placeholder(len(blocks) - 1)}\n"
    return head, blocks


def _digest(blocks: list[str]) -> str:
    return hashlib.sha256("\0".join(blocks).encode()).hexdigest()


Stamp = tuple[int, int, int]


def _stamp(st: os.stat_result) -> Stamp:
    # What the build cache trusts to say a file is unchanged (publish/cache.py).
    return st.st_size, st.st_mtime_ns, st.st_ino


def _page_text(data: bytes) -> str:
    """A page's bytes as mkdocs reads a page: UTF-8 with an optional BOM, universal newlines."""
    return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")


_CHUNK = 8192


def read_head(path: str) -> tuple[str, Stamp] | None:
    """The page up to and including its tail's marker, decoded as mkdocs decodes a page, and
    the file's stamp; None when the page has no marker. A drill-down page is 1.5 KB of head
    before 30 KB of runs: mkdocs read, and this plugin split and hashed, all of it only to
    convert the head (a fifth of mkdocs' conversion at ten 215-model editions)."""
    marker = _SPLIT.encode()
    with open(path, "rb") as handle:
        stamp = _stamp(os.fstat(handle.fileno()))
        data = b""
        while True:
            chunk = handle.read(_CHUNK)
            if not chunk:
                return None  # no marker: mkdocs reads the page as always
            seen = len(data)
            data += chunk
            at = data.find(marker, max(0, seen - len(marker)))
            if at >= 0:
                return _page_text(data[:at]) + _SPLIT, stamp


@dataclass(frozen=True)
class _Held:
    digest: str  # of the blocks markdown was handed (a tail not yet read counts as empty)
    stamp: Stamp | None  # the file's, when its tail was not read at conversion


class RawHtml:
    """mkdocs plugin events (registered by `publish.engine.run.run_mkdocs` and the mkdocs hook).

    mkdocs converts every page before it renders any, so blocks held from one event to the
    other would be the whole site's raw HTML at once (about 100 MB per 200-model edition).
    Only their digest is held, and a page's tail is not even read until its page is written:
    the blocks are read from the page's file then, and must be the ones converted (the tail's
    file unchanged since, by its stamp)."""

    def __init__(self, beside: Collection[str] = ()) -> None:
        # Files the site holds beside the engine's output (`publish/carried.py`): links to them
        # land, though the docs do not hold them.
        self._beside = beside
        self._held: dict[str, _Held] = {}
        self._stamps: dict[str, Stamp] = {}
        self._files: Any = None

    def on_page_read_source(self, page: Any, **_: Any) -> str | None:
        path = page.file.abs_src_path
        found = read_head(path) if path is not None else None
        if found is None:
            return None
        head, self._stamps[page.file.src_uri] = found
        return head

    def on_page_markdown(self, markdown: str, page: Any, files: Any = None, **_: Any) -> str:
        uri = page.file.src_uri
        stamp = self._stamps.pop(uri, None)
        head, blocks = _split(markdown)
        if not blocks:
            return markdown
        self._files = files
        self._held[uri] = _Held(_digest(blocks), stamp)
        return head

    def keep_pages(self, pages: Sequence[Any]) -> None:
        """After a fork (`publish/engine/parallel_pages.py`): this process writes only `pages`."""
        uris = {page.file.src_uri for page in pages}
        self._held = {uri: held for uri, held in self._held.items() if uri in uris}

    def on_page_context(self, context: Any, page: Any, **_: Any) -> Any:
        held = self._held.pop(page.file.src_uri, None)
        if held is None:
            return context
        with open(page.file.abs_src_path, "rb") as handle:
            stamp = _stamp(os.fstat(handle.fileno()))
            blocks = _split(_page_text(handle.read()))[1]
        converted = blocks if held.stamp is None else [*blocks[:-1], ""]
        if _digest(converted) != held.digest or held.stamp not in (None, stamp):
            raise RuntimeError(f"{page.file.src_uri}: its raw HTML changed during the build")
        self._check_links(page.file.src_uri, blocks)
        content = page.content
        for index, block in enumerate(blocks):
            before, found, after = content.partition(_placeholder(index))
            if not found:  # markdown always keeps a comment block; never drop the page's runs
                raise RuntimeError(f"{page.file.src_uri}: a raw HTML marker was lost")
            content = before + block + after
        page.content = content
        return context

    def _check_links(self, uri: str, blocks: list[str]) -> None:
        """Checked where the page is written, not where it is converted: the pages are
        written by several processes (`publish/engine/parallel_pages.py`), converted by one."""
        if self._files is None:
            return
        # Targets are already normalised POSIX paths: looked up as `get_file_from_path`
        # would, without a PurePath each.
        known, beside = self._files.src_uris, self._beside

        def exists(target: str) -> bool:
            return target in known or target in beside

        for href in broken_links(uri, "\n".join(blocks), exists):
            _log.warning("%s: a link of its raw HTML lands on no file: %s", uri, href)

    def on_post_page(self, output: str, page: Any, **_: Any) -> str:
        """The page is written next and never read again: mkdocs would keep its HTML (with
        the blocks put back) until the whole site is built."""
        page.content = None
        return output

    # After every other plugin's on_page_context (mkdocs runs higher priorities first): the
    # search plugin indexes the page without its raw blocks.
    on_page_context.mkdocs_priority = -100  # type: ignore[attr-defined]
