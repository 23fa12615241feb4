"""Immutable editions: what was published stays published, unless an erratum says otherwise.

At first publication `build` writes the edition's `results.json` and `published.json` (the
sha256 and size of every file that decides a figure). Every later build checks them: a file that
changed without an erratum naming it stops the build with a message saying exactly that. Raw
logs are append-only, so they may grow (a new sitting, a reproduction) as long as the published
bytes are untouched; what the growth changes in the figures is caught by the figures check.

Nothing sealed is ever written over. `results.json` stays the bytes first published; when an
erratum corrects the figures, `build` writes them to `results-current.json` beside it. Each
line the build appends to the index of publications seals the bytes of every file a sealed
erratum names (`seal.py`), and a later change to such a file needs a new erratum naming it.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ledgerrate.core import layout, seal
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_file
from ledgerrate.core.io import FileProblem, atomic_write_bytes, load_model, write_json
from ledgerrate.core.layout import EditionPaths
from ledgerrate.core.seal import edition_files, errata_files, published_digest
from ledgerrate.metrics.totals_format import in_format_of
from ledgerrate.publish import load
from ledgerrate.schema import EditionManifest, EditionResults, ErrataFile, Erratum, PublishedEdition

# Not covered: the record itself, corrections (errata are how changes are announced), seeds
# (released at the next edition by design) or the statement that they are lost (made when the
# release fails, after publication), the released datasets' stored files (written at that
# release; decide no figure, and `verify` makes every byte of them again from the seeds), and
# reproductions (shown apart, never published figures). The corrected figures are not covered
# either: the index seals their bytes (`seal.py`).
UNCOVERED = (
    layout.PUBLISHED,
    layout.ERRATA,
    layout.SEEDS,
    layout.SEEDS_LOST,
    layout.RESULTS_CURRENT,
)
UNCOVERED_DIRS = (f"{layout.REPRODUCTIONS}/", f"{layout.RELEASED}/")


def covered_files(edition_dir: Path) -> list[str]:
    return [
        name
        for name in edition_files(edition_dir)
        if name not in UNCOVERED and not name.startswith(UNCOVERED_DIRS)
    ]


def record_publication(
    edition_dir: Path, results: EditionResults, now: dt.datetime
) -> PublishedEdition:
    paths = EditionPaths(edition_dir)
    write_json(paths.results, results)
    files = covered_files(edition_dir)
    record = PublishedEdition(
        edition=paths.id,
        published_at=now,
        files={name: sha256_file(edition_dir / name) for name in files},
        sizes={name: (edition_dir / name).stat().st_size for name in files},
        errata_seen=sorted(_errata_ids(edition_dir)),
    )
    write_json(paths.published, record)
    seal_index(edition_dir, now)
    return record


def _errata(edition_dir: Path) -> list[Erratum]:
    path = EditionPaths(edition_dir).errata
    if not path.exists():
        return []
    return list(load_model(ErrataFile, path).entries)


def _errata_ids(edition_dir: Path) -> list[str]:
    return [e.id for e in _errata(edition_dir)]


def index_path(edition_dir: Path) -> Path:
    """The index of publications lives beside the edition folders, outside any one of them."""
    return EditionPaths(Path(edition_dir)).index


def seal_index(edition_dir: Path, now: dt.datetime) -> seal.PublicationEntry | None:
    """Append the edition's current publication state to the index, unless it is already the
    latest line for it: at first publication, and once for each build that finds new errata."""
    published = seal.published_sha(edition_dir)
    if published is None:
        return None
    path = index_path(edition_dir)
    with _index_lock(path):
        lines = seal.read_index(path)
        errata = _errata(edition_dir)
        mine = seal.for_edition(lines, EditionPaths(edition_dir).id)
        head = seal.chain(published, errata)[-1]
        named = seal.named_files(errata)
        # A line recorded before errata sealed bytes gets one successor that seals them.
        if mine and mine[-1].entry.digest == head and (mine[-1].entry.files or not named):
            return None
        files = sealed_files(edition_dir, named)
        entry = seal.entry_for(EditionPaths(edition_dir).id, published, errata, lines, now, files)
        seal.append_entry(path, entry)
    return entry


def sealed_files(edition_dir: Path, named: list[str]) -> dict[str, seal.SealedFile]:
    """The bytes of every file the errata name; a named file that does not exist is refused."""
    files = {}
    for name in named:
        sealed = seal.seal_file(edition_dir / name)
        if sealed is None:
            raise UsageProblem(
                f"edition {EditionPaths(edition_dir).id}: errata.yaml names '{name}' under "
                "`files`, but there is no such file; restore it, or name the file the erratum "
                "changed"
            )
        files[name] = sealed
    return files


@contextmanager
def _index_lock(path: Path) -> Iterator[None]:
    """Hold the index while reading its last line and appending the next: each line names the
    sha256 of the one before it, so two builds sealing at once must not both chain to the same
    line. An advisory lock on the index itself, released when the handle closes (even on kill)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield


def sealing_problems(edition_dir: Path) -> list[str]:
    """Why the index says this edition is not what it published: a sealed erratum removed,
    edited or moved, or published.json gone or changed. Writes nothing."""
    paths = EditionPaths(edition_dir)
    path = index_path(edition_dir)
    try:
        lines = seal.read_index(path)
    except FileProblem as problem:
        return problem.lines
    problems = [
        f"{path}: line {number}: {text}; restore the index from version control"
        for number, text in seal.chain_problems(lines)
    ]
    mine = seal.for_edition(lines, paths.id)
    if not mine:
        return problems
    latest = mine[-1]
    where = f"{path.name} line {latest.number}"
    published = seal.published_sha(edition_dir)
    if published is None:
        problems.append(
            f"edition {paths.id}: published.json is missing, but {where} records the edition as "
            "published; restore published.json (a published edition is never re-published)"
        )
    elif published != latest.entry.published_json:
        problems.append(
            f"edition {paths.id}: published.json changed after publication ({where} sealed "
            f"sha256 {latest.entry.published_json[:12]}…); restore it"
        )
    try:
        errata = _errata(edition_dir)
    except FileProblem as problem:
        return [*problems, *problem.lines]
    for erratum_id, text in seal.sealed_problems(latest.entry, errata):
        problems.append(
            f"edition {paths.id}: errata.yaml: erratum {erratum_id} was {text} ({where}); "
            "restore it: a published erratum is corrected by appending a new erratum, never "
            "by editing or removing it"
        )
    return problems


def copy_index(editions: Path, docs: Path) -> None:
    """The index goes to the site root too, so a reader can take a digest from the site."""
    source = Path(editions) / layout.INDEX_NAME
    if source.is_file():
        docs.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, docs / layout.INDEX_NAME)


def publication_problems(
    edition_dir: Path, results: EditionResults, whole: Callable[[Path], str] = sha256_file
) -> list[str]:
    """Why this build must not publish `edition_dir` (empty when it may). Writes nothing.
    `whole`: the sha256 of a whole file (`build` passes its cache's, which the edition's key
    has just checked against each file's stat: 5,700 sealed files per 215-model edition are
    not read again by every build)."""
    paths = EditionPaths(edition_dir)
    sealed = sealing_problems(edition_dir)
    if not paths.published.exists():
        return sealed
    published = load_model(PublishedEdition, paths.published)
    errata = _errata(edition_dir)
    covered = set(seal.named_files(errata))
    latest = _latest_line(edition_dir)
    sealed_ids = {e.id for e in latest.errata} if latest else set()
    # Files an erratum not sealed yet names: this build seals their new bytes.
    pending = set(seal.named_files([e for e in errata if e.id not in sealed_ids]))
    held = (latest.files if latest else None) or {}
    problems = list(sealed)
    for name, digest in sorted(published.files.items()):
        if name in held:
            continue  # held to its latest sealed bytes below
        found = published_digest(edition_dir / name, published.sizes.get(name), name, whole)
        if found == digest:
            continue
        if name == layout.RESULTS:
            problems.append(
                f"edition {paths.id}: results.json differs from the file published.json seals; "
                "restore it (git history holds the sealed bytes): corrected figures go to "
                f"{layout.RESULTS_CURRENT}, never over the sealed file"
            )
        elif name not in covered:
            problems.append(
                f"edition {paths.id}: {name} changed after publication and no erratum in "
                "errata.yaml names it; restore it, or add an erratum listing "
                f"'{name}' under `files` with the figures it changes"
            )
    for name, bytes_sealed in sorted(held.items()):
        found = seal.held_digest(edition_dir / name, bytes_sealed, name, whole)
        if name in pending or found == bytes_sealed.sha256:
            continue
        problems.append(
            f"edition {paths.id}: {name} changed after an erratum sealed its bytes "
            f"(sha256 {bytes_sealed.sha256[:12]}…, {layout.INDEX_NAME}); restore it, or add an "
            f"erratum listing '{name}' under `files` with the figures it changes"
        )
    for name in covered_files(edition_dir):
        if name not in published.files and not name.endswith(".jsonl") and name not in covered:
            problems.append(
                f"edition {paths.id}: {name} was added after publication and no erratum names it"
            )
    if (
        paths.results_current.exists()
        and layout.RESULTS_CURRENT not in held
        and layout.RESULTS_CURRENT not in (pending if held else covered)
    ):
        problems.append(
            f"edition {paths.id}: {layout.RESULTS_CURRENT} is there but no erratum names "
            "results.json: corrected figures are written by the build for an erratum that "
            "corrects them; remove it, or add that erratum"
        )
    stored = current_figures(edition_dir)
    figures_pending = layout.RESULTS_CURRENT in (pending if held else covered)
    if stored is not None and stored != in_format_of(results, stored) and not figures_pending:
        problems.append(
            f"edition {paths.id}: its figures recomputed from the logs differ from the "
            f"published ones ({_figures_name(edition_dir)}; a log, grade or price changed); "
            "publish the correction as a new erratum listing 'results.json' and the figures it "
            "changes"
        )
    return problems


def _latest_line(edition_dir: Path) -> seal.PublicationEntry | None:
    try:
        mine = seal.for_edition(
            seal.read_index(index_path(edition_dir)), EditionPaths(edition_dir).id
        )
    except FileProblem:
        return None  # reported by sealing_problems
    return mine[-1].entry if mine else None


def _figures_name(edition_dir: Path) -> str:
    current = EditionPaths(edition_dir).results_current
    return layout.RESULTS_CURRENT if current.exists() else layout.RESULTS


def current_figures(edition_dir: Path) -> EditionResults | None:
    """The figures as published today: corrected by errata (`results-current.json`) if any
    erratum corrected them, else as sealed (`results.json`); None before publication."""
    path = edition_dir / _figures_name(edition_dir)
    return load_model(EditionResults, path) if path.exists() else None


def record_after_build(edition_dir: Path, results: EditionResults, now: dt.datetime) -> None:
    """After a successful build: record a first publication, or write the corrected figures an
    erratum announced beside the sealed results.json (never over it), then seal the errata."""
    paths = EditionPaths(edition_dir)
    if not paths.published.exists():
        record_publication(edition_dir, results, now)
        return
    current = paths.results_current
    sealed_figures = load_model(EditionResults, paths.results) if paths.results.exists() else None
    # Corrected figures keep the format of the sealed file beside them (metrics/totals_format.py).
    results = in_format_of(results, sealed_figures)
    if current.exists():
        if load_model(EditionResults, current) != results:
            write_json(current, results)
    else:
        differs = sealed_figures is None or sealed_figures != results
        # An erratum naming results.json seals the corrected figures' bytes, even unchanged.
        if differs or layout.RESULTS_CURRENT in errata_files(edition_dir):
            write_json(current, results)
    seal_index(edition_dir, now)


@contextmanager
def seal_publications(results: dict[Path, EditionResults], now: dt.datetime) -> Iterator[None]:
    """Around the rest of `build`: first write the sealed files of every edition due for
    publication (its window closed) or already published, and their index lines, so the
    evidence bundle the data page links is complete and final from the first build that
    publishes the edition. If the build then fails, restore what was there before: a failed
    build publishes nothing."""
    saved: dict[Path, bytes | None] = {}
    index_sizes: dict[Path, int | None] = {}
    due = [
        Path(path)
        for path in results
        if EditionPaths(Path(path)).published.exists()
        or load.window_closed(load_model(EditionManifest, EditionPaths(Path(path)).manifest), now)
    ]
    for path in due:
        for name in (layout.RESULTS, layout.RESULTS_CURRENT, layout.PUBLISHED):
            target = path / name
            saved[target] = target.read_bytes() if target.is_file() else None
        index = index_path(path)
        index_sizes[index] = index.stat().st_size if index.is_file() else None
    try:
        for path in due:
            record_after_build(path, results[path], now)
        yield
    except BaseException:
        _restore(saved, index_sizes)
        raise


def _restore(saved: dict[Path, bytes | None], index_sizes: dict[Path, int | None]) -> None:
    for target, data in saved.items():
        if data is None:
            target.unlink(missing_ok=True)
        elif not target.is_file() or target.read_bytes() != data:
            atomic_write_bytes(target, data)
    for index, size in index_sizes.items():
        if size is None:
            index.unlink(missing_ok=True)
        elif index.is_file() and index.stat().st_size != size:
            os.truncate(index, size)  # the index only grew: cut this build's lines


def ensure_published(
    edition_dir: Path, results: EditionResults, now: dt.datetime | None = None
) -> None:
    """Check, then record: what `build` does around rendering, in one call (for tests/tools)."""
    problems = publication_problems(edition_dir, results)
    if problems:
        raise UsageProblem(*problems)
    record_after_build(edition_dir, results, now or dt.datetime.now(dt.UTC))
