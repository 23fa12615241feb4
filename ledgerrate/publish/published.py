"""Immutable editions: what was published stays published, unless an erratum says otherwise.

At first publication `build` writes the edition's `results.json` and `published.json` (the
sha256 and size of every file that decides a figure). Every later build checks them: a file that
changed without an erratum naming it stops the build with a message saying exactly that. Raw
logs are append-only, so they may grow (a new sitting, a reproduction) as long as the published
bytes are untouched; what the growth changes in the figures is caught by `results.json`.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ledgerrate.errors import UsageProblem
from ledgerrate.hashing import sha256_file
from ledgerrate.io import load_model, write_json
from ledgerrate.layout import EditionPaths
from ledgerrate.schema import EditionResults, ErrataFile, PublishedEdition
from ledgerrate.verify.integrity import edition_files, errata_files, published_digest

# Not covered: the record itself, corrections (errata are how changes are announced), seeds
# (released at the next edition by design) and reproductions (shown apart, never published
# figures).
UNCOVERED = ("published.json", "errata.yaml", "seeds.json")
UNCOVERED_DIRS = ("reproductions/",)


def covered_files(root: Path) -> list[str]:
    return [
        name
        for name in edition_files(root)
        if name not in UNCOVERED and not name.startswith(UNCOVERED_DIRS)
    ]


def record_publication(root: Path, results: EditionResults, now: dt.datetime) -> PublishedEdition:
    paths = EditionPaths(root)
    write_json(root / "results.json", results)
    files = covered_files(root)
    record = PublishedEdition(
        edition=paths.id,
        published_at=now,
        files={name: sha256_file(root / name) for name in files},
        sizes={name: (root / name).stat().st_size for name in files},
        errata_seen=sorted(_errata_ids(root)),
    )
    write_json(paths.published, record)
    return record


def _errata_ids(root: Path) -> list[str]:
    path = root / "errata.yaml"
    if not path.exists():
        return []
    return [e.id for e in load_model(ErrataFile, path).entries]


def check_publication(root: Path, results: EditionResults) -> list[str]:
    """Problems that must stop the build; updates results.json when an erratum covers it."""
    paths = EditionPaths(root)
    published = load_model(PublishedEdition, paths.published)
    covered = errata_files(root)
    problems = []
    for name, digest in sorted(published.files.items()):
        if name == "results.json":
            continue
        found = published_digest(root / name, published.sizes.get(name), name)
        if found != digest and name not in covered:
            problems.append(
                f"edition {paths.id}: {name} changed after publication and no erratum in "
                f"errata.yaml names it; restore it, or add an erratum listing '{name}' under "
                "`files` with the figures it changes"
            )
    for name in covered_files(root):
        if name not in published.files and name != "results.json":
            is_log = name.endswith(".jsonl")
            if not is_log and name not in covered:
                problems.append(
                    f"edition {paths.id}: {name} was added after publication and no erratum "
                    "names it"
                )
    stored = load_model(EditionResults, root / "results.json")
    if stored != results:
        if "results.json" in covered:
            write_json(root / "results.json", results)
        else:
            problems.append(
                f"edition {paths.id}: its figures recomputed from the logs differ from the "
                "published results.json (a log, grade or price changed); publish the "
                "correction as an erratum listing 'results.json' and the changed figures"
            )
    return problems


def ensure_published(root: Path, results: EditionResults, now: dt.datetime | None = None) -> None:
    """First build: record the publication. Later builds: refuse silent changes."""
    if not (root / "published.json").exists():
        record_publication(root, results, now or dt.datetime.now(dt.UTC))
        return
    problems = check_publication(root, results)
    if problems:
        raise UsageProblem(*problems)
