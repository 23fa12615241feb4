"""The standalone verifier, published on the site (`data/verifier/`) with the sha256 of each of
its files, so that a reader can check a site without trusting `ledgerrate verify`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ledgerrate.core.hashing import sha256_bytes
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


def install_commands(files: list[VerifierFile]) -> list[str]:
    """The data index's commands to fetch, check, install and run the verifier: its files from
    the site, each held to the sha256 the page lists before anything is installed. `SITE` must
    end in `/`: the verifier resolves every path against it."""
    names = " ".join(f.name for f in files)
    return [
        "SITE=https://example.org/ledgerrate/   # this site's address, ending in /",
        "mkdir ledgerrate-verifier && cd ledgerrate-verifier",
        f'for f in {names}; do curl -fsSLO "${{SITE}}{FOLDER}/$f"; done',
        "cat > SHA256SUMS <<'EOF'",
        *(f"{f.sha256}  {f.name}" for f in files),
        "EOF",
        "sha256sum -c SHA256SUMS && python3 -m venv venv && "
        "venv/bin/pip install -r requirements.txt && "
        'venv/bin/python verify_standalone.py "$SITE"',
    ]
