"""Where an edition's files live (ARCHITECTURE.md §4): the one place that spells an edition's
file and folder names. Paths only: nothing here reads or writes a file; the listings below
(`cell_log_files`, `spotcheck_flag_files`, …) read folder names, never file contents."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import ledgerrate.schema.manual as schema_manual

PRIVATE_ROOT_ENV = "LEDGERRATE_PRIVATE_DIR"

# Names relative to the edition folder. They are also the names the sealed documents record
# (published.json's `files`, the errata's `files`, publications.jsonl's sealed bytes), so they
# never change.
MANIFEST: Final = "edition.yaml"
PRICING: Final = "pricing.yaml"
REGISTRATION: Final = "registration.json"
SEEDS: Final = "seeds.json"
SEED_ESCROW: Final = "seeds.escrow.age"
SEEDS_LOST: Final = "seeds-lost.json"
SEED_RECIPIENTS: Final = "seed-recipients.txt"
# The prices and costs beside the price database (written by `register`, generate/price_check.py).
PRICE_CHECK: Final = "price-check.json"
ERRATA: Final = "errata.yaml"
PUBLISHED: Final = "published.json"
# The sealed figures, written once at first publication and never over.
RESULTS: Final = "results.json"
# The figures as corrected by errata, beside the sealed `results.json`.
RESULTS_CURRENT: Final = "results-current.json"
# The publication chain of every edition, one line per publication or erratum; it lives beside
# the edition folders (inside an evidence bundle, beside the edition's files).
INDEX_NAME: Final = "publications.jsonl"

DATASETS: Final = "datasets"
RUNS: Final = "runs"
GRADES: Final = "grades"
BODIES: Final = "bodies"
PROBES: Final = "probes"
REPRODUCTIONS: Final = "reproductions"
SPOTCHECKS: Final = "spotchecks"
INCIDENTS: Final = "incidents"
# The manual arm's recorded sittings (ARCHITECTURE.md §12): manual/<workload>/sitting-<n>.json.
MANUAL: Final = "manual"
# The released datasets' files, written once at `seeds release`: released/<workload>/<file> and
# the manifest listing each with its sha256 (ARCHITECTURE.md §4). Not sealed and not in the
# evidence bundle: `verify` regenerates every byte of them from the released seeds.
RELEASED: Final = "released"
RELEASED_MANIFEST: Final = "manifest.json"
MANUAL_SITTING_PREFIX: Final = "sitting-"
# The manual cell's model slug (owned by its schema) and mode: runs/<workload>/manual/by-hand.jsonl.
MANUAL_MODEL: Final = schema_manual.MANUAL_MODEL
BY_HAND: Final = "by-hand"

SPOTCHECK_FLAGS_SUFFIX: Final = ".flags.json"


@dataclass(frozen=True)
class EditionPaths:
    root: Path

    @property
    def id(self) -> str:
        return self.root.name

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST

    @property
    def pricing(self) -> Path:
        return self.root / PRICING

    @property
    def registration(self) -> Path:
        return self.root / REGISTRATION

    @property
    def seeds(self) -> Path:
        """Released seeds (published); absent while withheld."""
        return self.root / SEEDS

    @property
    def seed_escrow(self) -> Path:
        """The private seeds encrypted to the operators' keys at registration (committed)."""
        return self.root / SEED_ESCROW

    @property
    def seeds_lost(self) -> Path:
        """The sealed statement that the seeds can no longer be opened; absent unless lost."""
        return self.root / SEEDS_LOST

    @property
    def seed_recipients(self) -> Path:
        """Optional age recipients file (public keys) the edition's seeds are escrowed to."""
        return self.root / SEED_RECIPIENTS

    @property
    def price_check(self) -> Path:
        """The frozen prices beside the price database's, as `register` found them."""
        return self.root / PRICE_CHECK

    @property
    def errata(self) -> Path:
        return self.root / ERRATA

    @property
    def published(self) -> Path:
        return self.root / PUBLISHED

    @property
    def results(self) -> Path:
        """The figures sealed at first publication."""
        return self.root / RESULTS

    @property
    def results_current(self) -> Path:
        """The figures as corrected by errata; absent until an erratum corrects a figure."""
        return self.root / RESULTS_CURRENT

    @property
    def index(self) -> Path:
        """The publication chain beside the edition folder (`editions/publications.jsonl`)."""
        return self.root.parent / INDEX_NAME

    @property
    def bundled_index(self) -> Path:
        """The publication chain inside an evidence bundle, beside the edition's files."""
        return self.root / INDEX_NAME

    @property
    def datasets_dir(self) -> Path:
        return self.root / DATASETS

    def card(self, workload: str) -> Path:
        return self.datasets_dir / workload / "card.json"

    @property
    def runs_dir(self) -> Path:
        return self.root / RUNS

    def runs(self, workload: str, model: str, mode: str) -> Path:
        return self.runs_dir / workload / model / f"{mode}.jsonl"

    @property
    def grades_dir(self) -> Path:
        return self.root / GRADES

    def grades(self, workload: str, model: str, mode: str) -> Path:
        return self.grades_dir / workload / model / f"{mode}.jsonl"

    @property
    def bodies_dir(self) -> Path:
        """Long request strings stored once by sha256 and referenced from the run records."""
        return self.root / BODIES

    def body(self, digest: str) -> Path:
        return self.bodies_dir / f"{digest}.txt"

    @property
    def spotchecks_dir(self) -> Path:
        return self.root / SPOTCHECKS

    def spotcheck(self, workload: str) -> Path:
        return self.spotchecks_dir / f"{workload}.csv"

    def spotcheck_sample(self, workload: str) -> Path:
        return self.spotchecks_dir / f"{workload}.sample.json"

    def spotcheck_regrade(self, workload: str) -> Path:
        """The hand-regrade form of the cells the spot-check flagged."""
        return self.spotchecks_dir / f"{workload}.regrade.csv"

    def spotcheck_flags(self, workload: str) -> Path:
        return self.spotchecks_dir / f"{workload}{SPOTCHECK_FLAGS_SUFFIX}"

    def spotcheck_flag_files(self) -> dict[str, Path]:
        """Each workload's spot-check flags file, by workload (sorted by file name)."""
        found = sorted(self.spotchecks_dir.glob(f"*{SPOTCHECK_FLAGS_SUFFIX}"))
        return {path.name[: -len(SPOTCHECK_FLAGS_SUFFIX)]: path for path in found}

    @property
    def probes_dir(self) -> Path:
        return self.root / PROBES

    def probes(self, model: str) -> Path:
        """Tool probes of a model (infrastructure spend, outside every cell)."""
        return self.probes_dir / f"{model}.jsonl"

    @property
    def reproductions_dir(self) -> Path:
        return self.root / REPRODUCTIONS

    def reproductions(self, workload: str, model: str, mode: str) -> Path:
        return self.reproductions_dir / workload / model / f"{mode}.jsonl"

    @property
    def reproduction_grades_dir(self) -> Path:
        """Grades of reproductions, kept apart so they are never pooled with registered runs."""
        return self.reproductions_dir / GRADES

    def reproduction_grades(self, workload: str, model: str, mode: str) -> Path:
        return self.reproduction_grades_dir / workload / model / f"{mode}.jsonl"

    @property
    def incidents_dir(self) -> Path:
        return self.root / INCIDENTS

    @property
    def manual_dir(self) -> Path:
        return self.root / MANUAL

    def manual_sitting(self, workload: str, sitting: int) -> Path:
        """One recorded sitting of the manual arm of a workload (`manual import`)."""
        return self.manual_dir / workload / f"{MANUAL_SITTING_PREFIX}{sitting}.json"

    def manual_cells(self, workload: str) -> list[tuple[str, str]]:
        """[(model, mode)] of the workload's manual cell when it has run records, else []: the
        stages that walk the edition's models (grade, spot-checks) walk this cell too."""
        found = self.runs(workload, MANUAL_MODEL, BY_HAND).exists()
        return [(MANUAL_MODEL, BY_HAND)] if found else []

    def manual_sittings(self) -> dict[str, list[Path]]:
        """Every recorded manual sitting, by workload, in sitting order."""
        found: dict[str, list[tuple[int, Path]]] = {}
        for path in self.manual_dir.glob(f"*/{MANUAL_SITTING_PREFIX}*.json"):
            number = path.stem[len(MANUAL_SITTING_PREFIX) :]
            if number.isdigit():
                found.setdefault(path.parent.name, []).append((int(number), path))
        return {w: [p for _n, p in sorted(found[w])] for w in sorted(found)}

    @property
    def released_dir(self) -> Path:
        return self.root / RELEASED

    @property
    def released_manifest(self) -> Path:
        """What `released/` holds: each file's sha256 and size, and what rendered them."""
        return self.released_dir / RELEASED_MANIFEST

    def released(self, workload: str) -> Path:
        """The stored files of one released dataset (`<item>/<name>`, `dataset.json`)."""
        return self.released_dir / workload

    @property
    def private_seeds(self) -> Path:
        """Seeds of an unreleased edition: outside the published tree, gitignored."""
        base = os.environ.get(PRIVATE_ROOT_ENV)
        root = Path(base) if base else self.root.parent.parent / "private"
        return root / self.id / SEEDS


def cell_log_files(folder: Path) -> list[Path]:
    """The logs `folder/<workload>/<model>/<mode>.jsonl` (runs, grades, reproductions, …),
    sorted by path: what `sorted(folder.glob("*/*/*.jsonl"))` finds, listed with `os.scandir`,
    since pathlib's glob cost 0.2 CPU-s over the 2,795 cells of a 215-model edition."""
    found = [
        Path(log.path)
        for workload in _subfolders(str(folder))
        for model in _subfolders(workload)
        for log in _entries(model)
        if fnmatch.fnmatchcase(log.name, "*.jsonl")
    ]
    return sorted(found)


def _entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []


def _subfolders(folder: str) -> list[str]:
    return [entry.path for entry in _entries(folder) if entry.is_dir()]
