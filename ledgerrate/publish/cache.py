"""The build cache: every expensive product of a build, addressed by the digests of its inputs.

A product's inputs include the code that makes it, and only that code (`code(kind)`, from the
table in `publish/product_code.py`): a change to one template or module remakes the products
made with it, not every product, so an upgrade of the toolchain is not a cold build.

Products are determined by their inputs' digests, so they live in one cache per machine (like
pip's wheel cache), outside any build folder: deleting `build/` or cloning afresh reuses them.
Its folder is `--cache-dir`, else `$LEDGERRATE_CACHE_DIR`, else `$XDG_CACHE_HOME/ledgerrate`,
else `~/.cache/ledgerrate` (see `machine_cache_dir`). Layout:

    products/<kind>/<key>-<sha256>   one product (a gzip, a PDF, a bundle, an edition's
                                     figures): `key` is the digest of everything it was made
                                     from, `sha256` the digest of its bytes, re-checked on
                                     every read, so a damaged entry is noticed and remade
    datasets/<dataset_hash>/         a regenerated dataset: `content.json` is the canonical
                                     JSON whose sha256 *is* the registered dataset hash; its
                                     files are checked against the digests it lists
    datasets/.locks/<dataset_hash>   held while that dataset is generated (see `dataset`)
    entries.json                     the products' checked digests (see below)

The index of input digests belongs to one build folder (`<out>/state/digests.json`): sha256 of
input files, remembered by (size, mtime, ctime, inode) as git's index does, so unchanged files are
not re-read; a file touched in the last seconds is not remembered (its mtime may not yet tell a
later edit apart).

A product's check is remembered by the cache itself (`entries.json`), so a new build folder or
checkout does not re-read every product it reuses (1.3 GB at ten 215-model editions). Its stamp
is (size, mtime, inode) without the ctime: every build hard-links each product it reuses into
its pages and site, and each link made or removed changes the ctime, so a ctime in the stamp
would re-read every product on every build. A write through any of those links changes the
mtime, and the entry is read again and, if damaged, remade.

Nothing here decides a figure: a miss only costs time, and a corrupt entry is remade.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, TypeVar, cast

from ledgerrate.core import forked
from ledgerrate.core.hashing import (
    LEGACY_SCHEME,
    HashScheme,
    canonical_json,
    sha256_bytes,
    sha256_file,
    sha256_json,
)
from ledgerrate.core.io import HashingFile
from ledgerrate.publish import product_code

T = TypeVar("T")
J = TypeVar("J")

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "ledgerrate"
# Libraries whose versions shape what a build writes (pages, charts, PDFs, site).
_LIBRARIES = (
    "jinja2",
    "markdown",
    "matplotlib",
    "mkdocs",
    "mkdocs-material",
    "numpy",
    "pandas",
    "pydantic",
    "weasyprint",
    "zensical",
)
CACHE_ENV = "LEDGERRATE_CACHE_DIR"
# A file changed this recently may change again within the same mtime tick: hash it afresh.
_RACY_S = 2.0
# Keys of remembered product checks, apart from input files' (which are absolute paths).
_ENTRY = "product:"


def write_plain(path: Path, data: bytes) -> None:
    """Write into a staging tree: no fsync, because the tree is swapped in whole or discarded."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def place_product(cached: Path, target: Path) -> None:
    """A cached product into the staging tree: a hard link where the filesystem allows (a
    write through it changes the entry's mtime, so the entry is checked again before reuse)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    try:
        os.link(cached, target)
    except OSError:
        shutil.copyfile(cached, target)


def machine_cache_dir(given: Path | None = None) -> Path:
    """Where this machine keeps build products: `given`, else $LEDGERRATE_CACHE_DIR, else the XDG
    cache folder ($XDG_CACHE_HOME, by default ~/.cache) under `ledgerrate`."""
    if given is not None:
        return Path(given).expanduser().resolve()
    if named := os.environ.get(CACHE_ENV):
        return Path(named).expanduser().resolve()
    # The XDG spec: a relative $XDG_CACHE_HOME is invalid and is to be ignored.
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return (base / "ledgerrate").resolve()


def _versions() -> dict[str, str]:
    found = {}
    for name in _LIBRARIES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found


def _distribution_versions() -> dict[str, dict[str, str]]:
    """Top-level module name -> {distribution: version} of every installed distribution."""
    from importlib.metadata import packages_distributions

    found: dict[str, dict[str, str]] = {}
    for top, dists in packages_distributions().items():
        for dist in dists:
            try:
                found.setdefault(top, {})[dist] = version(dist)
            except PackageNotFoundError:
                continue
    return found


def _names_under(roots: Iterable[Path]) -> list[str]:
    """Every file under `roots` as a sorted absolute path: os.walk on strings, since a
    no-change build lists thousands of files, and pathlib's rglob and Path comparisons cost more
    than the stat calls themselves."""
    found: list[str] = []
    for root in roots:
        top = os.path.abspath(root)
        if os.path.isfile(top):
            found.append(top)
            continue
        for folder, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
            found.extend(os.path.join(folder, f) for f in files if not f.startswith("."))
    return sorted(found)


@dataclass
class BuildCache:
    root: Path  # products and datasets
    index: Path  # the remembered input digests (one build folder's)
    _digests: dict[str, list[Any]] = field(default_factory=dict)
    _dirty: bool = False
    _toolchain: str | None = None
    hits: dict[str, int] = field(default_factory=dict)
    misses: dict[str, int] = field(default_factory=dict)
    # kind -> key -> entry names, listed once per kind: a glob per lookup re-reads the whole
    # folder, quadratic in its size (60 s of a 215-model edition's no-change build).
    _listed: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # Digests remembered since `added` was last cleared: a forked worker's, for its parent.
    added: dict[str, list[Any]] = field(default_factory=dict)
    # The products' checked digests (`entries.json`), read at the first product looked up: a
    # build that changes nothing never needs them.
    _entries_read: bool = False
    # Registered dataset hash -> why it could not be regenerated in this build: asked again
    # (an edition's downloads after `regenerate_released`), it fails at once, not after
    # rendering its files a second time.
    _unmade: dict[str, Exception] = field(default_factory=dict)
    # The package whose code the products are keyed by (a test points it at a copy).
    package: Path = PACKAGE
    _codes: dict[str, str] | None = None

    @classmethod
    def open(cls, root: Path, index: Path | None = None) -> BuildCache:
        """The cache under `root`; its index of input digests is `index` (by default beside
        the products, for a cache used by one build folder only)."""
        cache = cls(Path(root), Path(index) if index is not None else Path(root) / "digests.json")
        try:
            cache._digests = json.loads(cache.index.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            cache._digests = {}
        return cache

    def save(self) -> None:
        if not self._dirty:
            return
        inputs = {k: v for k, v in self._digests.items() if not k.startswith(_ENTRY)}
        entries = {k: v for k, v in self._digests.items() if k.startswith(_ENTRY)}
        _atomic(self.index, json.dumps(inputs, sort_keys=True).encode())
        if entries:
            # Another build on this machine may have saved since this one read: keep its
            # entries too (one that is stale only costs a re-read).
            _atomic(self._entries_file, json.dumps(self._read_entries() | entries).encode())
        self._dirty = False

    @property
    def _entries_file(self) -> Path:
        return self.root / "entries.json"

    def _read_entries(self) -> dict[str, list[Any]]:
        try:
            found = json.loads(self._entries_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in found.items() if k.startswith(_ENTRY)}

    def read_product_checks(self) -> None:
        """Read the products' remembered checks, once (before forking: one read, not one per
        worker)."""
        if not self._entries_read:
            self._digests = self._read_entries() | self._digests
            self._entries_read = True

    def _entry_digest(self, kind: str, entry: Path) -> str:
        """sha256 of a product's file, re-read only when its (size, mtime, inode) changed
        (the module's docstring says why not its ctime)."""
        self.read_product_checks()
        st = entry.stat()
        stamp = [st.st_size, st.st_mtime_ns, st.st_ino]
        return self._remembered(f"{_ENTRY}{kind}/{entry.name}", entry, stamp, st.st_mtime_ns)

    def _remembered(self, name: str, path: Path, stamp: list[int], mtime_ns: int) -> str:
        """sha256 of `path`, remembered under `name` with `stamp` and re-read only when the
        stamp changed; a file touched in the last seconds is not remembered."""
        known = self._digests.get(name)
        if known is not None and known[:-1] == stamp:
            return known[-1]
        digest = sha256_file(path)
        if time.time() - mtime_ns / 1e9 > _RACY_S:
            self._digests[name] = self.added[name] = [*stamp, digest]
            self._dirty = True
        return digest

    # ------------------------------------------------------------------ input digests

    def file_digest(self, path: Path | str) -> str:
        """sha256 of a file, re-read only when its stat says it may have changed."""
        # The stamp (inode included) proves the entry is this file, so the key need not be
        # canonical: abspath is a string operation, resolve() a system call per path component.
        name = os.path.abspath(path)
        st = os.stat(name)
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        return self._remembered(name, Path(name), stamp, st.st_mtime_ns)

    def absorb(
        self, hits: dict[str, int], misses: dict[str, int], digests: dict[str, list[Any]]
    ) -> None:
        """Count what a worker process did with this cache, and remember its digests."""
        for mine, theirs in ((self.hits, hits), (self.misses, misses)):
            for kind, n in theirs.items():
                mine[kind] = mine.get(kind, 0) + n
        if digests:
            self._digests.update(digests)
            self._dirty = True

    def tree_digest(self, roots: Iterable[Path]) -> str:
        """Digest of every file under `roots` (paths relative to the first root's parent)."""
        return sha256_json(self.tree_listing(roots))

    def tree_listing(self, roots: Iterable[Path]) -> list[tuple[str, str]]:
        """(path relative to the first root's parent, sha256) of every file under `roots`."""
        roots = list(roots)
        base = os.path.join(os.path.abspath(roots[0].parent if roots else Path(".")), "")
        listing = []
        # On strings, not Paths: an edition's key is taken of 5,900 files, up to three times a
        # build, and Path objects cost more than the stat calls (4 s at ten editions).
        for name in _names_under(roots):
            if not name.startswith(base):
                raise ValueError(f"{name} is not under {base}")
            listing.append((name[len(base) :], self.file_digest(name)))
        return listing

    def toolchain(self) -> str:
        """Digest of the code, templates and hand-written pages a build uses, and the library
        versions: what decides whether a build can stop at once (`publish/build.py`). Products
        are keyed by their own code instead (`code`)."""
        if self._toolchain is None:
            self._toolchain = sha256_json(
                {
                    "tree": self.tree_digest([self.package]),
                    "checkout": self.tree_digest(
                        [REPO / "mkdocs.yml", REPO / "templates", REPO / "site_src"]
                    ),
                    "libraries": self._library_versions(),
                }
            )
        return self._toolchain

    def code(self, kind: str) -> str:
        """Digest of the code that makes `kind`'s products (`publish/product_code.py`): what a
        product's key holds instead of the whole toolchain's digest, so that a change to other
        code or templates does not remake it."""
        # Worked out for every kind at once, by the first lookup: in `build`, the figures'
        # (in this process, before any worker is forked, so no worker works them out again).
        if self._codes is None:
            self._codes = self._product_codes()
        return self._codes[kind]

    def _product_codes(self) -> dict[str, str]:
        # Reading the modules' imports costs a few tenths of a second: remembered while the
        # toolchain and the installed distributions are those they were worked out for.
        stamp = [self.toolchain(), self._site_packages_stamp()]
        known = self._digests.get("<product code>")
        if known is not None and known[0] == stamp:
            return known[1]
        versions = self._distributions()
        codes = {}
        remembered = self._digests.get("<module imports>")
        scanner = product_code.Scanner(self.package, remembered[0] if remembered else None)
        for kind in sorted(product_code.PRODUCTS):
            made = scanner.code_files(kind)
            names = {d for top in made.imported for d in versions.get(top, {})}
            names.update(made.libraries)
            flat = {d: v for top in versions.values() for d, v in top.items()}
            codes[kind] = sha256_json(
                {
                    "files": [
                        (p.relative_to(self.package).as_posix(), self.file_digest(p))
                        for p in made.files
                    ],
                    "libraries": {name: flat.get(name, "") for name in sorted(names)},
                    "python": sys.version,
                }
            )
        self._digests["<product code>"] = [stamp, codes]
        self._digests["<module imports>"] = [scanner.used]
        self._dirty = True
        return codes

    @staticmethod
    def _site_packages_stamp() -> list[Any]:
        import sysconfig

        site = Path(sysconfig.get_paths()["purelib"])
        return [str(site), site.stat().st_mtime_ns]

    def _while_installed(self, label: str, read: Callable[[], T]) -> T:
        """What `read` gives, remembered under `label` while site-packages' entries are those it
        was read from: only an install rewrites them, and reading package metadata again costs
        more than the rest of a no-change build (every distribution's: over a second)."""
        stamp = self._site_packages_stamp()
        known = self._digests.get(label)
        if known is not None and known[0] == stamp:
            return cast(T, known[1])
        found = read()
        self._digests[label] = [stamp, found]
        self._dirty = True
        return found

    def _distributions(self) -> dict[str, dict[str, str]]:
        return self._while_installed("<distributions>", _distribution_versions)

    def _library_versions(self) -> dict[str, str]:
        return self._while_installed("<library versions>", _versions)

    # ------------------------------------------------------------------ products

    def product_path(self, kind: str, key: str, make: Callable[[], bytes]) -> Path:
        """The cached file holding what `make()` gives for `key`; made when no sound entry
        exists. An entry's bytes must hash to the digest in its name (re-read whenever its
        stat changed), so a damaged entry is dropped and remade."""
        return self.streamed_product_path(kind, key, lambda handle: handle.write(make()))

    def streamed_product_path(
        self, kind: str, key: str, write: Callable[[HashingFile], object]
    ) -> Path:
        """`product_path` for a product that `write` streams into the file it is given, never
        held in memory whole (an edition's evidence bundle)."""
        found = self.stored(kind, key)
        if found is not None:
            return found
        folder = self.root / "products" / kind
        # No fsync: a cache entry lost in a crash is a miss, and a torn one fails its digest.
        with HashingFile(folder, key) as handle:
            write(handle)
            entry = folder / f"{key}-{handle.sha256()}"
            handle.commit(entry, durable=False)
        self._listing(kind).setdefault(key, []).append(entry.name)
        self.misses[kind] = self.misses.get(kind, 0) + 1
        return entry

    def adopt(self, kind: str, path: Path) -> str:
        """Keep the file at `path` as a product of `kind` keyed by its own digest (a page's
        file, `publish/page_products.py`), by a hard link where the filesystem allows; returns
        the digest. Nothing is copied when that content is already kept."""
        digest = sha256_file(path)
        if self.stored(kind, digest) is not None:
            return digest
        folder = _mkdir(self.root / "products" / kind)
        entry = folder / f"{digest}-{digest}"
        scratch = folder / f".{digest}.{os.getpid()}.tmp"
        scratch.unlink(missing_ok=True)
        try:
            os.link(path, scratch)
        except OSError:
            shutil.copyfile(path, scratch)
        os.replace(scratch, entry)
        self._listing(kind).setdefault(digest, []).append(entry.name)
        self.misses[kind] = self.misses.get(kind, 0) + 1
        return digest

    def stored(self, kind: str, key: str) -> Path | None:
        """The sound entry for `key`, if there is one (a damaged one is dropped)."""
        folder = self.root / "products" / kind
        names = self._listing(kind).get(key, [])
        for name in sorted(names):
            entry = folder / name
            try:
                sound = name == f"{key}-{self._entry_digest(kind, entry)}"
            except FileNotFoundError:  # removed since the folder was listed
                sound = False
            if sound:
                self.hits[kind] = self.hits.get(kind, 0) + 1
                return entry
            entry.unlink(missing_ok=True)
            names.remove(name)
        return None

    def _listing(self, kind: str) -> dict[str, list[str]]:
        if kind not in self._listed:
            listing: dict[str, list[str]] = {}
            try:
                with os.scandir(self.root / "products" / kind) as entries:
                    for entry in entries:
                        key, dash, _ = entry.name.rpartition("-")
                        if dash and not entry.name.startswith("."):
                            listing.setdefault(key, []).append(entry.name)
            except FileNotFoundError:
                pass
            self._listed[kind] = listing
        return self._listed[kind]

    def product(self, kind: str, key: str, make: Callable[[], bytes]) -> bytes:
        return self.product_path(kind, key, make).read_bytes()

    # ------------------------------------------------------------------ datasets

    def dataset(
        self,
        registered_hash: str,
        extras_key: str,
        make: Callable[[], tuple[dict[str, Any], dict[str, bytes]]],
        scheme: HashScheme = LEGACY_SCHEME,
    ) -> dict[str, bytes]:
        """The files of the dataset registered as `registered_hash` (`item/name` → bytes), and
        its hashed content in canonical bytes as `dataset.json` (its sha256 is that hash).

        `make()` returns the dataset's content (whose canonical JSON under the registration's
        hash `scheme` hashes to the registered hash) and every file to publish; files rendered
        on demand beyond the hashed content (`extras_key` names their renderer) are checked
        against the digests stored beside.
        """
        folder = self.root / "datasets" / registered_hash
        found = self._read_dataset(folder, registered_hash, extras_key)
        if found is None:
            if registered_hash in self._unmade:
                raise self._unmade[registered_hash]
            # Two builds on one machine needing the same absent dataset (two terminals, CI's
            # test workers) would each spend its generation; the second waits for the first
            # and reads what it wrote. One lock per dataset, so a parallel build's workers,
            # each on its own workload, never wait for one another.
            with _dataset_lock(folder):
                found = self._read_dataset(folder, registered_hash, extras_key)
                if found is None:
                    try:
                        return self._make_dataset(folder, registered_hash, extras_key, make, scheme)
                    except Exception as failed:
                        self._unmade[registered_hash] = failed
                        raise
        self.hits["dataset"] = self.hits.get("dataset", 0) + 1
        return found

    def holds_dataset(self, registered_hash: str, extras_key: str) -> bool:
        """Whether an entry for the dataset is in place, its extra files made by `extras_key`'s
        renderer: a look, not a check. `dataset` checks every byte of it when it reads it, and
        remakes it if it is damaged."""
        extras = self.root / "datasets" / registered_hash / "extras.json"
        try:
            return bool(json.loads(extras.read_text(encoding="utf-8")).get("key") == extras_key)
        except (OSError, ValueError, AttributeError):
            return False

    def _make_dataset(
        self,
        folder: Path,
        registered_hash: str,
        extras_key: str,
        make: Callable[[], tuple[dict[str, Any], dict[str, bytes]]],
        scheme: HashScheme,
    ) -> dict[str, bytes]:
        shutil.rmtree(folder, ignore_errors=True)
        content, files = make()
        raw = canonical_json(content, scheme).encode("utf-8")
        if sha256_bytes(raw) != registered_hash:
            # Not the registered dataset: publish nothing from it and cache nothing.
            raise ValueError(f"dataset content does not hash to {registered_hash[:12]}…")
        hashed = _hashed_files(content)
        extras = {rel: sha256_bytes(data) for rel, data in files.items() if rel not in hashed}
        staging = Path(tempfile.mkdtemp(prefix=".dataset-", dir=_mkdir(folder.parent)))
        _atomic(staging / "content.json", raw)
        for rel, data in files.items():
            write_plain(staging / "files" / rel, data)
        _atomic(
            staging / "extras.json", canonical_json({"key": extras_key, "files": extras}).encode()
        )
        try:
            staging.rename(folder)
        except OSError:  # another build got there first; ours is the same content
            shutil.rmtree(staging, ignore_errors=True)
        self.misses["dataset"] = self.misses.get("dataset", 0) + 1
        return {**files, "dataset.json": raw}

    def _read_dataset(self, folder: Path, registered: str, extras_key: str):
        try:
            raw = (folder / "content.json").read_bytes()
            extras = json.loads((folder / "extras.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if sha256_bytes(raw) != registered or extras.get("key") != extras_key:
            return None
        expected = {**_hashed_files(json.loads(raw)), **extras.get("files", {})}
        files = {}
        for rel, digest in expected.items():
            try:
                data = (folder / "files" / rel).read_bytes()
            except OSError:
                return None
            if sha256_bytes(data) != digest:
                return None
            files[rel] = data
        return {**files, "dataset.json": raw}


def _hashed_files(content: Mapping[str, Any]) -> dict[str, str]:
    return {
        f"{item['id']}/{name}": digest
        for item in content.get("items", [])
        for name, digest in item.get("files", {}).items()
    }


@contextlib.contextmanager
def _dataset_lock(folder: Path) -> Iterator[None]:
    """An exclusive advisory lock on one dataset's cache entry, released by the kernel when the
    process ends (even on kill -9), so a crashed build never blocks the next."""
    path = _mkdir(folder.parent / ".locks") / folder.name
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _atomic(path: Path, data: bytes) -> None:
    # No fsync: a cache entry lost in a crash is a miss, and a torn one fails its digest.
    _mkdir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


def key_of(*parts: Any) -> str:
    return hashlib.sha256(canonical_json(list(parts)).encode("utf-8")).hexdigest()


def map_cached(
    fn: Callable[[J], T], jobs: Sequence[J], cache: BuildCache, *, fork: bool = True
) -> list[T]:
    """`forked.map_forked` for jobs that use `cache`: what each worker did to it (hits,
    misses, new input digests) is counted and remembered here, as if the jobs had run here.
    `fork=False` runs them in this process (jobs too small to be worth a worker)."""
    if not fork or forked.workers(len(jobs)) <= 1:
        return [fn(job) for job in jobs]  # in this process: the jobs count themselves
    cache.read_product_checks()

    def job(each: J) -> tuple[T, dict[str, int], dict[str, int], dict[str, list[Any]]]:
        hits, misses = dict(cache.hits), dict(cache.misses)
        cache.added.clear()
        result = fn(each)
        return result, _grown(cache.hits, hits), _grown(cache.misses, misses), dict(cache.added)

    results = []
    for result, hits, misses, digests in forked.map_forked(job, jobs):
        cache.absorb(hits, misses, digests)
        results.append(result)
    return results


def _grown(now: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {kind: n - before.get(kind, 0) for kind, n in now.items() if n != before.get(kind, 0)}
