"""`ledgerrate build`: every edition into a static site, or nothing at all.

Like mkdocs' own `commands/build.py`, one straight-line function with a comment per stage.
Everything is rendered into a staging folder inside `out`; `out/docs` and `out/site` are
replaced only after `mkdocs build --strict` succeeded, so a failed build never half-publishes.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import shutil
import tempfile
from pathlib import Path

from ledgerrate.errors import UsageProblem
from ledgerrate.publish import load
from ledgerrate.publish.published import publication_problems, seal_publications
from ledgerrate.publish.render import CONFIG, render_into

SKIP_RENDER_ENV = "LEDGERRATE_SKIP_RENDER"


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def run_mkdocs(docs: Path, site: Path, config: Path = CONFIG, site_url: str | None = None) -> None:
    """`mkdocs build --strict` on an already rendered docs folder; warnings become errors."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    collect = _Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(collect)
    previous = os.environ.get(SKIP_RENDER_ENV)
    # The hook renders on plain `mkdocs build`; here the pages are already rendered.
    os.environ[SKIP_RENDER_ENV] = "1"
    try:
        # mkdocs treats a None override as "keep mkdocs.yml's value".
        cfg = load_config(
            config_file=str(config),
            docs_dir=str(docs),
            site_dir=str(site),
            strict=True,
            site_url=site_url,
        )
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


def _swap(new: Path, live: Path, graveyard: Path) -> None:
    # Each rename is atomic; the old tree is moved aside before the new one takes its name.
    if live.exists():
        live.rename(graveyard)
    new.rename(live)


def edition_dirs(editions: Path) -> list[Path]:
    if not editions.is_dir():
        return []
    return sorted(p for p in editions.iterdir() if (p / "edition.yaml").is_file())


def build_site(editions: Path, out: Path, site_url: str | None = None) -> Path:
    """Render every edition in `editions` and build the HTML site into `out/site`
    (`site_url`: where it will be hosted, for the sitemap, canonical links and 404 page)."""
    # mkdocs resolves relative paths against mkdocs.yml, not the working directory.
    editions, out = Path(editions).resolve(), Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    # 0. every edition's figures, once; a published edition changed without an erratum that
    #    names the change stops the build here, before anything is written
    results = {path.resolve(): load.edition_results(path) for path in edition_dirs(editions)}
    problems = [line for path, r in results.items() for line in publication_problems(path, r)]
    if problems:
        raise UsageProblem(*problems)
    # 0b. seal first publications (results.json, published.json, the index line) before any
    #     page or bundle is made, so the bundle the data page links is final from this build;
    #     an edition whose window is still open is shown as provisional and not yet published.
    #     A failure in any later step restores the edition folders as they were.
    with seal_publications(results, dt.datetime.now(dt.UTC).replace(microsecond=0)):
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=out))
        try:
            # 1. load editions, render pages and downloads (figures from step 0)
            render_into(editions, staging / "docs", results_fn=lambda p: results[Path(p).resolve()])
            # 2. mkdocs build --strict from the rendered pages
            run_mkdocs(staging / "docs", staging / "site", site_url=site_url)
            # 3. publish: swap the new docs and site into place
            _swap(staging / "docs", out / "docs", staging / "old-docs")
            _swap(staging / "site", out / "site", staging / "old-site")
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return out / "site"
