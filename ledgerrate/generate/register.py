"""`ledgerrate register`: seal registration.json once, before any run.

Everything that decides a result (prompts, graders, generators, rubrics, datasets, prices) is
hashed and timestamped here; later stages refuse to run or grade against anything else.
Order matters for crash safety: private seeds and cards are written first and
registration.json last, so a crash leaves an unregistered edition that can simply be registered
again, never a sealed registration whose seeds were lost.
"""

from __future__ import annotations

import datetime as dt
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from ledgerrate.edition import (
    WorkloadLookup,
    edition_hash,
    load_edition,
    pricing_hash,
    require_prices,
)
from ledgerrate.errors import UsageProblem
from ledgerrate.generate.dataset import build_dataset, make_card
from ledgerrate.generate.seeds import new_seed_entry, write_private_seeds
from ledgerrate.io import write_json
from ledgerrate.schema import Registration, SeedEntry, SeedFile, WorkloadRegistration
from ledgerrate.workloads.base import Dataset, Workload


def toolchain_version() -> str:
    try:
        return version("ledgerrate")
    except PackageNotFoundError:
        return "unknown"


MAX_DRAWS = 5


def draw_dataset(workload: Workload, n: int) -> tuple[SeedEntry, Dataset, int]:
    """A fresh seed and its dataset. A generator may refuse a seed whose data would be unusable
    (it raises ValueError); the seed is then redrawn, a bounded number of times, and the count
    of refusals is sealed in the registration."""
    problems = []
    for rejected in range(MAX_DRAWS):
        seed = new_seed_entry()
        try:
            return seed, build_dataset(workload, seed.seed, n), rejected
        except ValueError as exc:
            problems.append(str(exc))
    raise UsageProblem(
        f"{workload.id}: the generator refused {MAX_DRAWS} fresh seeds in a row; "
        f"the last reason: {problems[-1]}"
    )


def register_edition(
    edition_dir: Path,
    *,
    lookup: WorkloadLookup | None = None,
    now: dt.datetime | None = None,
) -> Registration:
    """Draw seeds, build datasets and cards, and seal `registration.json` (exactly once)."""
    if lookup is None:
        from ledgerrate import workloads

        lookup = workloads.get
    edition = load_edition(edition_dir)
    paths = edition.paths
    if edition.registration is not None or paths.registration.exists():
        raise UsageProblem(
            f"{paths.registration}: edition {edition.manifest.id!r} is already registered "
            f"(at {edition.registration.registered_at.isoformat() if edition.registration else '?'}"
            "); a registration is sealed once and never rewritten"
        )
    require_prices(edition)
    try:
        found = {entry.id: lookup(entry.id) for entry in edition.manifest.workloads}
    except KeyError as exc:
        reason = exc.args[0] if exc.args else exc
        raise UsageProblem(f"{paths.manifest}: workloads: {reason}; correct the id") from None

    seeds: dict[str, SeedEntry] = {}
    sealed: dict[str, WorkloadRegistration] = {}
    cards = {}
    for entry in edition.manifest.workloads:
        workload = found[entry.id]
        seed, dataset, rejected = draw_dataset(workload, entry.n)
        seeds[entry.id] = seed
        cards[entry.id] = make_card(workload, dataset, seed.commitment)
        sealed[entry.id] = WorkloadRegistration(
            workload_hash=workload.workload_hash,
            prompt_hash=workload.prompt_hash,
            rubric_hash=workload.rubric_hash,
            grader_hash=workload.grader_hash,
            generator_hash=workload.generator_hash,
            dataset_hash=dataset.hash,
            seed_commitment=seed.commitment,
            n_items=len(dataset.items),
            rejected_draws=rejected,
        )

    write_private_seeds(paths, SeedFile(edition=edition.manifest.id, seeds=seeds))
    for workload_id, card in cards.items():
        write_json(paths.card(workload_id), card)
    registration = Registration(
        edition=edition.manifest.id,
        registered_at=now or dt.datetime.now(dt.UTC),
        edition_hash=edition_hash(edition.manifest),
        pricing_hash=pricing_hash(edition.pricing),
        workloads=sealed,
        toolchain_version=toolchain_version(),
    )
    write_json(paths.registration, registration)
    return registration
