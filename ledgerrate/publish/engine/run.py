"""The static-site engines behind `ledgerrate build`'s step 3: mkdocs with the site's plug-ins
(this package's other modules), or Zensical given an explicit navigation.

`publish/build.py` calls `run_engine` on an already rendered docs folder; the plug-ins import
nothing back from it (a forked child of `parallel_pages.py` reports its warnings through
`warning_lines.WarningLines`, which both import).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from ledgerrate.core.errors import UsageProblem
from ledgerrate.publish.engine.warning_lines import WarningLines

if TYPE_CHECKING:
    from ledgerrate.publish.cache import BuildCache

SKIP_RENDER_ENV = "LEDGERRATE_SKIP_RENDER"


def run_mkdocs(
    docs: Path,
    site: Path,
    config: Path | None = None,
    site_url: str | None = None,
    cache: BuildCache | None = None,
    beside: Collection[str] = (),
) -> None:
    """`mkdocs build --strict` on an already rendered docs folder (`config`: the packaged
    mkdocs.yml unless given); warnings become errors. With a `cache`, the theme's templates are
    compiled once per toolchain, not once per build, and an unchanged page is not converted
    again (`converted_pages.py`). `beside`: the files the site will hold
    beside mkdocs' output (`publish/carried.py`), as paths in the site, where links may land."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    from ledgerrate.publish.engine.compiled_templates import CompiledTheme
    from ledgerrate.publish.engine.converted_pages import ConvertedPages
    from ledgerrate.publish.engine.nav import apply_nav
    from ledgerrate.publish.engine.parallel_pages import ParallelPages
    from ledgerrate.publish.engine.raw_html import RawHtml
    from ledgerrate.publish.engine.shared_frame import SharedFrame
    from ledgerrate.publish.engine.shared_markdown import SharedMarkdown
    from ledgerrate.publish.engine.shared_nav import SharedNav
    from ledgerrate.publish.engine.static_links import StaticLinks
    from ledgerrate.publish.glossary_links import GlossaryLinks
    from ledgerrate.publish.render import CONFIG

    collect = WarningLines()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(collect)
    previous = os.environ.get(SKIP_RENDER_ENV)
    # The hook renders on plain `mkdocs build`; here the pages are already rendered.
    os.environ[SKIP_RENDER_ENV] = "1"
    try:
        # mkdocs treats a None override as "keep mkdocs.yml's value".
        cfg = load_config(
            config_file=str(config or CONFIG),
            docs_dir=str(docs),
            site_dir=str(site),
            strict=True,
            site_url=site_url,
        )
        cfg.plugins["ledgerrate-raw-html"] = RawHtml(beside)  # type: ignore[assignment]
        cfg.plugins["ledgerrate-shared-markdown"] = SharedMarkdown()  # type: ignore[assignment]
        cfg.plugins["ledgerrate-shared-nav"] = SharedNav()  # type: ignore[assignment]
        cfg.plugins["ledgerrate-shared-frame"] = SharedFrame()  # type: ignore[assignment]
        cfg.plugins["ledgerrate-glossary-links"] = GlossaryLinks()  # type: ignore[assignment]
        cfg.plugins["ledgerrate-static-links"] = StaticLinks(beside=True)  # type: ignore[assignment]
        cfg.plugins["ledgerrate-parallel-pages"] = ParallelPages()  # type: ignore[assignment]
        if cache is not None:
            cfg.plugins["ledgerrate-compiled-theme"] = CompiledTheme(cache)  # type: ignore[assignment]
            cfg.plugins["ledgerrate-converted-pages"] = ConvertedPages(cache)  # type: ignore[assignment]
        apply_nav(cfg)
        build(cfg)
    except (MkDocsException, SystemExit) as exc:
        lines = [f"mkdocs: {line}" for line in collect.lines] or [f"mkdocs: {exc}"]
        raise UsageProblem("the site did not build; nothing was published", *lines) from None
    finally:
        logger.removeHandler(collect)
        if previous is None:
            os.environ.pop(SKIP_RENDER_ENV, None)
        else:
            os.environ[SKIP_RENDER_ENV] = previous


def run_engine(
    engine: str,
    docs: Path,
    site: Path,
    site_url: str | None = None,
    cache: BuildCache | None = None,
    beside: Collection[str] = (),
) -> None:
    if engine == "mkdocs":
        run_mkdocs(docs, site, site_url=site_url, cache=cache, beside=beside)
    elif engine == "zensical":
        if site_url:
            raise UsageProblem("--site-url is applied by the mkdocs engine only; drop one")
        from ledgerrate.publish.engine.zensical import run_zensical

        run_zensical(docs, site)
    else:
        raise UsageProblem(f"--engine {engine!r}: use mkdocs or zensical")
