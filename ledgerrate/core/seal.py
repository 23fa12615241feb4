"""Publication digests and the errata chain, computed the same way by `build` and by `verify`.

An edition's publication digest starts at the sha256 of its `published.json` (which lists the
sha256 of every file that decides a figure) and each erratum, oldest first, extends it:

    d0 = sha256("ledgerrate-publication-v1\\n" + sha256(published.json))
    dk = sha256(d(k-1) + "\\n" + sha256(canonical JSON of erratum k))

so every erratum seals the state before it, and a digest a reader noted at any point (from the
site, an announcement) stays checkable after later corrections. `build` anchors each state
outside the edition folder, as a line of `editions/publications.jsonl`; that index is itself a
chain (each line names the sha256 of the line before), so it too can only grow.

An erratum's own hash covers its text, not the files it names, so each line also seals their
bytes (`files`: sha256 and size of every file a sealed erratum names): a named file is held to
its latest sealed bytes, never to "anything later". `results.json` is sealed once, by
`published.json`, and never rewritten; an erratum naming it corrects the figures, which live
beside it in `results-current.json` (`sealed_name`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ledgerrate.core.hashing import sha256_bytes, sha256_file, sha256_json, sha256_text
from ledgerrate.core.io import FileProblem, append_jsonl, load_model, parse_model, read_text
from ledgerrate.core.layout import RESULTS, RESULTS_CURRENT, EditionPaths
from ledgerrate.schema import ErrataFile, Erratum, PublicationEntry, SealedErratum, SealedFile

DOMAIN = "ledgerrate-publication-v1"
MAX_INDEX_BYTES = 16_000_000


@dataclass(frozen=True)
class IndexLine:
    number: int
    raw: bytes
    entry: PublicationEntry


def erratum_digest(entry: Erratum) -> str:
    return sha256_json(entry.model_dump(mode="json"))


def chain(published_sha: str, errata: Sequence[Erratum]) -> list[str]:
    """Publication digests d0 … dn: before any erratum, then after each one."""
    heads = [sha256_text(f"{DOMAIN}\n{published_sha}")]
    for entry in errata:
        heads.append(sha256_text(f"{heads[-1]}\n{erratum_digest(entry)}"))
    return heads


def published_sha(edition_dir: Path) -> str | None:
    path = EditionPaths(Path(edition_dir)).published
    return sha256_file(path) if path.is_file() else None


def read_index(path: Path) -> list[IndexLine]:
    """Every line of an index (an absent index has none); a bad line raises FileProblem."""
    if not path.exists():
        return []
    text = read_text(path, MAX_INDEX_BYTES)
    lines = []
    for number, raw in enumerate(text.encode("utf-8").split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise FileProblem(
                path, [f"{path}: line {number}: not valid JSON ({exc.msg}); restore the line"]
            ) from None
        entry = parse_model(PublicationEntry, data, path, prefix=f"line {number}: ")
        lines.append(IndexLine(number, raw, entry))
    return lines


def chain_problems(lines: Sequence[IndexLine]) -> list[tuple[int, str]]:
    """(line number, problem) where a line does not name the sha256 of the line before it."""
    problems = []
    previous: bytes | None = None
    for line in lines:
        expected = sha256_bytes(previous) if previous is not None else None
        if line.entry.previous != expected:
            problems.append(
                (
                    line.number,
                    f"previous is {line.entry.previous}, but the line before hashes to "
                    f"{expected}: a line was removed, edited or inserted",
                )
            )
        previous = line.raw
    return problems


def for_edition(lines: Sequence[IndexLine], edition: str) -> list[IndexLine]:
    return [line for line in lines if line.entry.edition == edition]


def sealed_problems(sealed: PublicationEntry, errata: Sequence[Erratum]) -> list[tuple[str, str]]:
    """(erratum id, problem) for every sealed erratum that is not still there, unchanged and in
    its place: errata are append-only."""
    where = {entry.id: index for index, entry in enumerate(errata)}
    problems = []
    for position, seal in enumerate(sealed.errata):
        if seal.id not in where:
            problems.append((seal.id, "removed after it was sealed"))
        elif where[seal.id] != position:
            problems.append(
                (seal.id, f"moved from entry {position + 1} to {where[seal.id] + 1} after sealing")
            )
        elif erratum_digest(errata[position]) != seal.sha256:
            problems.append(
                (
                    seal.id,
                    f"edited after it was sealed (sealed sha256 {seal.sha256[:12]}…, "
                    f"now {erratum_digest(errata[position])[:12]}…)",
                )
            )
    return problems


def sealed_name(name: str) -> str:
    """The file whose bytes an erratum naming `name` seals: an erratum that names the sealed
    results.json corrects the figures, and the corrected figures are results-current.json."""
    return RESULTS_CURRENT if name == RESULTS else name


def named_files(errata: Sequence[Erratum]) -> list[str]:
    """Every file the errata name, as sealed (`sealed_name`), sorted."""
    return sorted({sealed_name(name) for entry in errata for name in entry.files})


def seal_file(path: Path) -> SealedFile | None:
    """The sha256 and size of a file's bytes; None when it does not exist."""
    if not path.is_file():
        return None
    data = path.read_bytes()
    return SealedFile(sha256=sha256_bytes(data), size=len(data))


def held_digest(
    path: Path, sealed: SealedFile, name: str, whole: Callable[[Path], str] = sha256_file
) -> str:
    """The digest to compare with a sealed file's: a log (`.jsonl`) is append-only, so only the
    bytes it had when sealed count; any other file counts whole."""
    return published_digest(path, sealed.size, name, whole)


def entry_for(
    edition: str,
    published: str,
    errata: Sequence[Erratum],
    lines: Sequence[IndexLine],
    now: dt.datetime,
    files: dict[str, SealedFile] | None = None,
) -> PublicationEntry:
    return PublicationEntry(
        edition=edition,
        recorded_at=now,
        published_json=published,
        errata=[SealedErratum(id=e.id, sha256=erratum_digest(e)) for e in errata],
        digest=chain(published, errata)[-1],
        files=files,
        previous=sha256_bytes(lines[-1].raw) if lines else None,
    )


def append_entry(path: Path, entry: PublicationEntry) -> None:
    append_jsonl(path, entry)


# --------------------------------------------------------------------------- sealed files


def edition_files(root: Path) -> list[str]:
    """Every regular file of the edition, as sorted POSIX paths relative to it: no symbolic link
    (nor a folder it names) and no dot-file."""
    # os.walk on strings: pathlib's rglob cost half a second per 215-model edition (6,000 logs).
    found = []
    base = os.path.join(os.path.abspath(root), "")
    for folder, _, files in os.walk(base):
        rel = folder[len(base) :].replace(os.sep, "/")
        for name in files:
            full = os.path.join(folder, name)
            if name.startswith(".") or os.path.islink(full) or not os.path.isfile(full):
                continue
            found.append(f"{rel}/{name}" if rel else name)
    return sorted(found)


def published_digest(
    path: Path, size: int | None, name: str, whole: Callable[[Path], str] = sha256_file
) -> str:
    """The digest to compare with published.json: for append-only logs, of the published prefix
    (later sittings and reproductions may be appended, never edited in place). `whole`: the
    sha256 of a whole file (`build` passes its own, which re-reads a file only when its stat
    changed)."""
    if not path.is_file():
        return "missing"
    if name.endswith(".jsonl") and size is not None and path.stat().st_size != size:
        with path.open("rb") as handle:
            return sha256_bytes(handle.read(size))
    return whole(path)


def errata_files(root: Path) -> set[str]:
    """Every file the edition's errata name, as sealed (`sealed_name`)."""
    path = EditionPaths(root).errata
    if not path.exists():
        return set()
    return set(named_files(load_model(ErrataFile, path).entries))
