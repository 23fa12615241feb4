"""Write an edition's evidence bundle: one deterministic, content-addressed .tar.gz holding every
file that decides a figure, its SHA256SUMS and an in-toto statement (read by `verify`).

Identical content gives identical bytes (sorted entries, zero timestamps, fixed owners and
permissions, gzip without a name or time), so the sha256 in the file name is a stable address.
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path
from typing import Protocol

from ledgerrate import __version__
from ledgerrate.core import layout, seal
from ledgerrate.core.bundle_format import INCLUDED_DIRS, INCLUDED_TOP, STATEMENT, SUMS
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.io import HashingFile, load_model
from ledgerrate.core.layout import EditionPaths
from ledgerrate.schema import Registration


class Sink(Protocol):
    """Where a bundle is streamed: a file, or a hashing one (`io.HashingFile`)."""

    def write(self, data: bytes, /) -> object: ...
    def flush(self) -> object: ...


def index_lines(root: Path) -> bytes:
    """This edition's lines of the index beside it, verbatim (other editions' lines stay out,
    so another edition's publication never changes this bundle's name)."""
    lines = seal.for_edition(seal.read_index(EditionPaths(root).index), root.name)
    return b"".join(line.raw + b"\n" for line in lines)


def _sources(root: Path) -> dict[str, Path | bytes]:
    """Each member's name and where its bytes are: a file of the edition, or made here."""
    sources: dict[str, Path | bytes] = {}
    for name in INCLUDED_TOP:
        if (root / name).is_file():
            sources[name] = root / name
    if index := index_lines(root):
        sources[layout.INDEX_NAME] = index
    for folder in INCLUDED_DIRS:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and not path.is_symlink() and not path.name.startswith("."):
                sources[path.relative_to(root).as_posix()] = path
    return sources


def _read(source: Path | bytes) -> bytes:
    return source if isinstance(source, bytes) else source.read_bytes()


def statement(edition: str, digests: dict[str, str], registration: Registration | None) -> dict:
    """An in-toto Statement listing every file as a subject."""
    return {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": name, "digest": {"sha256": d}} for name, d in sorted(digests.items())],
        "predicateType": "urn:ledgerrate:evidence-bundle:v1",
        "predicate": {
            "edition": edition,
            "registered_at": registration.registered_at.isoformat() if registration else None,
            "toolchain": f"ledgerrate {__version__}",
            "verify": "ledgerrate verify <this bundle>",
        },
    }


def stream_bundle(root: Path, out: Sink) -> None:
    """Write the bundle's bytes to `out`, holding one member at a time: an edition's logs are
    hundreds of MB at 200 models. Every file is read twice (for SHA256SUMS, which comes first,
    then for the tar) and must be the same both times."""
    edition = root.name
    sources = _sources(root)
    if layout.REGISTRATION not in sources:
        raise UsageProblem(f"{root}: not registered; a bundle needs {layout.REGISTRATION}")
    digests = {name: sha256_bytes(_read(source)) for name, source in sources.items()}
    registration = load_model(Registration, EditionPaths(root).registration)
    sources[SUMS] = "".join(f"{d}  {n}\n" for n, d in sorted(digests.items())).encode()
    sources[STATEMENT] = (
        json.dumps(statement(edition, digests, registration), indent=2, sort_keys=True) + "\n"
    ).encode()
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9) as packed,
        tarfile.open(fileobj=packed, mode="w", format=tarfile.GNU_FORMAT) as tar,
    ):
        for name in sorted(sources):
            data = _read(sources[name])
            if name in digests and sha256_bytes(data) != digests[name]:
                raise UsageProblem(
                    f"{root / name}: changed while its bundle was written; build again"
                )
            info = tarfile.TarInfo(f"{edition}/{name}")
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))


def write_bundle(edition_dir: Path, out_dir: Path) -> Path:
    """The bundle as `out_dir/ledgerrate-evidence-<edition>-<sha256>.tar.gz`."""
    root = Path(edition_dir)
    with HashingFile.beside(out_dir / f"ledgerrate-evidence-{root.name}.tar.gz") as handle:
        stream_bundle(root, handle)
        target = out_dir / f"ledgerrate-evidence-{root.name}-{handle.sha256()}.tar.gz"
        handle.commit(target)
    return target
