"""Frozen code says it is frozen: every file hashed into a sealed registration is listed in the
`FROZEN.txt` of its folder, with how it is hashed, which workload versions hash it and, for a
workload module, which grader revision it is (ARCHITECTURE.md §3). The list is exactly the
hashed files: a file that becomes hashed without the mark fails, and so does a marked file no
longer hashed.

On a failure the expected manifest of each folder is printed, ready to paste.
"""

from __future__ import annotations

import importlib
import inspect
import re
import types
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "ledgerrate"
MANIFEST = "FROZEN.txt"
HEADER = """\
# Frozen files: hashed into sealed registrations (ARCHITECTURE.md §3). Never edit, reformat or
# re-import their text, nor rename a file another frozen file imports: a changed byte changes a
# sealed hash, and the editions sealed with it no longer verify. A change is a new workload
# version or grader revision in a new file. tests/core/test_frozen.py holds this list to exactly
# the files the workloads hash ("whole": the file; "part": the functions a WORKLOAD names).
# file  hashed  by  [| what it is]
"""
_ID = re.compile(r"[a-z]+\.[a-z0-9-]+\.v[0-9]+")
_REVISION = re.compile(rf"^({_ID.pattern}) grader revision ([0-9]+)( \(current\))?$")


@dataclass(frozen=True)
class Entry:
    """One file's line: how it is hashed, by which workload versions, and, for a module that
    defines a `WORKLOAD`, which grader revision of which version it is."""

    kind: str  # "whole" or "part"
    by: frozenset[str]
    revision: tuple[str, int, bool] | None = None  # (workload id, revision, is current)

    def line(self, name: str) -> str:
        text = f"{name}  {self.kind}  {', '.join(sorted(self.by))}"
        if self.revision is not None:
            workload, number, current = self.revision
            text += f"  | {workload} grader revision {number}" + (" (current)" if current else "")
        return text


def hashed_files() -> dict[str, Entry]:
    """Every file the catalogue's workloads and their superseded revisions hash, by path
    relative to the repository: the sources `Workload.workload_hash_for` covers."""
    from ledgerrate.workloads.catalogue import WORKLOADS

    whole: dict[str, set[str]] = defaultdict(set)
    part: dict[str, set[str]] = defaultdict(set)
    revisions: dict[tuple[str, str], tuple[int, bool]] = {}
    for workload in WORKLOADS:
        chain = (*workload.superseded, workload)
        for number, revision in enumerate(chain, 1):
            revisions[(revision.id, revision.grader_hash)] = (number, number == len(chain))
            for source in (
                revision.grade,
                revision.generate,
                revision.prompt,
                *revision.grader_sources,
                *revision.generator_sources,
                *revision.prompt_sources,
            ):
                path = Path(inspect.getsourcefile(source) or "").resolve()
                name = path.relative_to(REPO).as_posix()
                (whole if isinstance(source, types.ModuleType) else part)[name].add(revision.id)
    entries = {}
    for name in sorted(whole.keys() | part.keys()):
        module = importlib.import_module(name.removesuffix(".py").replace("/", "."))
        defined = getattr(module, "WORKLOAD", None)
        revision = None
        if defined is not None:
            number, current = revisions[(defined.id, defined.grader_hash)]
            revision = (defined.id, number, current)
        entries[name] = Entry(
            kind="whole" if name in whole else "part",
            by=frozenset(whole.get(name, set()) | part.get(name, set())),
            revision=revision,
        )
    return entries


def parse(folder: Path, text: str) -> dict[str, Entry]:
    """The entries of one `FROZEN.txt`, by path relative to the repository."""
    entries = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip() if raw.lstrip().startswith("#") else raw.strip()
        if not line:
            continue
        listed, _, what = line.partition("|")
        name, kind, *by = listed.replace(",", " ").split()
        where = f"{folder.relative_to(REPO).as_posix()}/{MANIFEST}:{number}"
        assert kind in ("whole", "part"), f"{where}: 'whole' or 'part', not {kind!r}"
        assert all(_ID.fullmatch(w) for w in by) and by, f"{where}: no workload ids after {kind}"
        revision = None
        if what.strip():
            found = _REVISION.match(what.strip())
            assert found, f"{where}: '| <workload> grader revision <n> [(current)]', not {what!r}"
            revision = (found.group(1), int(found.group(2)), found.group(3) is not None)
        entries[(folder / name).relative_to(REPO).as_posix()] = Entry(kind, frozenset(by), revision)
    return entries


def marked_files() -> dict[str, Entry]:
    entries: dict[str, Entry] = {}
    for manifest in sorted(PACKAGE.rglob(MANIFEST)):
        entries |= parse(manifest.parent, manifest.read_text(encoding="utf-8"))
    return entries


def problems(marked: dict[str, Entry], hashed: dict[str, Entry]) -> list[str]:
    """One line per file hashed but not marked, marked but not hashed, or marked wrongly."""
    lines = []
    for name in sorted(hashed.keys() - marked.keys()):
        lines.append(f"{name}: hashed into a sealed registration but in no {MANIFEST}")
    for name in sorted(marked.keys() - hashed.keys()):
        lines.append(f"{name}: listed in {MANIFEST} but no workload hashes it")
    for name in sorted(marked.keys() & hashed.keys()):
        if marked[name] != hashed[name]:
            want = hashed[name].line(Path(name).name)
            lines.append(f"{name}: {MANIFEST} says {marked[name].line('')!r}; is {want!r}")
    return lines


def expected_manifests(hashed: dict[str, Entry]) -> dict[str, str]:
    """Each folder's `FROZEN.txt` as it should read."""
    folders: dict[str, list[str]] = defaultdict(list)
    for name, entry in sorted(hashed.items()):
        path = Path(name)
        folders[path.parent.as_posix()].append(entry.line(path.name))
    width = {f: max(len(line.split("  ")[0]) for line in lines) for f, lines in folders.items()}
    out = {}
    for folder, lines in folders.items():
        aligned = []
        for line in lines:
            name, kind, rest = line.split("  ", 2)
            aligned.append(f"{name.ljust(width[folder])}  {kind:<5}  {rest}")
        out[f"{folder}/{MANIFEST}"] = HEADER + "\n".join(aligned) + "\n"
    return out


def test_the_marked_files_are_exactly_the_hashed_files() -> None:
    hashed = hashed_files()
    assert len(hashed) > 30, "the catalogue hashes fewer files than it did: is the scan broken?"
    found = problems(marked_files(), hashed)
    expected = "\n\n".join(f"--- {p}\n{t}" for p, t in expected_manifests(hashed).items())
    assert found == [], "\n".join(found) + "\n\nExpected manifests:\n" + expected


def test_each_manifest_reads_as_generated() -> None:
    """The files are kept in one layout (header, aligned columns), so a diff shows a change."""
    for path, text in expected_manifests(hashed_files()).items():
        assert (REPO / path).read_text(encoding="utf-8") == text, path


def test_no_manifest_stands_where_nothing_is_hashed() -> None:
    folders = {Path(name).parent for name in hashed_files()}
    for manifest in PACKAGE.rglob(MANIFEST):
        assert manifest.parent.relative_to(REPO) in folders, manifest


def test_revision_modules_are_named_by_their_revision() -> None:
    """`v<N>_revision<R>.py` is grader revision R of version N; a version with one revision is
    `v<N>.py`."""
    for name, entry in hashed_files().items():
        if entry.revision is None:
            continue
        workload, number, _ = entry.revision
        version = workload.rsplit(".v", 1)[1]
        stem = Path(name).stem
        assert stem in (f"v{version}_revision{number}", f"v{version}"), (name, entry.revision)
        if stem == f"v{version}":
            assert number == 1 and entry.revision[2], f"{name}: a later revision needs its number"


def test_a_file_hashed_without_the_mark_or_marked_unhashed_fails() -> None:
    sealed = Entry("whole", frozenset({"toy.add.v1"}))
    revision = Entry("whole", frozenset({"toy.add.v1"}), ("toy.add.v1", 2, True))
    hashed = {"ledgerrate/synth/a.py": sealed, "ledgerrate/workloads/toy/v1_revision2.py": revision}
    marked = {
        "ledgerrate/synth/old.py": sealed,
        "ledgerrate/workloads/toy/v1_revision2.py": Entry(
            "whole", frozenset({"toy.add.v1"}), ("toy.add.v1", 1, True)
        ),
    }
    assert problems(marked, hashed) == [
        "ledgerrate/synth/a.py: hashed into a sealed registration but in no FROZEN.txt",
        "ledgerrate/synth/old.py: listed in FROZEN.txt but no workload hashes it",
        "ledgerrate/workloads/toy/v1_revision2.py: FROZEN.txt says "
        "'  whole  toy.add.v1  | toy.add.v1 grader revision 1 (current)'; is "
        "'v1_revision2.py  whole  toy.add.v1  | toy.add.v1 grader revision 2 (current)'",
    ]


def test_a_manifest_line_parses() -> None:
    folder = PACKAGE / "workloads" / "toy"
    text = (
        HEADER
        + "v1_revision2.py  part   toy.add.v1, toy.add.v2"
        + "  | toy.add.v1 grader revision 2 (current)\n"
        + "helpers.py       whole  toy.add.v1\n"
    )
    assert parse(folder, text) == {
        "ledgerrate/workloads/toy/v1_revision2.py": Entry(
            "part", frozenset({"toy.add.v1", "toy.add.v2"}), ("toy.add.v1", 2, True)
        ),
        "ledgerrate/workloads/toy/helpers.py": Entry("whole", frozenset({"toy.add.v1"})),
    }
