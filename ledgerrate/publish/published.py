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
# (released at the next edition by design) or the statement that they are lost (made when the
# release fails, after publication), and reproductions (shown apart, never published figures).
UNCOVERED = ("published.json", "errata.yaml", "seeds.json", "seeds-lost.json")
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


def publication_problems(root: Path, results: EditionResults) -> list[str]:
    """Why this build must not publish `root` (empty when it may). Writes nothing."""
    paths = EditionPaths(root)
    if not paths.published.exists():
        return []
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
        if name not in published.files and not name.endswith(".jsonl") and name not in covered:
            problems.append(
                f"edition {paths.id}: {name} was added after publication and no erratum names it"
            )
    stored_path = root / "results.json"
    stored = load_model(EditionResults, stored_path) if stored_path.exists() else None
    if stored != results and "results.json" not in covered:
        problems.append(
            f"edition {paths.id}: its figures recomputed from the logs differ from the "
            "published results.json (a log, grade or price changed); publish the correction "
            "as an erratum listing 'results.json' and the figures it changes"
        )
    return problems


def record_after_build(root: Path, results: EditionResults, now: dt.datetime) -> None:
    """After a successful build: record a first publication, or write corrected figures that
    an erratum announced."""
    if not (root / "published.json").exists():
        record_publication(root, results, now)
        return
    stored_path = root / "results.json"
    if not stored_path.exists() or load_model(EditionResults, stored_path) != results:
        write_json(stored_path, results)


def ensure_published(root: Path, results: EditionResults, now: dt.datetime | None = None) -> None:
    """Check, then record: what `build` does around rendering, in one call (for tests/tools)."""
    problems = publication_problems(root, results)
    if problems:
        raise UsageProblem(*problems)
    record_after_build(root, results, now or dt.datetime.now(dt.UTC))
