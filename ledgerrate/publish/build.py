"""`ledgerrate build`: every edition into a static site, or nothing at all.

Like mkdocs' own `commands/build.py`, one straight-line function with a comment per stage.
Everything is rendered into a staging folder inside `out`; `out/docs` and `out/site` are
replaced only after `mkdocs build --strict` succeeded, so a failed build never half-publishes.

Builds are incremental (see `publish/cache.py`): an edition's figures, its PDFs, gzips, datasets,
bundle and charts come from the machine's cache while their inputs' digests match, so a fresh
build folder or checkout reuses them; and a build whose every input (edition files, code,
templates, library versions, which windows have closed) matches the last successful one into
this `out`, with its output still in place, does nothing (`out/state` remembers it): first
asked of the files' stats alone (`publish/unchanged.py`), then, if any stat differs, of their
digests. The output is known by the stamps of the folders the last build swapped in, never by
walking it.
"""

from __future__ import annotations

import datetime as dt
import functools
import shutil
import tempfile
from pathlib import Path

from ledgerrate.core import layout
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_json
from ledgerrate.core.io import atomic_write_bytes, load_model
from ledgerrate.core.steps import Steps
from ledgerrate.publish import load, unchanged
from ledgerrate.publish.cache import PACKAGE, REPO, BuildCache, key_of, machine_cache_dir
from ledgerrate.publish.carried import Carried
from ledgerrate.publish.engine.run import run_engine
from ledgerrate.publish.published import publication_problems, seal_publications
from ledgerrate.publish.site_facts import digest as site_facts_digest
from ledgerrate.schema import SITE_FILE, EditionManifest, EditionResults

# Files `build` itself writes into an edition (first publication): not inputs of its figures.
_WRITTEN_BY_BUILD = frozenset({layout.RESULTS, layout.RESULTS_CURRENT, layout.PUBLISHED})


def _swap(new: Path, live: Path, graveyard: Path) -> None:
    # Each rename is atomic; the old tree is moved aside before the new one takes its name.
    if live.exists():
        live.rename(graveyard)
    new.rename(live)


def _manifest(path: Path) -> EditionManifest:
    """The edition's manifest, read once per build while its file is unchanged (the checks of
    a build ask three times: a 215-model manifest takes a tenth of a second to validate)."""
    file = layout.EditionPaths(path).manifest
    st = file.stat()
    return _read_manifest(file, st.st_size, st.st_mtime_ns, st.st_ino)


@functools.lru_cache(maxsize=64)
def _read_manifest(file: Path, *_stamp: int) -> EditionManifest:
    return load_model(EditionManifest, file)


def _edition_keys(cache: BuildCache, path: Path) -> tuple[str, str]:
    """The keys of an edition folder from one listing of it: of its inputs (without the files
    `build` itself writes there), and of the whole folder."""
    listing = cache.tree_listing([path])
    written = {f"{path.name}/{name}" for name in _WRITTEN_BY_BUILD}
    return sha256_json([e for e in listing if e[0] not in written]), sha256_json(listing)


def _sealed_stamp(path: Path) -> list[list[int] | None]:
    """The stats of the files the seal writes into an edition folder (`_WRITTEN_BY_BUILD`)."""
    stamps: list[list[int] | None] = []
    for name in sorted(_WRITTEN_BY_BUILD):
        try:
            st = (path / name).stat()
        except FileNotFoundError:
            stamps.append(None)
            continue
        stamps.append([st.st_size, st.st_mtime_ns, st.st_ino])
    return stamps


def _cached_results(cache: BuildCache, path: Path, inputs: str) -> EditionResults:
    """The edition's figures, recomputed only when its files (`inputs`, their key) or the code
    computing them changed."""
    key = key_of("results", cache.code("results"), inputs)
    raw = cache.product(
        "results", key, lambda: load.edition_results(path).model_dump_json().encode()
    )
    return EditionResults.model_validate_json(raw)


def _output_stamps(out: Path) -> list[list[int]]:
    """The folders the last build swapped in: each build swaps in new ones (new inodes), and an
    entry added or removed at their top changes their mtime. Never a walk of the output, which
    at ten 215-model editions was most of a no-change build (182,007 files)."""
    stamps = []
    for name in ("docs", "site"):
        try:
            st = (out / name).stat()
        except FileNotFoundError:
            return []
        stamps.append([st.st_ino, st.st_mtime_ns])
    return stamps


def _closes_next(paths: list[Path], now: dt.datetime) -> float | None:
    """The first window close still ahead of `now` (it changes what a build writes)."""
    ahead = [m.window.closes for m in map(_manifest, paths) if not load.window_closed(m, now)]
    return min(ahead).timestamp() if ahead else None


def _fingerprint(
    cache: BuildCache,
    paths: list[Path],
    out: Path,
    engine: str,
    site_url: str | None,
    now,
    facts: str = "",
    keys: dict[Path, str] | None = None,
) -> str:
    """Everything that decides what a build writes, read without reading unchanged files
    (`facts`: the digest of the operator's site.yaml beside the editions, `site_facts.digest`;
    `keys`: the edition folders' keys when already taken)."""
    known = keys or {path: _edition_keys(cache, path)[1] for path in paths}
    return key_of(
        "site",
        engine,
        site_url or "",
        facts,
        cache.toolchain(),
        [(path.name, known[path], load.window_closed(_manifest(path), now)) for path in paths],
        _output_stamps(out),
    )


def build_site(
    editions: Path,
    out: Path,
    *,
    site_url: str | None = None,
    engine: str = "mkdocs",
    cache_dir: Path | None = None,
) -> Path:
    """Render every edition in `editions` and build the HTML site into `out/site`
    (`site_url`: where it will be hosted, for the sitemap, canonical links and 404 page;
    `cache_dir`: the products cache, by default the machine's, see `machine_cache_dir`)."""
    # mkdocs resolves relative paths against mkdocs.yml, not the working directory.
    editions, out = Path(editions).resolve(), Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    state = out / "state"
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    # 0. nothing changed since the last successful build, by the stats of its inputs alone
    asked = unchanged.asked_of(editions, engine, site_url)
    if unchanged.unchanged(state, out, asked, now.timestamp()):
        return out / "site"
    cache = BuildCache.open(machine_cache_dir(cache_dir), index=state / "digests.json")
    found = load.edition_dirs(editions)  # once: the render takes them from here
    paths = [path.resolve() for path in found]
    # ... or by their digests (a file touched but not changed, a build racing an edit)
    last = state / "last-build"
    facts = site_facts_digest(editions)
    keys = {path: _edition_keys(cache, path) for path in paths}
    whole = {path: both[1] for path, both in keys.items()}
    fingerprint = _fingerprint(cache, paths, out, engine, site_url, now, facts, whole)
    if (out / "site").is_dir() and last.is_file() and last.read_text() == fingerprint:
        cache.save()
        _remember(state, paths, editions, out, asked, now)
        return out / "site"
    # Imported here: a build that stops at step 0 never loads the renderers (matplotlib, jinja,
    # weasyprint), which cost more than the rest of it.
    from ledgerrate.publish.render import render_into

    with Steps("build", 3) as steps:
        # 1. every edition's figures, once; a published edition changed without an erratum that
        #    names the change stops the build here, before anything is written
        steps.step("figures")
        results = {path: _cached_results(cache, path, keys[path][0]) for path in paths}
        problems = [
            line
            for path, r in results.items()
            for line in publication_problems(path, r, cache.file_digest)
        ]
        if problems:
            raise UsageProblem(*problems)
        # 2-4 run inside the seal: first publications (results.json, published.json, the index
        # line) are written before any page or bundle is made, so the bundle the data page links is
        # final from this build; an edition whose window is still open is shown as provisional and
        # not yet published. A failure in any later step restores the edition folders as they were.
        before = {path: _sealed_stamp(path) for path in paths}
        with seal_publications(results, now):
            # A publication (or corrected figures) has just been written into its edition
            # folder: its pages and downloads are keyed by the folder as it is now, so the next
            # build finds them.
            folders = {
                path: _edition_keys(cache, path)[1]
                if _sealed_stamp(path) != before[path]
                else whole[path]
                for path in paths
            }
            staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=out))
            carried = Carried.open(state, out / "site", staging / "carried")
            try:
                steps.step("pages, charts, PDFs and downloads")
                # 2. load editions, render pages and downloads (figures from step 1; unchanged
                #    PDFs, gzips, datasets and bundles from the cache)
                render_into(
                    editions,
                    staging / "docs",
                    results_fn=lambda p: results[Path(p).resolve()],
                    cache=cache,
                    site_url=site_url,
                    edition_paths=found,
                    carried=carried,
                    edition_keys={path.name: key for path, key in folders.items()},
                )
                steps.step(f"the static site ({engine})")
                # 3. the static site from the rendered pages (mkdocs build --strict, or
                #    Zensical), and the cell and log folders written beside them
                run_engine(
                    engine, staging / "docs", staging / "site", site_url, cache, carried.files
                )
                carried.assemble(staging / "site")
                # 4. publish: swap the new docs and site into place, the cell and log folders
                #    this build did not write moving from the outgoing site into the new one
                _swap(staging / "docs", out / "docs", staging / "old-docs")
                carried.forget(state)
                carried.swap_in(staging / "site", staging / "old-site")
                carried.remember(state)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
        # 5. remember what this build was made from, so an unchanged rebuild can stop at step 0
        #    (the edition folders as this build read them: one edited meanwhile is built again)
        done = _fingerprint(cache, paths, out, engine, site_url, now, facts, folders)
        atomic_write_bytes(last, done.encode())
        cache.save()
        _remember(state, paths, editions, out, asked, now)
    return out / "site"


def _remember(
    state: Path, paths: list[Path], editions: Path, out: Path, asked: list[str], now: dt.datetime
) -> None:
    """The stats behind this build's fingerprint, for the next build's first check: the same
    files and folders `_fingerprint` digests, and every folder beside the editions."""
    roots = [*paths, PACKAGE, REPO / "mkdocs.yml", REPO / "templates", REPO / "site_src"]
    # The operator's site.yaml is an input of its own (`_fingerprint`'s `facts`).
    roots.append(editions / SITE_FILE)
    beside = [p for p in editions.iterdir() if p.is_dir()] if editions.is_dir() else []
    unchanged.record(state, roots, out, asked, _closes_next(paths, now), folders=beside)
