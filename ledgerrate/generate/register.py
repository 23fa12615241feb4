"""`ledgerrate register`: seal registration.json once, before any run.

Everything that decides a result (prompts, graders, generators, rubrics, datasets, prices) is
hashed and timestamped here; later stages refuse to run or grade against anything else.
Order matters for crash safety: private seeds, their escrow and cards are written first and
registration.json last, so a crash leaves an unregistered edition that can simply be registered
again, never a sealed registration whose seeds were lost.

The seeds must outlive this machine: they are escrowed (encrypted) to at least one operator
public key, or the operator says explicitly that they are kept elsewhere, and that is sealed
and shown on the edition page.
"""

from __future__ import annotations

import datetime as dt
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from ledgerrate.core.edition import (
    WorkloadLookup,
    edition_hash,
    load_edition,
    pricing_hash,
    require_prices,
)
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import NEW_SCHEME
from ledgerrate.core.io import load_model, write_json
from ledgerrate.core.steps import Steps
from ledgerrate.generate.dataset import build_dataset, make_card
from ledgerrate.generate.escrow import RECIPIENTS_ENV, escrow_recipients, seal_escrow
from ledgerrate.generate.price_check import price_check, report_lines
from ledgerrate.generate.protocol import protocol_problems
from ledgerrate.generate.seeds import new_seed_entry, write_private_seeds
from ledgerrate.schema import PriceCheck, Registration, SeedEntry, SeedFile, WorkloadRegistration
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
        f"{workload.id}: the generator refused {MAX_DRAWS} fresh seeds in a row (the last "
        f"reason: {problems[-1]}); run `ledgerrate register` again to draw fresh ones"
    )


def register_edition(
    edition_dir: Path,
    *,
    lookup: WorkloadLookup | None = None,
    now: dt.datetime | None = None,
    seeds_kept_elsewhere: str | None = None,
) -> Registration:
    """Draw seeds, build datasets and cards, and seal `registration.json` (exactly once).

    The seeds are escrowed to the edition's `seed-recipients.txt` and the recipients in
    LEDGERRATE_ESCROW_RECIPIENTS; with neither, registration is refused unless
    `seeds_kept_elsewhere` says where the operator keeps them.
    """
    if lookup is None:
        from ledgerrate import workloads

        lookup = workloads.get
    edition = load_edition(edition_dir)
    paths = edition.paths
    if edition.registration is not None or paths.registration.exists():
        raise UsageProblem(
            f"{paths.registration}: edition {edition.manifest.id!r} is already registered "
            f"(at {edition.registration.registered_at.isoformat() if edition.registration else '?'}"
            "); a registration is sealed once and never rewritten: correct a sealed edition "
            "with an erratum in errata.yaml, or start another with `ledgerrate new`"
        )
    require_prices(edition)
    # Prices are checked against this moment: the registration sealed below is stamped no
    # earlier, so a price read after it could not have been in the table it seals.
    problems = protocol_problems(edition, now or dt.datetime.now(dt.UTC))
    if problems:
        raise UsageProblem(*problems)
    recipients = escrow_recipients(paths)
    kept_elsewhere = " ".join((seeds_kept_elsewhere or "").split()) or None
    if recipients and kept_elsewhere:
        raise UsageProblem(
            f"edition {edition.manifest.id!r}: escrow recipients are configured, so the seeds "
            "are escrowed; drop --seeds-kept-elsewhere (or the recipients)"
        )
    if not recipients and not kept_elsewhere:
        raise UsageProblem(
            f"edition {edition.manifest.id!r}: no escrow recipient for its private seeds; add "
            f"an operator's age public key to {paths.seed_recipients} or {RECIPIENTS_ENV}, "
            'or say where they are kept with --seeds-kept-elsewhere "…"'
        )
    try:
        found = {entry.id: lookup(entry.id) for entry in edition.manifest.workloads}
    except KeyError as exc:
        reason = exc.args[0] if exc.args else exc
        raise UsageProblem(f"{paths.manifest}: workloads: {reason}; correct the id") from None

    seeds: dict[str, SeedEntry] = {}
    sealed: dict[str, WorkloadRegistration] = {}
    cards = {}
    # Generating datasets is the slow part (invoice PDFs, board packs): say which one.
    with Steps("register", len(edition.manifest.workloads)) as steps:
        for entry in edition.manifest.workloads:
            workload = found[entry.id]
            steps.step(f"{entry.id}: generating {entry.n} items")
            seed, dataset, rejected = draw_dataset(workload, entry.n)
            seeds[entry.id] = seed
            cards[entry.id] = make_card(workload, dataset, seed.commitment, NEW_SCHEME)
            sealed[entry.id] = WorkloadRegistration(
                workload_hash=workload.workload_hash_for(NEW_SCHEME),
                prompt_hash=workload.prompt_hash,
                rubric_hash=workload.rubric_hash,
                grader_hash=workload.grader_hash,
                generator_hash=workload.generator_hash,
                dataset_hash=dataset.hash_for(NEW_SCHEME),
                seed_commitment=seed.commitment,
                n_items=len(dataset.items),
                rejected_draws=rejected,
            )

    # What the price database says beside the frozen prices, as found now (information, never
    # applied): written before the registration, like every file register writes.
    write_json(paths.price_check, price_check(edition.manifest, edition.pricing))
    private = SeedFile(edition=edition.manifest.id, seeds=seeds)
    write_private_seeds(paths, private)
    escrow = seal_escrow(paths, private, recipients) if recipients else None
    for workload_id, card in cards.items():
        write_json(paths.card(workload_id), card)
    registration = Registration(
        edition=edition.manifest.id,
        registered_at=now or dt.datetime.now(dt.UTC),
        edition_hash=edition_hash(edition.manifest, NEW_SCHEME),
        pricing_hash=pricing_hash(edition.pricing, NEW_SCHEME),
        workloads=sealed,
        toolchain_version=toolchain_version(),
        hash_scheme=NEW_SCHEME,
        seed_escrow=escrow,
        seeds_kept_elsewhere=kept_elsewhere,
    )
    write_json(paths.registration, registration)
    return registration


def judge_warnings(edition_dir: Path, *, lookup: WorkloadLookup | None = None) -> list[str]:
    """What `register` warns about the judge (standard §5.4): a judged workload whose judge
    shares a vendor family with an evaluated model needs a second judge on a sample, and with
    none named the cells of those models can never qualify."""
    if lookup is None:
        from ledgerrate import workloads

        lookup = workloads.get
    manifest = load_edition(edition_dir).manifest
    if manifest.judge is None or manifest.judge.second_model:
        return []
    judged = [e.id for e in manifest.workloads if lookup(e.id).judged]
    if not judged:
        return []
    judge = manifest.model(manifest.judge.model)
    same = [m.id for m in manifest.models if m.family.casefold() == judge.family.casefold()]
    if not same:
        return []
    return [
        f"{edition_dir}/edition.yaml: judge.second_model: the judge {judge.id!r} is of the "
        f"{judge.family!r} family, like {', '.join(same)}, and no second judge is named; the "
        f"judged cells of {', '.join(same)} on {', '.join(judged)} will not qualify until a "
        "second judge has graded a sample (standard §5.4). Name one before the edition runs."
    ]


def price_check_lines(edition_dir: Path) -> list[str]:
    """Cross-check 1 as `register` found it: the frozen prices beside the price database's."""
    paths = load_edition(edition_dir).paths
    if not paths.price_check.is_file():
        return []
    return report_lines(load_model(PriceCheck, paths.price_check))
