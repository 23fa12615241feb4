"""The evidence bundle is streamed to its file (one member in memory at a time), and a file that
changes while it is written leaves no bundle behind."""

from __future__ import annotations

import hashlib
import shutil
import tarfile
from pathlib import Path

import pytest

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import HashingFile
from ledgerrate.publish import bundle
from ledgerrate.publish.bundle import write_bundle

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def edition(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "editions", tmp_path / "editions")
    return tmp_path / "editions" / "2026-11"


def test_the_bundle_is_named_by_its_bytes_and_holds_every_file_once(
    edition: Path, tmp_path: Path
) -> None:
    made = write_bundle(edition, tmp_path / "out")
    assert made.name.endswith(f"-{hashlib.sha256(made.read_bytes()).hexdigest()}.tar.gz")
    with tarfile.open(made) as tar:
        names = tar.getnames()
        sums = tar.extractfile("2026-11/SHA256SUMS").read().decode()  # type: ignore[union-attr]
        log = "2026-11/runs/triage.ap-inbox.v1/reference/single-shot.jsonl"
        inside = tar.extractfile(log).read()  # type: ignore[union-attr]
    assert len(names) == len(set(names)) and log in names
    assert inside == (edition / log.split("/", 1)[1]).read_bytes()
    assert f"{hashlib.sha256(inside).hexdigest()}  {log.split('/', 1)[1]}" in sums
    assert write_bundle(edition, tmp_path / "again").name == made.name  # same bytes again
    assert [p.name for p in (tmp_path / "out").iterdir()] == [made.name]  # no temporary left


def test_a_file_changed_between_its_two_reads_leaves_no_bundle(
    edition: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: set[str] = set()
    real = bundle._read

    def read(source: Path | bytes) -> bytes:
        data = real(source)
        if isinstance(source, Path) and source.name == "edition.yaml":
            if source in seen:  # the second read, for the tar: as if edited meanwhile
                return data + b"# edited\n"
            seen.add(source)
        return data

    monkeypatch.setattr(bundle, "_read", read)
    with pytest.raises(UsageProblem, match="changed while its bundle was written"):
        write_bundle(edition, tmp_path / "out")
    assert list((tmp_path / "out").iterdir()) == []


def test_a_hashing_file_is_in_place_only_once_committed(tmp_path: Path) -> None:
    with HashingFile(tmp_path, "x") as handle:
        handle.write(b"abc")
    assert list(tmp_path.iterdir()) == []  # never committed: gone
    with HashingFile(tmp_path, "x") as handle:
        handle.write(b"ab")
        handle.write(b"c")
        handle.commit(tmp_path / handle.sha256())
    assert [p.name for p in tmp_path.iterdir()] == [hashlib.sha256(b"abc").hexdigest()]
