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

from ledgerrate import __version__, seal
from ledgerrate.bundle_format import INCLUDED_DIRS, INCLUDED_TOP, STATEMENT, SUMS
from ledgerrate.errors import UsageProblem
from ledgerrate.hashing import sha256_bytes
from ledgerrate.io import atomic_write_bytes, load_model
from ledgerrate.schema import Registration


def index_lines(root: Path) -> bytes:
    """This edition's lines of the index beside it, verbatim (other editions' lines stay out,
    so another edition's publication never changes this bundle's name)."""
    lines = seal.for_edition(seal.read_index(root.parent / seal.INDEX_NAME), root.name)
    return b"".join(line.raw + b"\n" for line in lines)


def bundle_members(root: Path) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    for name in INCLUDED_TOP:
        if (root / name).is_file():
            members[name] = (root / name).read_bytes()
    if index := index_lines(root):
        members[seal.INDEX_NAME] = index
    for folder in INCLUDED_DIRS:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and not path.is_symlink() and not path.name.startswith("."):
                members[path.relative_to(root).as_posix()] = path.read_bytes()
    return members


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


def bundle_bytes(root: Path) -> bytes:
    edition = root.name
    members = bundle_members(root)
    if "registration.json" not in members:
        raise UsageProblem(f"{root}: not registered; a bundle needs registration.json")
    digests = {name: sha256_bytes(data) for name, data in members.items()}
    registration = load_model(Registration, root / "registration.json")
    members[SUMS] = "".join(f"{d}  {n}\n" for n, d in sorted(digests.items())).encode()
    members[STATEMENT] = (
        json.dumps(statement(edition, digests, registration), indent=2, sort_keys=True) + "\n"
    ).encode()
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name in sorted(members):
            data = members[name]
            info = tarfile.TarInfo(f"{edition}/{name}")
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    packed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=packed, mtime=0, compresslevel=9) as gz:
        gz.write(raw.getvalue())
    return packed.getvalue()


def write_bundle(edition_dir: Path, out_dir: Path) -> Path:
    data = bundle_bytes(Path(edition_dir))
    target = out_dir / f"ledgerrate-evidence-{Path(edition_dir).name}-{sha256_bytes(data)}.tar.gz"
    atomic_write_bytes(target, data)
    return target
