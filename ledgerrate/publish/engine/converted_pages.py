"""A page's markdown conversion as a product of the build cache: converted again only when its
markdown, its place in the site, a file it links to or the markdown configuration changed.

mkdocs converts every page on every build. After a one-template change at ten 215-model
editions, converting the 415 unchanged pages again (each edition's cells, each model's,
each workload's tables) was half of mkdocs' time, the largest part of such a build left once
the pages themselves were products (`publish/page_products.py`).

What `Page.render` leaves on a page (its HTML, table of contents, title, the anchors it holds
and its links to other pages' anchors) depends on:
- the markdown it is given, after every plug-in's `on_page_markdown`;
- the page's file (its source path and URL: relative links are resolved from there);
- each file the conversion looked up, with its URL, or its absence (a link is rewritten to its
  target's URL, or warned about when there is none): mkdocs resolves a link by looking its
  target up among the site's files (`Files.get_file_from_path`), and nothing else of the files
  reaches the page;
- the markdown extensions and their configuration, `use_directory_urls` and the link
  validation settings, and the versions of mkdocs and markdown (`code("converted")`).

All of them are in the key. Which files a conversion looks up is known once it ran, so, as for
the page jobs (`publish/page_products.py`), a first key without them leads to the paths the
conversion looked up (kind `converted-links`), and the conversion is kept under the key made
with those paths' files as they are now. The paths follow from the markdown, the page's own
file and the configuration, all in the first key. An edition added to the site adds files that
no unchanged page looks up, so those pages' conversions are kept; when every file of the site
was in the key, each of them was converted again.

A page whose conversion logged anything (a link not found, at any level) is never kept: the
next build converts it again and logs it again, so `--strict` fails as it did. Pages another
plug-in already converts its own way (`shared_markdown.py`) are left to it. The search
index's entries of each page are kept the same way (`_SearchEntries`).
`tests/publish/test_converted_pages.py` proves the site byte-identical to one built without
this.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

from mkdocs.structure.toc import get_toc

from ledgerrate.publish.cache import BuildCache, key_of

KIND = "converted"
LINKS = "converted-links"
SEARCH = "search-entries"


def _toc_tokens(items: Any) -> list[dict[str, Any]]:
    return [
        {"name": a.title, "id": a.id, "level": a.level, "children": _toc_tokens(a.children)}
        for a in items
    ]


class _Logged(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.INFO:
            self.count += 1


class ConvertedPages:
    """mkdocs plugin events (registered by `publish.engine.run.run_mkdocs` with a cache)."""

    def __init__(self, cache: BuildCache) -> None:
        self.cache = cache

    def on_config(self, config: Any, **_: Any) -> Any:
        self._config = key_of(
            self.cache.code(KIND),
            [str(e) if not isinstance(e, str) else e for e in config["markdown_extensions"]],
            json.loads(json.dumps(config["mdx_configs"] or {}, sort_keys=True, default=str)),
            bool(config["use_directory_urls"]),
            json.loads(json.dumps(dict(config["validation"]), sort_keys=True, default=str)),
        )
        return config

    def on_page_markdown(self, markdown: str, page: Any, files: Any = None, **_: Any) -> str:
        if "render" in vars(page):  # converted another way (`shared_markdown.py`)
            return markdown
        render = page.render

        def cached(config: Any, files: Any) -> None:
            first = key_of(KIND, self._config, _row(page.file), page.markdown)
            links = self.cache.stored(LINKS, first)
            if links is not None:
                looked = json.loads(links.read_bytes())
                found = self.cache.stored(KIND, _key(first, looked, files))
                if found is not None:
                    _apply(page, json.loads(found.read_bytes()), files)
                    return
            logged = _Logged()
            logger = logging.getLogger("mkdocs")
            logger.addHandler(logged)
            seen = _LookedUp(files)
            try:
                render(config, seen)
            finally:
                logger.removeHandler(logged)
            if logged.count == 0:
                looked = sorted(seen.paths)
                outputs = json.dumps(_outputs(page), sort_keys=True).encode()
                self.cache.product_path(KIND, _key(first, looked, files), lambda: outputs)
                self.cache.product_path(LINKS, first, lambda: json.dumps(looked).encode())

        page.render = cached
        return markdown

    # After every other plug-in's (mkdocs runs higher priorities first): the markdown in the key
    # is the one converted.
    on_page_markdown.mkdocs_priority = -60  # type: ignore[attr-defined]

    def on_env(self, env: Any, config: Any, **_: Any) -> Any:
        # The search plug-in made its index in its `on_config`.
        search = config["plugins"].get("material/search") or config["plugins"].get("search")
        index = getattr(search, "search_index", None)
        if index is not None and "add_entry_from_context" not in vars(index):
            index.add_entry_from_context = _SearchEntries(self.cache, index)
        return env


def _row(file: Any) -> list[str] | None:
    """What a conversion reads of a file: where it is, its URL and whether it is built."""
    if file is None:
        return None
    return [file.src_uri, file.dest_uri, file.url, str(file.inclusion)]


def _key(first: str, looked: list[str], files: Any) -> str:
    return key_of(first, [[path, _row(files.get_file_from_path(path))] for path in looked])


class _LookedUp:
    """The site's files as one page's conversion is given them: every path it looks up is
    noted. Only `get_file_from_path` is used by a conversion (mkdocs' link and anchor
    processors); anything else is handed to the files themselves."""

    def __init__(self, files: Any) -> None:
        self._files = files
        self.paths: set[str] = set()

    def get_file_from_path(self, path: str) -> Any:
        self.paths.add(path)
        return self._files.get_file_from_path(path)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._files, name)


class _SearchEntries:
    """The search index's entries of a page, kept in the build cache like its conversion.

    Material's search plug-in parses every page's HTML into sections for its index: after a
    one-template change at ten 215-model editions, 8 of mkdocs' 22 profiled seconds, for 415
    pages that had not changed. What it adds for a page is a function of the page's HTML (as
    the search plug-in is given it), table of contents, URL, title and front matter, and of the
    plug-in's own code (`code("search-entries")`, with mkdocs-material's version)."""

    def __init__(self, cache: BuildCache, index: Any) -> None:
        self.cache, self.index = cache, index
        self.add = index.add_entry_from_context
        module = sys.modules[type(index).__module__]
        self.segmenting = getattr(module, "jieba", None) is not None  # Chinese segmentation

    def __call__(self, page: Any) -> None:
        key = key_of(
            SEARCH,
            self.cache.code(SEARCH),
            self.segmenting,
            page.content,
            _toc_tokens(page.toc or []),
            page.url,
            str(page.title),
            json.loads(json.dumps(page.meta or {}, sort_keys=True, default=str)),
        )
        entries = self.index.entries
        found = self.cache.stored(SEARCH, key)
        if found is not None:
            entries.extend(json.loads(found.read_bytes()))
            return
        before = len(entries)
        self.add(page)
        made = json.dumps(entries[before:]).encode()
        self.cache.product_path(SEARCH, key, lambda: made)


def _outputs(page: Any) -> dict[str, Any]:
    links = page.links_to_anchors
    return {
        "content": page.content,
        "toc": _toc_tokens(page.toc or []),
        "title": page._title_from_render,
        # markdown's raw-HTML scan can note an element without an id as None
        "anchors": sorted(page.present_anchor_ids or (), key=lambda a: (a is None, str(a))),
        "links": None
        if links is None
        else [[target.src_uri, dict(anchors)] for target, anchors in links.items()],
    }


def _apply(page: Any, outputs: dict[str, Any], files: Any) -> None:
    """The outputs onto the page, as `Page.render` left them."""
    page.content = outputs["content"]
    page.toc = get_toc(outputs["toc"])
    page._title_from_render = outputs["title"]
    page.present_anchor_ids = set(outputs["anchors"])
    links = outputs["links"]
    if links is not None:
        page.links_to_anchors = {files.get_file_from_path(src): anchors for src, anchors in links}
