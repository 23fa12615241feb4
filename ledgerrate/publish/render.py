"""The render stage: editions → markdown pages and downloads in a docs folder.

Shared by `ledgerrate build` and the mkdocs hook, so both publish the same site.
"""

from __future__ import annotations

import datetime as dt
import filecmp
import shutil
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import atomic_write_bytes
from ledgerrate.publish import charts, compare, drilldown, site_paths
from ledgerrate.publish.assets import write_fonts
from ledgerrate.publish.bundle import index_lines
from ledgerrate.publish.cache import BuildCache, key_of, map_cached, place_product, write_plain
from ledgerrate.publish.card import rate_card
from ledgerrate.publish.card_html import render_ratecard_html
from ledgerrate.publish.carried import Carried
from ledgerrate.publish.downloads import (
    DataSection,
    regenerate_released,
    section_json,
    section_of,
    write_downloads,
)
from ledgerrate.publish.errata import atom_feed
from ledgerrate.publish.load import Edition, load_editions
from ledgerrate.publish.page_products import PageJob, PageStore
from ledgerrate.publish.pages import loader_folder, make_env, render_pages
from ledgerrate.publish.published import copy_index
from ledgerrate.publish.safe import segment
from ledgerrate.publish.seed_changelog import append_seed_changelog
from ledgerrate.publish.site import build_site_model
from ledgerrate.publish.site_facts import append_to_about, load_site_facts
from ledgerrate.publish.verifier import publish_verifier
from ledgerrate.schema import EditionResults

# The site's templates, hand-written pages and mkdocs configuration ship inside the package, so
# an installed (not editable) ledgerrate builds the same site as a checkout.
SITE = Path(__file__).resolve().parents[1] / "site"
TEMPLATES = SITE / "templates"
SITE_SRC = SITE / "pages"
CONFIG = SITE / "mkdocs.yml"


def _copy_site_src(site_src: Path, docs: Path) -> set[str]:
    """Hand-written pages go in first; returns the methodology versions that have pages."""
    if site_src.is_dir():
        shutil.copytree(site_src, docs, dirs_exist_ok=True)
    methodology = site_src / "methodology"
    if not methodology.is_dir():
        return set()
    return {d.name for d in methodology.iterdir() if (d / "index.md").is_file()}


def render_into(
    editions_dir: Path,
    docs: Path,
    *,
    site_src: Path = SITE_SRC,
    templates: Path = TEMPLATES,
    results_fn: Callable[[Path], EditionResults] | None = None,
    cache: BuildCache | None = None,
    site_url: str | None = None,
    edition_paths: list[Path] | None = None,
    carried: Carried | None = None,
    edition_keys: dict[str, str] | None = None,
) -> None:
    """Write the complete docs tree into `docs` (an empty folder). With a `cache`, rate-card
    PDFs, gzips, datasets and bundles whose inputs are unchanged are reused from it
    (`site_url`: where the site is hosted, printed on the rate-card PDFs; `edition_paths`: the
    editions the caller already found in `editions_dir`, by default found here; `carried`: where
    the drill-down's cell folders and the run and grade logs go instead of the docs,
    `publish/carried.py`; `edition_keys`: each edition folder's digest by its name, from
    `build`, with which the pages are products, `publish/page_products.py`)."""
    if cache is None:
        with tempfile.TemporaryDirectory(prefix="ledgerrate-cache-") as scratch:
            render_into(
                editions_dir,
                docs,
                site_src=site_src,
                templates=templates,
                results_fn=results_fn,
                cache=BuildCache.open(Path(scratch)),
                site_url=site_url,
                edition_paths=edition_paths,
                carried=carried,
                edition_keys=edition_keys,
            )
        return
    clash = site_paths.clashes(site_src)  # generated pages would silently replace these
    if clash:
        raise UsageProblem(site_paths.clash_message(site_src, clash))
    # 1. hand-written pages (methodology, about, stylesheets)
    methodology = _copy_site_src(site_src, docs)
    write_fonts(docs)  # served from the site itself: no request leaves it
    # 2. every edition with its results, oldest first
    editions = load_editions(editions_dir, results_fn, cache, paths=edition_paths)
    site = build_site_model(editions, methodology)
    site.facts = load_site_facts(editions_dir)
    fork = worth_forking(editions)

    env = make_env(templates, cache)
    keys = None
    store = None
    if edition_keys is not None:
        keys = {e.id: page_key(e, edition_keys[e.paths.root.name]) for e in editions}
        store = PageStore(cache, env, loader_folder(env), docs.parent / ".page-jobs")

    # 3. downloads per edition, the rate-card PDF first so the checksums cover it; the editions
    #    share nothing here, so they are written side by side on every CPU (`worth_forking`)
    def downloads(edition: Edition) -> DataSection:
        dest = docs / site_paths.DATA / segment(edition.id)
        dest.mkdir(parents=True, exist_ok=True)
        if store is not None and keys is not None and carried is not None:
            job = PageJob(
                f"downloads/{edition.id}",
                {
                    "edition": keys[edition.id],
                    "site_url": site_url or "",
                    "code": [cache.code(kind) for kind in DOWNLOAD_KINDS],
                },
                partial(_downloads_of, edition, cache, site_url),
            )
            section = section_of(store.run(job, dest))
            try:
                section.carried = [f.place(carried, cache) for f in section.log_folders]
                return section
            except FileNotFoundError:  # a gzip gone from the cache: made again below,
                # into an empty folder (never written through the links to the cache's files)
                shutil.rmtree(dest)
                dest.mkdir()
        _ratecard(edition, dest / "ratecard.pdf", cache, site_url)
        return write_downloads(edition, dest, cache, carried)

    regenerate_released(editions, cache)  # before the editions fork: see its docstring
    try:
        written = map_cached(downloads, editions, cache, fork=fork)
    finally:
        if store is not None:
            shutil.rmtree(store.scratch, ignore_errors=True)
    sections = {edition.id: section for edition, section in zip(editions, written, strict=True)}
    if carried is not None:  # the log folders the workers wrote beside the docs, or kept
        for folder in (folder for section in written for folder in section.carried):
            carried.note(*folder)
    # 4. errata feed; its clock is the newest erratum so rebuilds are byte-identical
    stamps = [n.erratum.date for n in site.errata] + [e.manifest.date for e in editions]
    newest = max(stamps, default=dt.date(2026, 1, 1))
    updated = dt.datetime.combine(newest, dt.time(0, 0), tzinfo=dt.UTC)
    brand = site.latest.manifest.brand if site.latest else "LedgerRate"
    write_plain(docs / site_paths.ERRATA_FEED, atom_feed(site.errata, updated, brand))
    copy_index(editions_dir, docs)  # publication digests, for `verify --expect`
    publish_verifier(docs)  # the standalone verifier, listed on the data index
    # 5. the pages themselves, and each methodology changelog's seed releases and losses
    append_to_about(env, site.facts, docs)
    with charts.cached_in(cache):  # an unchanged chart is read back, not drawn again
        render_pages(env, site, sections, docs, cache, fork=fork, store=store, keys=keys)
        append_seed_changelog(env, editions, docs)
        # 6. the explore pages: models side by side, and every cell's runs down to the check
        #    (the drill-downs read the datasets the downloads of step 3 published; cached per
        #    cell)
        compare.render_compare(env, editions, docs)
        drilldown.render_drilldowns(
            env, editions, docs, cache, fork=fork, carried=carried, keys=keys
        )


# Below this many cells in the whole site, the pages, drill-downs and downloads are written in
# this process: each job is then milliseconds, and forking a pool of workers for them cost more
# CPU than it saved (the bundled editions' 34 cells: about 0.1 CPU-second of a 0.8-second warm
# build). A 40-model edition has 560. Regenerating a dataset or gzipping logs, seconds of work,
# still goes to the workers at any size.
FORK_MIN_CELLS = 200


def page_key(edition: Edition, folder: str) -> str:
    """What an edition's pages and downloads show beyond its folder (`folder`, the digest of
    every file in it): whether it is provisional, and its lines of the index of publications
    beside it (the data page's sealed files, the evidence bundle)."""
    index = edition.paths.index
    return key_of(folder, edition.provisional, index.is_file(), index_lines(edition.paths.root))


# The kinds of product the downloads are made of: their code is in the key of an edition's
# downloads as a whole (`_downloads_of`), beside the page code.
DOWNLOAD_KINDS = (
    "ratecard",
    "gzip",
    "bundle",
    "corrected",
    "results-csv",
    "schemas",
    "hashed",
    "dataset",
)


def _downloads_of(
    edition: Edition, cache: BuildCache, site_url: str | None, dest: Path
) -> dict[str, Any]:
    """An edition's downloads written into `dest`, with the log folders only listed: the
    whole as one product (`page_products.PageStore`), keyed by the edition's key, so that a
    build after a template change places them instead of looking up 11,000 gzips again."""
    _ratecard(edition, dest / "ratecard.pdf", cache, site_url)
    return section_json(write_downloads(edition, dest, cache, logs_beside=True))


def worth_forking(editions: list[Edition]) -> bool:
    cells = sum(len(w.cells) for e in editions for w in e.results.workloads)
    return cells >= FORK_MIN_CELLS


def _ratecard(
    edition: Edition, target: Path, cache: BuildCache, site_url: str | None = None
) -> None:
    """The rate-card PDF is a function of its HTML and of the code that lays it out (fonts, CSS,
    weasyprint)."""
    card = rate_card(
        edition.results,
        edition.manifest,
        provisional=edition.provisional,
        errata=edition.errata,
        site_url=site_url,
    )
    html = render_ratecard_html(card)

    def make() -> bytes:
        # Here, not at the top: weasyprint takes half a second to import, and a build whose
        # rate cards all come from the cache never needs it.
        from ledgerrate.publish import pdf

        return pdf.ratecard_pdf(card)  # the card the key was made from, not made again

    key = key_of("ratecard", cache.code("ratecard"), html)
    place_product(cache.product_path("ratecard", key, make), target)


def sync_tree(source: Path, target: Path) -> None:
    """Make `target` equal `source`, touching only files that differ, so `mkdocs serve`'s
    watcher sees no change when a re-render produced the same bytes (no rebuild loop)."""
    target.mkdir(parents=True, exist_ok=True)
    wanted = {p.relative_to(source) for p in source.rglob("*") if p.is_file()}
    for rel in sorted(wanted):
        src, dst = source / rel, target / rel
        if not dst.is_file() or not filecmp.cmp(src, dst, shallow=False):
            atomic_write_bytes(dst, src.read_bytes())
    for path in sorted(target.rglob("*"), reverse=True):
        rel = path.relative_to(target)
        if path.is_file() and rel not in wanted:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def render_docs(editions_dir: Path, docs: Path, **kwargs: Any) -> None:
    """Render into a scratch folder, then bring `docs` up to date with it."""
    docs.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".render-", dir=docs.parent))
    try:
        render_into(editions_dir, scratch, **kwargs)
        sync_tree(scratch, docs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
