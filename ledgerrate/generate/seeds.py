"""Private dataset seeds, their commitments, their release, and datasets rebuilt from them.

Seeds are withheld until the following edition (standard §7) so nobody can tune to the items;
the commitment sha256(seed ‖ salt) is published at registration so that, once released, anyone
can check the seed is the one that was used.
"""

from __future__ import annotations

import datetime as dt
import secrets
from pathlib import Path

from ledgerrate.edition import WorkloadLookup, load_edition, require_registration
from ledgerrate.errors import UsageProblem
from ledgerrate.generate.dataset import build_dataset, stack_drift
from ledgerrate.hashing import seed_commitment
from ledgerrate.io import load_model, write_json
from ledgerrate.layout import EditionPaths
from ledgerrate.schema import DatasetCard, SeedEntry, SeedFile
from ledgerrate.workloads.base import Dataset

SEED_BITS = 63
SALT_BYTES = 32


def new_seed_entry() -> SeedEntry:
    """A fresh 63-bit seed and a 32-byte salt from the OS's cryptographic source."""
    seed = secrets.randbits(SEED_BITS)
    salt = secrets.token_hex(SALT_BYTES)
    return SeedEntry(seed=seed, salt=salt, commitment=seed_commitment(seed, salt))


def write_private_seeds(paths: EditionPaths, seeds: SeedFile) -> Path:
    target = paths.private_seeds
    write_json(target, seeds)
    target.chmod(0o600)
    return target


def load_seeds(edition_dir: Path | EditionPaths) -> SeedFile:
    """Released `seeds.json` when present, else the private seeds; UsageProblem when neither."""
    paths = edition_dir if isinstance(edition_dir, EditionPaths) else EditionPaths(edition_dir)
    for candidate in (paths.seeds, paths.private_seeds):
        if candidate.exists():
            seeds = load_model(SeedFile, candidate)
            if seeds.edition != paths.id:
                raise UsageProblem(
                    f"{candidate}: seeds belong to edition {seeds.edition!r}, not {paths.id!r}"
                )
            return seeds
    raise UsageProblem(
        f"no seeds for edition {paths.id!r}: neither {paths.seeds} (released) nor "
        f"{paths.private_seeds} (private; set LEDGERRATE_PRIVATE_DIR if they live elsewhere)"
    )


def verified_seed(seeds: SeedFile, workload_id: str, registered_commitment: str) -> int:
    """The workload's seed, after checking it opens the registered commitment."""
    entry = seeds.seeds.get(workload_id)
    if entry is None:
        raise UsageProblem(f"seeds of edition {seeds.edition!r} have no entry for {workload_id}")
    opened = seed_commitment(entry.seed, entry.salt)
    if opened != registered_commitment or entry.commitment != registered_commitment:
        raise UsageProblem(
            f"{workload_id}: seed does not open the registered commitment "
            f"{registered_commitment[:12]}… (seed file says {entry.commitment[:12]}…, "
            f"seed ‖ salt hashes to {opened[:12]}…)"
        )
    return entry.seed


def dataset_for(
    edition_dir: Path, workload_id: str, *, lookup: WorkloadLookup | None = None
) -> Dataset:
    """Regenerate a registered workload's dataset and prove it is the registered one.

    Checks the seed against its commitment and the dataset hash against the registration;
    raises UsageProblem naming what is missing or mismatched. `lookup` defaults to the
    workload registry (tests inject their own).
    """
    if lookup is None:
        from ledgerrate import workloads

        lookup = workloads.get
    edition = load_edition(edition_dir)
    registration = require_registration(edition)
    sealed = registration.workloads.get(workload_id)
    if sealed is None:
        raise UsageProblem(
            f"{edition.paths.registration}: workload {workload_id} is not registered"
        )
    seed = verified_seed(load_seeds(edition.paths), workload_id, sealed.seed_commitment)
    try:
        workload = lookup(workload_id)
    except KeyError as exc:
        raise UsageProblem(f"{workload_id}: {exc.args[0] if exc.args else exc}") from None
    dataset = build_dataset(workload, seed, sealed.n_items)
    found = dataset.hash_for(registration.hash_scheme)
    if found != sealed.dataset_hash:
        card_path = edition.paths.card(workload_id)
        recorded = load_model(DatasetCard, card_path).stack if card_path.exists() else {}
        raise UsageProblem(
            f"{workload_id}: regenerated dataset hash {found[:12]}… differs from the "
            f"registered {sealed.dataset_hash[:12]}…; the generator or a library shaping the "
            f"data changed ({stack_drift(recorded)})"
        )
    return dataset


def release_seeds(edition_dir: Path, *, now: dt.datetime | None = None) -> Path:
    """Publish the private seeds as `seeds.json`, each verified against its commitment.

    Refused while the window is open: a seed released early would let anyone tune to the items.
    """
    edition = load_edition(edition_dir)
    registration = require_registration(edition)
    moment = now or dt.datetime.now(dt.UTC)
    if moment < edition.manifest.window.closes:
        raise UsageProblem(
            f"edition {edition.manifest.id!r}: its window closes "
            f"{edition.manifest.window.closes.isoformat()}; seeds are released after it "
            "(at the next edition), never during it"
        )
    if edition.paths.seeds.exists():
        released = load_model(SeedFile, edition.paths.seeds)
        for workload_id, sealed in registration.workloads.items():
            verified_seed(released, workload_id, sealed.seed_commitment)
        return edition.paths.seeds
    private = edition.paths.private_seeds
    if not private.exists():
        raise UsageProblem(f"no private seeds at {private}; set LEDGERRATE_PRIVATE_DIR")
    seeds = load_model(SeedFile, private)
    for workload_id, sealed in registration.workloads.items():
        verified_seed(seeds, workload_id, sealed.seed_commitment)
    released = seeds.model_copy(update={"released_at": moment})
    write_json(edition.paths.seeds, released)
    return edition.paths.seeds
