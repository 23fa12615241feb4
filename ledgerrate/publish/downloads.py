"""Downloads of an edition (`/data/<edition>/`): raw logs, grades, results, checksums, seeds.

Every file `published.json` seals, and every file an erratum sealed since, is published with
its exact bytes (`site_name`): at its own path, except the run, grade and probe logs, published
as the gzip of their bytes as written (`<path>.gz`), and Markdown, published as `<path>.txt` so
the site serves it as text. A raw log is the sealed log: run records keep their long request
strings in `bodies/<sha256>.txt` (published beside them), exactly as in the edition folder.

Every file is written deterministically (gzip mtime 0, sorted keys) so that two builds of the
same edition publish byte-identical downloads and the same SHA256SUMS. The expensive ones (gzips,
regenerated datasets, the evidence bundle) come from the build cache when their inputs' digests
match, and are hard-linked from it rather than copied.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ledgerrate.core import forked
from ledgerrate.core.bundle_format import INCLUDED_DIRS, INCLUDED_TOP
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import seed_commitment, sha256_bytes
from ledgerrate.core.io import FileProblem, load_model
from ledgerrate.core.layout import (
    ERRATA,
    GRADES,
    INDEX_NAME,
    MANIFEST,
    PRICE_CHECK,
    PRICING,
    PROBES,
    PUBLISHED,
    REGISTRATION,
    RESULTS,
    RESULTS_CURRENT,
    RUNS,
    SEED_ESCROW,
    SEEDS,
    SEEDS_LOST,
    EditionPaths,
    cell_log_files,
)
from ledgerrate.core.released import load_released, stored_files
from ledgerrate.core.schema_export import schema_documents
from ledgerrate.core.seal import for_edition, read_index, sealed_name
from ledgerrate.generate.dataset import build_dataset, stack_versions
from ledgerrate.generate.dataset_files import regenerate
from ledgerrate.generate.seeds import verified_seed
from ledgerrate.publish import corrected, price_check_data
from ledgerrate.publish.bundle import index_lines, stream_bundle
from ledgerrate.publish.cache import (
    BuildCache,
    key_of,
    map_cached,
    place_product,
    write_plain,
)
from ledgerrate.publish.hashed_inputs import write_hashed_inputs
from ledgerrate.publish.incidents import download_name
from ledgerrate.publish.load import Edition
from ledgerrate.publish.log_gzip import GZIP_LEVEL, gzipped_log
from ledgerrate.publish.safe import segment
from ledgerrate.publish.site_paths import DATA
from ledgerrate.schema import EditionResults, Erratum, PublishedEdition

if TYPE_CHECKING:  # a type only: where the logs go makes none of them
    from ledgerrate.publish.carried import Carried, Noted

# Edition inputs published verbatim beside the logs so `verify` can run from the downloads alone;
# and the seal, which the data page points to for each log's sealed sha256 and size instead of
# listing thousands of them (it was in the evidence bundle only).
_INPUTS = (MANIFEST, PRICING, REGISTRATION, PRICE_CHECK, ERRATA, SEEDS, SEED_ESCROW, SEEDS_LOST,
           PUBLISHED)  # fmt: skip
# Logs published as the gzip of their bytes; an incident's files go out as they are.
GZIPPED_LOGS = (f"{RUNS}/", f"{GRADES}/", f"{PROBES}/")
# The per-cell log folders, which `ledgerrate build` places beside the docs (`_carried_logs`).
CARRIED_LOGS = (RUNS, GRADES)
# zlib's default: within 3% of level 9's size on run logs at about half its CPU.
# Logs gzipped per worker job: one log takes a few milliseconds, a hand-off about a tenth of one.
_GZIP_BATCH = 64


@dataclass(frozen=True)
class Download:
    path: str  # relative to the edition's data folder, POSIX
    size: int
    sha256: str


@dataclass(frozen=True)
class SeedCheck:
    workload: str
    commitment: str  # as registered (or as in seeds.json when nothing is registered)
    released: bool
    recomputed: str | None
    ok: bool | None  # None while withheld


@dataclass(frozen=True)
class SealedDownload:
    """A sealed file of the edition and where its exact bytes are on the site."""

    name: str  # path in the edition folder, as published.json or the index names it
    path: str  # where its bytes are, under data/<edition>/ (`site_name`)
    sha256: str  # the sealed digest
    size: int  # the sealed size: a log's sealed bytes are its first `size` bytes
    sealed_by: str  # "published.json", or the erratum whose index line sealed these bytes
    gzipped: bool  # the download is the gzip of the bytes
    grown: bool  # a log that grew since (append-only): compare its first `size` bytes


@dataclass
class DataSection:
    edition: str
    files: list[Download]
    seeds: list[SeedCheck]
    dataset_notes: list[str]
    sealed: list[SealedDownload] = field(default_factory=list)
    # The log folders written beside the docs or kept from the live site, as
    # `Carried.note` takes them (a forked worker writes them; its parent notes them).
    carried: list[Noted] = field(default_factory=list)
    # The log folders themselves, for a caller that places them later (`write_downloads`).
    log_folders: list[LogFolder] = field(default_factory=list)


def section_json(section: DataSection, *, log_folders: bool = True) -> dict[str, Any]:
    """What a data page lists, as JSON (kept with the downloads' files, `render.py`); the
    folders' answers (`carried`) belong to one build and are left out, and the log folders
    too unless `log_folders`. Field by field: `dataclasses.asdict` copied the 11,000 log
    entries of each 215-model edition deeply, five seconds at ten editions."""
    found: dict[str, Any] = {
        "edition": section.edition,
        "files": [vars(f) for f in section.files],
        "seeds": [vars(s) for s in section.seeds],
        "dataset_notes": section.dataset_notes,
        "sealed": [vars(s) for s in section.sealed],
    }
    if log_folders:
        found["log_folders"] = [vars(f) for f in section.log_folders]
    return found


def section_of(found: dict[str, Any]) -> DataSection:
    """`section_json` read back."""
    return DataSection(
        edition=found["edition"],
        files=[Download(**f) for f in found["files"]],
        seeds=[SeedCheck(**s) for s in found["seeds"]],
        dataset_notes=list(found["dataset_notes"]),
        sealed=[SealedDownload(**s) for s in found["sealed"]],
        log_folders=[
            LogFolder(f["rel"], f["key"], [tuple(row) for row in f["files"]])
            for f in found["log_folders"]
        ],
    )


def _place(cached: Path, target: Path, known: dict[Path, str]) -> None:
    # Its digest is in its cache name (checked when it was read), so it is not read again.
    place_product(cached, target)
    known[target] = cached.name.rsplit("-", 1)[1]


def results_frame(results: EditionResults) -> pd.DataFrame:
    """One row per cell; intervals split into lo/hi columns, lists and dicts as JSON."""
    rows = []
    for workload in results.workloads:
        for cell in workload.cells:
            row: dict[str, Any] = {"edition": results.edition}
            for key, value in cell.model_dump(mode="json").items():
                if key in {"pass_rate_ci", "cpo_ci"}:
                    row[f"{key}_lo"] = value["lo"] if value else None
                    row[f"{key}_hi"] = value["hi"] if value else None
                    row[f"{key}_method"] = value["method"] if value else None
                elif isinstance(value, (dict, list)):
                    row[key] = json.dumps(value, sort_keys=True, ensure_ascii=False)
                else:
                    row[key] = value
            rows.append(row)
    return pd.DataFrame(rows)


def _results_csv(edition: Edition) -> bytes:
    return results_frame(edition.results).to_csv(index=False, lineterminator="\n").encode()


def seed_checks(edition: Edition) -> list[SeedCheck]:
    """Recompute each released seed's commitment; the registered one is the reference."""
    registered = (
        {w: r.seed_commitment for w, r in edition.registration.workloads.items()}
        if edition.registration
        else {}
    )
    released = edition.seeds.seeds if edition.seeds else {}
    checks = []
    for workload in sorted(set(registered) | set(released)):
        entry = released.get(workload)
        expected = registered.get(workload) or (entry.commitment if entry else "")
        if entry is None:
            checks.append(SeedCheck(workload, expected, False, None, None))
            continue
        again = seed_commitment(entry.seed, entry.salt)
        ok = again == expected and again == entry.commitment
        checks.append(SeedCheck(workload, expected, True, again, ok))
    return checks


# Why a released dataset may not be published: a note on the data page, not a failed build.
_NOT_REGENERATED = (UsageProblem, FileProblem, KeyError, ImportError, ValueError)


def regenerate_released(editions: Sequence[Edition], cache: BuildCache) -> None:
    """Put every released dataset of `editions` that is neither stored in its edition folder
    nor in the cache into the cache, before the editions' downloads are written side by side
    (`_dataset_files` then reads them back).

    Here, not in an edition's worker, because the work is in one dataset's files: a board
    pack's 75 PDFs, about half a second each, were rendered one after another in the worker
    of the one edition that released them (36 of a cold build's 40 CPU-seconds). Here its
    items are spread over every CPU. A dataset that cannot be regenerated is left to
    `_dataset_files`, which notes why on the data page; the cache remembers the failure, so
    it is not attempted twice. A dataset the cache holds is only looked for, not read: the
    edition's downloads read and check it (on a warm build, reading it here as well cost 6
    to 10% of the build's own work). A dataset stored at release (`released/`) is never
    made here: its stored bytes are what is published."""
    renderer = _renderer(cache)
    for edition in editions:
        stored = load_released(edition.paths)
        for workload in sorted(edition.seeds.seeds if edition.seeds else {}):
            if stored is not None and workload in stored.datasets:
                continue
            with contextlib.suppress(*_NOT_REGENERATED):
                _released_dataset(edition, workload, cache, renderer, absent_only=True)


def _renderer(cache: BuildCache) -> str:
    """What renders files beyond the hashed content: the workload code, synth, the PDF stack.
    Once per pass over the datasets, not per dataset: a no-change build walks these folders."""
    return key_of(
        cache.code("dataset"),
        build_dataset.__module__,
        stack_versions(),
    )


def _released_dataset(
    edition: Edition, workload: str, cache: BuildCache, renderer: str, absent_only: bool = False
) -> dict[str, bytes]:
    """The files of one released dataset (`item/name` → bytes): from the cache entry of the
    registered dataset hash, or regenerated (and proved to be the registered dataset).
    `renderer` is `_renderer(cache)`. `absent_only`: only fill the cache; a dataset it holds
    is neither read nor returned (an empty dict)."""
    assert edition.seeds is not None
    sealed = edition.registration.workloads.get(workload) if edition.registration else None
    if sealed is None:
        raise UsageProblem(f"workload {workload} is not registered")
    # The released seed must open the registered commitment before anything is published as
    # this edition's dataset, cached or not.
    verified_seed(edition.seeds, workload, sealed.seed_commitment)
    extras_key = key_of(renderer, workload)
    if absent_only and cache.holds_dataset(sealed.dataset_hash, extras_key):
        return {}
    return cache.dataset(
        sealed.dataset_hash,
        extras_key,
        partial(regenerate, edition.paths.root, workload),
        edition.registration.hash_scheme if edition.registration else 1,
    )


def _dataset_files(edition: Edition, dest: Path, cache: BuildCache) -> list[str]:
    """Dataset files (e.g. invoice PDFs) of released seeds, written into `dest`; a note for
    each that cannot be. A dataset stored at release is published as stored, after its files
    are checked against the manifest and the registration (a damaged one stops the build:
    publishing past it would publish unchecked bytes); any other is regenerated from its seed
    through the cache."""
    if edition.seeds is None:
        return []
    stored = load_released(edition.paths)
    renderer = _renderer(cache)
    notes = []
    for workload in sorted(edition.seeds.seeds):
        if stored is not None and workload in stored.datasets:
            try:
                registered = _opened(edition, workload)
            except UsageProblem as problem:
                notes.append(f"{workload}: dataset not published: {problem}")
                continue
            # Never a note: a damaged store stops the build, naming the file.
            files = stored_files(edition.paths, stored, workload, registered)
        else:
            try:
                files = _released_dataset(edition, workload, cache, renderer)
            except _NOT_REGENERATED as problem:
                notes.append(f"{workload}: dataset not regenerated: {problem}")
                continue
        for rel, data in sorted(files.items()):
            write_plain(dest / "datasets" / workload / rel, data)
    return notes


def _opened(edition: Edition, workload: str) -> str:
    """The registered dataset hash of `workload`, once its released seed opens the registered
    commitment: as for a regenerated dataset, before anything is published as its dataset."""
    sealed = edition.registration.workloads.get(workload) if edition.registration else None
    if sealed is None or edition.seeds is None:
        raise UsageProblem(f"workload {workload} is not registered")
    verified_seed(edition.seeds, workload, sealed.seed_commitment)
    return sealed.dataset_hash


def _schema_files(cache: BuildCache) -> dict[str, bytes]:
    """The JSON Schemas of the files on disk, as published beside every edition's data.

    They come from the code alone, so they are one product per version of the schemas' code:
    pydantic takes about 0.2 CPU-seconds to generate them, a quarter of a build's own work when
    everything else comes from the cache."""
    raw = cache.product("schemas", key_of("schemas", cache.code("schemas")), _schema_texts)
    return {name: text.encode("utf-8") for name, text in json.loads(raw).items()}


def _schema_texts() -> bytes:
    texts = {
        filename: json.dumps(doc, indent=2, sort_keys=True) + "\n"
        for filename, doc in sorted(schema_documents().items())
    }
    return json.dumps(texts, sort_keys=True).encode("utf-8")


def site_name(name: str) -> str:
    """Where the bytes of edition file `name` are on the site, under `data/<edition>/`."""
    if name.endswith(".jsonl") and name.startswith(GZIPPED_LOGS):
        return f"{name}.gz"
    return download_name(name)


def _gzipped_logs(root: Path, cache: BuildCache) -> list[tuple[Path, Path]]:
    """Every run, grade and probe log with its cached gzip; the missing ones are made by a
    worker per CPU (ledgerrate/core/forked.py), in batches so that a job is more than its hand-off.

    Each is the gzip of the log's bytes as written, so that unzipped it is the sealed log; its
    request strings stay in `bodies/`, published beside it (`write_downloads`)."""
    paths = EditionPaths(root)
    logs = sorted([*cell_log_files(paths.runs_dir), *cell_log_files(paths.grades_dir)]) + sorted(
        paths.probes_dir.glob("*.jsonl")
    )
    code = cache.code("gzip")
    keys = [key_of("gzip-raw", code, GZIP_LEVEL, cache.file_digest(log)) for log in logs]
    found: dict[int, Path | None] = {i: cache.stored("gzip", key) for i, key in enumerate(keys)}
    missing = [i for i, cached in found.items() if cached is None]

    def make(batch: Sequence[int]) -> list[Path]:
        return [cache.product_path("gzip", keys[i], partial(gzipped_log, logs[i])) for i in batch]

    batches = forked.batches(missing, _GZIP_BATCH)
    for batch, made in zip(batches, map_cached(make, batches, cache), strict=True):
        found.update(zip(batch, made, strict=True))
    placed = []
    for i, log in enumerate(logs):
        cached = found[i]
        if cached is None:  # every missing gzip was made above; a gap would drop a download
            raise RuntimeError(f"no gzip made for {log}")
        placed.append((log, cached))
    return placed


def _sealed_names(root: Path) -> list[str]:
    """Every file published.json seals and every file the index of publications sealed since
    (the bytes of files errata name); empty before publication."""
    return sorted(_seals(root, []))


def _seals(root: Path, errata: Sequence[Erratum]) -> dict[str, tuple[str, int, str]]:
    """Name → (sha256, size, what sealed it) of every sealed file: its latest sealed bytes."""
    paths = EditionPaths(root)
    if not paths.published.exists():
        return {}
    published = load_model(PublishedEdition, paths.published)
    seals = {
        name: (digest, published.sizes.get(name, 0), PUBLISHED)
        for name, digest in published.files.items()
    }
    mine = for_edition(read_index(paths.index), paths.id)
    held = mine[-1].entry.files if mine else None
    for name, sealed in (held or {}).items():
        naming = [e.id for e in errata if name in {sealed_name(n) for n in e.files}]
        by = f"erratum {naming[-1]}" if naming else f"{INDEX_NAME} line {mine[-1].number}"
        seals[name] = (sealed.sha256, sealed.size, by)
    return seals


def sealed_downloads(root: Path, errata: Sequence[Erratum]) -> list[SealedDownload]:
    """Every sealed file with its place on the site, for the data page."""
    listed = []
    for name, (digest, size, by) in sorted(_seals(root, errata).items()):
        where = site_name(name)
        grown = (root / name).is_file() and (root / name).stat().st_size != size
        listed.append(SealedDownload(name, where, digest, size, by, where.endswith(".gz"), grown))
    return listed


def _rest_of_sealed(root: Path, dest: Path, sealed: list[str], elsewhere: set[str]) -> None:
    """Every sealed file (`sealed`, `_sealed_names`) not published above (a run's `.started`
    marker, a file named by an erratum) goes out as it is: every sealed byte is downloadable,
    or the build stops. `elsewhere`: the site names published outside `dest` (the carried
    logs)."""
    for name in sealed:
        target = dest / site_name(name)
        if site_name(name) in elsewhere or target.is_file():
            continue
        if not (root / name).is_file():
            raise UsageProblem(
                f"edition {root.name}: {name} is sealed (published.json or {INDEX_NAME}) but "
                "missing from the edition folder; restore it from version control"
            )
        write_plain(target, (root / name).read_bytes())


def _sealed_results(root: Path) -> bytes | None:
    """The sealed results.json, refused if it is not the bytes published.json seals: it is the
    file the seal and the publication digest refer to, and what `results-corrected.json` quotes
    as published."""
    paths = EditionPaths(root)
    path = paths.results
    if not path.exists():
        return None
    data = path.read_bytes()
    published = paths.published
    if published.exists():
        sealed = load_model(PublishedEdition, published).files.get(RESULTS)
        if sealed is not None and sha256_bytes(data) != sealed:
            raise UsageProblem(
                f"{path}: not the bytes published.json seals (sha256 {sealed[:12]}…); restore "
                f"the sealed file from version control (corrected figures go to {RESULTS_CURRENT})"
            )
    return data


def _bundle(edition: Edition, dest: Path, cache: BuildCache, known: dict[Path, str]) -> None:
    """The whole edition as one content-addressed file that `ledgerrate verify` accepts."""
    root = edition.paths.root
    members = [root / name for name in INCLUDED_TOP] + [root / folder for folder in INCLUDED_DIRS]
    listing = [
        (p.relative_to(root).as_posix(), cache.file_digest(p))
        for member in members
        for p in ([member] if member.is_file() else sorted(member.rglob("*")))
        if p.is_file() and not p.is_symlink() and not p.name.startswith(".")
    ]
    # The bundle holds the edition's lines of the index beside it too (`bundle.index_lines`).
    key = key_of("bundle", cache.code("bundle"), edition.id, listing, index_lines(root))
    cached = cache.streamed_product_path("bundle", key, partial(stream_bundle, root))
    sha = cached.name.rsplit("-", 1)[1]
    _place(cached, dest / "bundle" / f"ledgerrate-evidence-{edition.id}-{sha}.tar.gz", known)


@dataclass(frozen=True)
class LogFolder:
    """A folder of run or grade logs published beside the docs (`publish/carried.py`): its
    place in the site, its key (every file's name and digest), and its files as (name in the
    folder, the file to place, its sha256, its size, whether it is a cached gzip)."""

    rel: str
    key: str
    files: list[tuple[str, str, str, int, bool]]

    def place(self, carried: Carried, cache: BuildCache, *, found_now: bool = False) -> Noted:
        """Write the folder beside the docs, or keep it in the live site (`Carried.folder`).
        Raises `FileNotFoundError`, before writing anything, when a file to place is gone
        from the cache (or is no longer the gzip it was) or from the edition. `found_now`: the
        files were found by this very build (`write_downloads`), and are not looked up again."""
        into = carried.folder(self.rel, self.key)
        if into is not None and not found_now:
            for name, path, _, _, cached in self.files:
                whole = Path(path)
                sound = (
                    cache.stored("gzip", whole.name.rsplit("-", 1)[0]) == whole
                    if cached
                    else whole.is_file()
                )
                if not sound:
                    raise FileNotFoundError(f"{path}: gone since it was listed for {name}")
        if into is not None:
            for name, path, _, _, cached in self.files:
                if cached:
                    place_product(Path(path), into / name)
                else:
                    write_plain(into / name, Path(path).read_bytes())
        return (self.rel, self.key, into is not None, [name for name, *_ in self.files])


def _log_folders(
    edition: Edition, logs: list[tuple[str, Path]], sealed_names: list[str], cache: BuildCache
) -> tuple[list[Download], list[LogFolder]]:
    """The run and grade logs (`logs`: site name, cached gzip), and any other sealed file
    (`sealed_names`) of their folders (a run's `.started` marker), as folders beside the docs
    (`publish/carried.py`). Their downloads, and the folders."""
    root = edition.paths.root
    gzips = dict(logs)
    sealed = {site_name(name): root / name for name in sealed_names}
    listed: list[Download] = []
    folders = []
    for top in CARRIED_LOGS:
        prefix = f"{top}/"
        # name in the folder -> (the file to place, its sha256, whether it is a cached gzip)
        mine: dict[str, tuple[Path, str, bool]] = {}
        for name, made in logs:
            if name.startswith(prefix):
                mine[name.removeprefix(prefix)] = (made, made.name.rsplit("-", 1)[1], True)
        for name, path in sealed.items():
            if name.startswith(prefix) and name not in gzips and path.is_file():
                mine[name.removeprefix(prefix)] = (path, cache.file_digest(path), False)
        if not mine:
            continue
        rel = f"{DATA}/{segment(edition.id)}/{top}"
        key = key_of("carried-logs", sorted((name, d) for name, (_, d, _) in mine.items()))
        files = []
        for name, (path, digest, cached) in sorted(mine.items()):
            size = path.stat().st_size
            files.append((name, str(path), digest, size, cached))
            listed.append(Download(f"{top}/{name}", size, digest))
        folders.append(LogFolder(rel, key, files))
    return listed, folders


def write_downloads(
    edition: Edition,
    dest: Path,
    cache: BuildCache | None = None,
    carried: Carried | None = None,
    *,
    logs_beside: bool = False,
) -> DataSection:
    """Write every download of `edition` into `dest` and return what the data page lists.

    Anything already in `dest` (the rate-card PDF) is listed and checksummed too. With
    `carried` (`ledgerrate build`), the run and grade logs go beside the docs instead
    (`publish/carried.py`): 5,600 files per 215-model edition that no page of the engine reads.
    With `logs_beside` and no `carried`, they are left out of `dest` and only listed
    (`DataSection.log_folders`), for the caller to place (`render.py`'s downloads product).
    """
    if cache is None:
        with tempfile.TemporaryDirectory(prefix="ledgerrate-cache-") as scratch:
            return write_downloads(edition, dest, BuildCache.open(Path(scratch)))
    root = edition.paths.root
    known: dict[Path, str] = {}
    for name in _INPUTS:
        if (root / name).exists():
            write_plain(dest / name, (root / name).read_bytes())
    for card in sorted(edition.paths.datasets_dir.glob("*/card.json")):
        write_plain(dest / card.relative_to(root), card.read_bytes())
    gzipped = [
        (site_name(log.relative_to(root).as_posix()), made)
        for log, made in _gzipped_logs(root, cache)
    ]
    sealed_names = _sealed_names(root)
    beside: list[Download] = []
    log_folders: list[LogFolder] = []
    if carried is not None or logs_beside:
        beside, log_folders = _log_folders(edition, gzipped, sealed_names, cache)
    elsewhere = {f.path for f in beside}
    for name, made in gzipped:
        if name not in elsewhere:
            _place(made, dest / name, known)
    for body in sorted(edition.paths.bodies_dir.glob("*.txt")):
        write_plain(dest / body.relative_to(root), body.read_bytes())
    for sheet in sorted(edition.paths.spotchecks_dir.glob("*.csv")):
        write_plain(dest / sheet.relative_to(root), sheet.read_bytes())
    # The manual arm's sittings (role, timing statement, stopwatch times, rate, tool lines):
    # what its cost is computed from, so the standalone verifier can recompute it.
    for found in edition.paths.manual_sittings().values():
        for sitting in found:
            write_plain(dest / sitting.relative_to(root), sitting.read_bytes())
    for incident in edition.incidents:
        for name, download in incident.downloads:
            write_plain(dest / download, (root / name).read_bytes())
    # The sealed file itself, not the figures as shown (from which withdrawn figures are
    # removed); before publication, the figures as computed. The figures as corrected by
    # errata, when any erratum corrected them, go beside it byte for byte.
    sealed = _sealed_results(root)
    results_json = (
        sealed
        if sealed is not None
        else ((edition.computed or edition.results).model_dump_json(indent=2) + "\n").encode()
    )
    write_plain(dest / RESULTS, results_json)
    # The price database's view and the per-cell costs beside it (generate/price_check.py).
    write_plain(dest / price_check_data.FILENAME, price_check_data.price_check_json(edition))
    if edition.paths.results_current.exists():
        write_plain(dest / RESULTS_CURRENT, edition.paths.results_current.read_bytes())
    # Its corrected companion (every erratum applied, each withdrawn or changed figure marked)
    # and the figures as CSV: products of the figures shown, the sealed file and the errata,
    # since their indented JSON and pandas frame cost a second per 215-model edition.
    shown = sha256_bytes(edition.results.model_dump_json().encode())
    errata = edition.errata.model_dump_json() if edition.errata else None
    key = key_of(
        "corrected", cache.code("corrected"), edition.id, sha256_bytes(results_json), shown, errata
    )
    made = cache.product_path(
        "corrected", key, lambda: corrected.corrected_json(edition, results_json)
    )
    _place(made, dest / corrected.FILENAME, known)
    made = cache.product_path(
        "results-csv",
        key_of("results-csv", cache.code("results-csv"), shown),
        partial(_results_csv, edition),
    )
    _place(made, dest / "results.csv", known)
    for filename, data in _schema_files(cache).items():
        write_plain(dest / "schemas" / filename, data)
    notes = _dataset_files(edition, dest, cache)
    if edition.registration is not None:
        _bundle(edition, dest, cache, known)
    _rest_of_sealed(root, dest, sealed_names, elsewhere)
    write_hashed_inputs(edition, dest, cache)  # the bytes behind each sealed hash (hashes.md)
    files = []
    for path in sorted(p for p in dest.rglob("*") if p.is_file() and p.name != "index.md"):
        if path.name == "SHA256SUMS":
            continue
        if path in known:
            size, digest = path.stat().st_size, known[path]
        else:
            data = path.read_bytes()
            size, digest = len(data), sha256_bytes(data)
        files.append(Download(path.relative_to(dest).as_posix(), size, digest))
    # In the order of the paths' parts, as the folder's listing above gave them.
    files = sorted([*files, *beside], key=lambda f: f.path.split("/"))
    sums = "".join(f"{f.sha256}  {f.path}\n" for f in files)
    write_plain(dest / "SHA256SUMS", sums.encode("utf-8"))
    entries = edition.errata.entries if edition.errata else []
    listed = sealed_downloads(root, entries)
    carried_logs = [f.place(carried, cache, found_now=True) for f in log_folders] if carried else []
    section = DataSection(edition.id, files, seed_checks(edition), notes, listed, carried_logs)
    section.log_folders = log_folders
    return section
