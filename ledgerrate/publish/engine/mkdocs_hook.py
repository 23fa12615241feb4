"""mkdocs hook: plain `mkdocs build` / `mkdocs serve` at the repository root render the
editions first, so they give the same site as `ledgerrate build`.

Declared under `hooks:` in mkdocs.yml. `ledgerrate build` renders on its own and sets
LEDGERRATE_SKIP_RENDER so the pages are not rendered twice.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ledgerrate.publish.cache import BuildCache
from ledgerrate.publish.engine.compiled_templates import CompiledTemplates
from ledgerrate.publish.engine.raw_html import RawHtml
from ledgerrate.publish.engine.run import SKIP_RENDER_ENV
from ledgerrate.publish.engine.shared_frame import SharedFrame
from ledgerrate.publish.engine.shared_markdown import SharedMarkdown
from ledgerrate.publish.engine.shared_nav import SharedNav
from ledgerrate.publish.engine.static_links import StaticLinks
from ledgerrate.publish.glossary_links import GlossaryLinks

# The products cache this hook rendered with, for the theme's compiled templates (`on_env`).
# None under `ledgerrate build`, whose own plugin hands the theme its cache.
_cache: BuildCache | None = None


def on_config(config: Any) -> Any:
    global _cache
    from ledgerrate.publish.engine.nav import apply_nav

    _cache = None
    if os.environ.get(SKIP_RENDER_ENV) != "1":
        from ledgerrate.core.gc_policy import for_batch_work
        from ledgerrate.publish.cache import machine_cache_dir
        from ledgerrate.publish.render import render_docs

        # mkdocs.yml names an existing folder as docs_dir (mkdocs checks it before any hook
        # runs, and build/ does not exist in a fresh clone); the site is built from the
        # rendered pages instead.
        root = Path(config.config_file_path).resolve().parent
        docs = root / "build" / "docs"
        # The machine's products cache, as `ledgerrate build` uses: `mkdocs serve` re-renders on
        # every change, and an unchanged dataset, PDF or chart is not made again.
        cache = BuildCache.open(
            machine_cache_dir(), index=root / "build" / "state" / "digests.json"
        )
        for_batch_work()  # as `ledgerrate build` renders
        render_docs(root / "editions", docs, cache=cache)
        cache.save()
        config.docs_dir = str(docs)
        _cache = cache
    apply_nav(config)
    return _shared_markdown.on_config(config)


# Raw HTML blocks skip markdown, pages outside the navigation share its sidebar, the theme's
# frame and a title's markdown, and downloads are linked into the site, here too
# (publish/engine/raw_html.py, shared_nav.py, shared_frame.py, shared_markdown.py and
# static_links.py say why).
# Pages are written in this one process: publish/engine/parallel_pages.py forks only under
# `ledgerrate build`, never inside `mkdocs serve`'s server.
# mkdocs registers each `on_*` name of a hook module as one event, so the plugins' handlers of
# one event are called in turn, in the order their priorities give under `ledgerrate build`.
_raw_html = RawHtml()
_shared_nav = SharedNav()
_shared_frame = SharedFrame()
_shared_markdown = SharedMarkdown()
_static_links = StaticLinks()


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    markdown = _raw_html.on_page_markdown(markdown, page=page, config=config, files=files)
    return _shared_markdown.on_page_markdown(markdown, page=page, config=config, files=files)


on_nav = _shared_frame.on_nav
on_page_read_source = _raw_html.on_page_read_source
_glossary_links = GlossaryLinks()


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    html = _glossary_links.on_page_content(html, page=page)
    return _shared_frame.on_page_content(html, page=page, config=config, files=files)


def on_env(env: Any, config: Any, files: Any) -> Any:
    if _cache is not None:
        # mkdocs makes a new environment on every build, and `mkdocs serve` builds on every
        # change: the theme's templates are compiled once per toolchain, as under our build.
        env.bytecode_cache = CompiledTemplates(_cache)
    env = _shared_nav.on_env(env, config=config, files=files)
    env = _shared_frame.on_env(env, config=config, files=files)
    return _static_links.on_env(env, config=config, files=files)


def on_page_context(context: Any, page: Any, config: Any, nav: Any) -> Any:
    context = _shared_nav.on_page_context(context, page=page, config=config, nav=nav)
    context = _shared_frame.on_page_context(context, page=page, config=config, nav=nav)
    return _raw_html.on_page_context(context, page=page, config=config, nav=nav)


def on_post_page(output: str, page: Any, config: Any) -> str:
    output = _shared_nav.on_post_page(output, page=page, config=config)
    output = _shared_frame.on_post_page(output, page=page, config=config)
    return _raw_html.on_post_page(output, page=page, config=config)


# After the search plugin's, as publish/engine/raw_html.py's own handler.
on_page_context.mkdocs_priority = -100  # type: ignore[attr-defined]
