"""Private dataset seeds, their commitments, their release, and datasets rebuilt from them.

Seeds are withheld until the following edition (standard §7) so nobody can tune to the items;
the commitment sha256(seed ‖ salt) is published at registration so that, once released, anyone
can check the seed is the one that was used.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ledgerrate.core.edition import Edition, WorkloadLookup, load_edition, require_registration
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import seed_commitment
from ledgerrate.core.io import FileProblem, load_model, write_json
from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate.dataset import build_dataset, stack_drift
from ledgerrate.generate.escrow import EscrowUnopened, identity_path, open_escrow
from ledgerrate.schema import DatasetCard, Registration, SeedEntry, SeedFile
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
    """Released `seeds.json`, else the private seeds, else the escrow when an operator identity
    is configured (a fresh machine can go on running an edition); UsageProblem when none."""
    paths = edition_dir if isinstance(edition_dir, EditionPaths) else EditionPaths(edition_dir)
    for candidate in (paths.seeds, paths.private_seeds):
        if candidate.exists():
            seeds = load_model(SeedFile, candidate)
            if seeds.edition != paths.id:
                raise UsageProblem(
                    f"{candidate}: seeds belong to edition {seeds.edition!r}, not {paths.id!r}"
                )
            return seeds
    registration = (
        load_model(Registration, paths.registration) if paths.registration.exists() else None
    )
    if registration is not None and registration.seed_escrow and identity_path() is not None:
        try:
            seeds = open_escrow(paths, registration.seed_escrow)
        except EscrowUnopened as why:
            raise UsageProblem(f"edition {paths.id!r}: seed escrow not opened: {why}") from None
        if seeds.edition == paths.id:
            return seeds
    raise UsageProblem(
        f"no seeds for edition {paths.id!r}: neither {paths.seeds} (released) nor "
        f"{paths.private_seeds} (private; set LEDGERRATE_PRIVATE_DIR if they live elsewhere, "
        "or LEDGERRATE_OPERATOR_IDENTITY to open the escrow)"
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


@dataclass
class OpenedSeeds:
    """The edition's seeds from the first source that opens every commitment, or None; and
    what each source tried gave, as (publishable, terminal-only detail)."""

    seeds: SeedFile | None
    source: str | None
    tried: list[tuple[str, str]] = field(default_factory=list)

    def problem(self, edition: Edition) -> str:
        """The one line saying the seeds cannot be opened, and what to do about it."""
        parts = [f"{public} ({detail})" if detail else public for public, detail in self.tried]
        return (
            f"edition {edition.manifest.id!r}: its seeds cannot be opened: {'; '.join(parts)}; "
            "if they are lost for good, record that with `ledgerrate seeds lost "
            f'{edition.paths.root} --reason "…"`'
        )


def _opens_every_commitment(seeds: SeedFile, registration: Registration, edition: str) -> None:
    if seeds.edition != edition:
        raise UsageProblem(f"seeds belong to edition {seeds.edition!r}, not {edition!r}")
    for workload_id, sealed in registration.workloads.items():
        verified_seed(seeds, workload_id, sealed.seed_commitment)


def open_private_seeds(edition: Edition, environ: Mapping[str, str] | None = None) -> OpenedSeeds:
    """Unreleased seeds from the private folder, else from the escrow with the operator identity.

    A source counts only if its seeds open every registered commitment.
    """
    registration = require_registration(edition)
    opened = OpenedSeeds(None, None)
    private = edition.paths.private_seeds
    if private.exists():
        try:
            seeds = load_model(SeedFile, private)
            _opens_every_commitment(seeds, registration, edition.manifest.id)
            return OpenedSeeds(seeds, f"the private folder ({private})", opened.tried)
        except (FileProblem, UsageProblem):
            opened.tried.append(
                ("the private folder holds seeds that do not open the commitments", str(private))
            )
    else:
        opened.tried.append(("no private seeds on this machine", str(private)))
    escrow = registration.seed_escrow
    if escrow is None and registration.seeds_kept_elsewhere:
        opened.tried.append(
            (
                "no escrow: at registration the operator said the seeds are kept elsewhere "
                f"({registration.seeds_kept_elsewhere})",
                "",
            )
        )
    elif escrow is None:
        opened.tried.append(("no escrow was sealed at registration", ""))
    else:
        try:
            seeds = open_escrow(edition.paths, escrow, environ)
            _opens_every_commitment(seeds, registration, edition.manifest.id)
            return OpenedSeeds(seeds, "the escrow", opened.tried)
        except EscrowUnopened as why:
            opened.tried.append((f"escrow not opened: {why.public}", why.detail))
        except UsageProblem:
            opened.tried.append(("the escrow's seeds do not open the commitments", ""))
    return opened


@dataclass(frozen=True)
class Release:
    path: Path
    source: str
    """Where the released seeds came from (or `already released`)."""


def release(
    edition_dir: Path,
    *,
    now: dt.datetime | None = None,
    environ: Mapping[str, str] | None = None,
) -> Release:
    """Publish the private seeds as `seeds.json`, each verified against its commitment.

    The seeds come from the private folder when present, otherwise from the escrow opened with
    the operator identity (LEDGERRATE_OPERATOR_IDENTITY). Refused while the window is open: a
    seed released early would let anyone tune to the items. A lost-seed statement, if one was
    recorded, stays: a recovery is released beside it.
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
        return Release(edition.paths.seeds, "already released")
    opened = open_private_seeds(edition, environ)
    if opened.seeds is None or opened.source is None:
        raise UsageProblem(opened.problem(edition))
    released = opened.seeds.model_copy(update={"released_at": moment})
    write_json(edition.paths.seeds, released)
    return Release(edition.paths.seeds, opened.source)


def release_seeds(edition_dir: Path, *, now: dt.datetime | None = None) -> Path:
    """`release`, returning only the path of `seeds.json`."""
    return release(edition_dir, now=now).path
