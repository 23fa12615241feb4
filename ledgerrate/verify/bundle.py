"""Evidence bundles: one content-addressed, deterministic archive per edition.

Identical content gives identical bytes (sorted entries, zero timestamps, fixed owners and
permissions, gzip without a name or time), so the sha256 in the file name is a stable address
that anyone can recompute. Opening a bundle is hostile-input handling: members are extracted
with tarfile's `data` filter, which refuses absolute paths, `..`, links out and devices.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import tarfile
from pathlib import Path

from ledgerrate import __version__, seal
from ledgerrate.errors import UsageProblem
from ledgerrate.hashing import sha256_bytes
from ledgerrate.io import atomic_write_bytes, load_model
from ledgerrate.layout import EditionPaths
from ledgerrate.schema import Registration

BUNDLE_NAME = re.compile(
    r"^ledgerrate-evidence-(?P<edition>[A-Za-z0-9._-]+)-(?P<sha>[0-9a-f]{64})\.tar\.gz$"
)
INCLUDED_TOP = (
    "edition.yaml",
    "pricing.yaml",
    "registration.json",
    "seeds.json",
    "seeds.escrow.age",
    "seeds-lost.json",
    "results.json",
    "errata.yaml",
    "published.json",
)
INCLUDED_DIRS = ("datasets", "runs", "grades", "spotchecks", "reproductions")
STATEMENT = "statement.intoto.json"
SUMS = "SHA256SUMS"


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


def open_bundle(bundle: Path, workdir: Path) -> tuple[EditionPaths, list[str]]:
    """Extract a bundle safely; return the edition folder and any problems with its envelope."""
    problems: list[str] = []
    data = bundle.read_bytes()
    match = BUNDLE_NAME.match(bundle.name)
    if match is None:
        problems.append(
            f"{bundle.name}: name does not carry a sha256 "
            "(ledgerrate-evidence-<edition>-<sha256>.tar.gz)"
        )
    elif match["sha"] != sha256_bytes(data):
        problems.append(
            f"{bundle.name}: content sha256 is {sha256_bytes(data)}, not the one in its name"
        )
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tops = {m.name.split("/", 1)[0] for m in tar.getmembers()}
            if len(tops) != 1:
                raise UsageProblem(f"{bundle}: a bundle holds exactly one edition folder")
            tar.extractall(workdir, filter="data")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise UsageProblem(f"{bundle}: not a readable evidence bundle ({exc})") from None
    return EditionPaths(workdir / tops.pop()), problems
