"""The standalone verifier, published on the site (`data/verifier/`) with the sha256 of each of
its files, so that a reader can check a site without trusting `ledgerrate verify`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ledgerrate.hashing import sha256_bytes
from ledgerrate.publish.cache import write_plain

SOURCE = Path(__file__).resolve().parent.parent / "site" / "verifier"
FILES = ("verify_standalone.py", "standalone_figures.py", "requirements.txt")
FOLDER = "data/verifier"


@dataclass(frozen=True)
class VerifierFile:
    name: str
    size: int
    sha256: str


def verifier_files(source: Path = SOURCE) -> list[VerifierFile]:
    """The verifier's files as they will be published (those that exist)."""
    files = []
    for name in FILES:
        path = source / name
        if path.is_file():
            data = path.read_bytes()
            files.append(VerifierFile(name, len(data), sha256_bytes(data)))
    return files


def publish_verifier(docs: Path, source: Path = SOURCE) -> list[VerifierFile]:
    """Copy the verifier into the site; returns what the data index lists."""
    for name in FILES:
        if (source / name).is_file():
            write_plain(docs / FOLDER / name, (source / name).read_bytes())
    return verifier_files(source)
