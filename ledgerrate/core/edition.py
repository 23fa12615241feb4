"""Loading an edition folder: manifest, pricing, registration, and the checks between them.

Every stage starts here, so the checks live in one place: a stage that runs or grades an edition
whose registered hashes no longer match the code would publish figures nobody registered.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import LEGACY_SCHEME, HashScheme, sha256_json
from ledgerrate.core.io import FileProblem, load_model
from ledgerrate.core.layout import EditionPaths
from ledgerrate.schema import EditionManifest, PricingTable, Registration

if TYPE_CHECKING:
    from ledgerrate.workloads.base import Workload

# A lookup of workload versions by id; the core only names the type, so it stays below workloads.
WorkloadLookup = Callable[[str], "Workload"]


@dataclass(frozen=True)
class Edition:
    """An edition folder as parsed. `registration` is None until `register` has sealed it."""

    paths: EditionPaths
    manifest: EditionManifest
    pricing: PricingTable
    registration: Registration | None


def load_manifest(paths: EditionPaths) -> EditionManifest:
    manifest = load_model(EditionManifest, paths.manifest)
    # The folder name is the edition's permanent URL segment and keys its private seeds; an id
    # that disagrees would publish one edition under two names.
    if manifest.id != paths.id:
        raise FileProblem(
            paths.manifest,
            [
                f"{paths.manifest}: id: {manifest.id!r} differs from the folder name "
                f"{paths.id!r}; rename one so they match"
            ],
        )
    return manifest


def load_pricing(paths: EditionPaths) -> PricingTable:
    return load_model(PricingTable, paths.pricing)


def load_registration(paths: EditionPaths) -> Registration | None:
    if not paths.registration.exists():
        return None
    return load_model(Registration, paths.registration)


def load_edition(edition_dir: Path) -> Edition:
    """Parse edition.yaml, pricing.yaml and (if sealed) registration.json of `edition_dir`."""
    paths = EditionPaths(Path(edition_dir))
    if not paths.root.is_dir():
        raise UsageProblem(f"{paths.root}: no such edition folder")
    return Edition(
        paths=paths,
        manifest=load_manifest(paths),
        pricing=load_pricing(paths),
        registration=load_registration(paths),
    )


def edition_hash_document(manifest: EditionManifest) -> dict:
    """The value whose canonical JSON `edition_hash` is: edition.yaml with the schema's defaults
    filled in (published as `hashed/edition.json`, see hashes.md)."""
    dumped = manifest.model_dump(mode="json")
    # `n_reason` came after editions were sealed: hashed only when set, so their seals hold.
    for entry in dumped["workloads"]:
        if entry.get("n_reason") is None:
            entry.pop("n_reason", None)
    return dumped


def edition_hash(manifest: EditionManifest, scheme: HashScheme = LEGACY_SCHEME) -> str:
    return sha256_json(edition_hash_document(manifest), scheme)


def pricing_hash_document(pricing: PricingTable) -> dict:
    return pricing.model_dump(mode="json")


def pricing_hash(pricing: PricingTable, scheme: HashScheme = LEGACY_SCHEME) -> str:
    return sha256_json(pricing_hash_document(pricing), scheme)


def require_registration(edition: Edition) -> Registration:
    if edition.registration is None:
        raise UsageProblem(
            f"{edition.paths.registration}: edition {edition.manifest.id!r} is not registered; "
            f"run `ledgerrate register {edition.paths.root}` first"
        )
    return edition.registration


def registration_mismatches(edition: Edition, lookup: WorkloadLookup) -> list[str]:
    """Every way the code or inputs drifted from what was sealed, one line each."""
    reg = require_registration(edition)
    where = edition.paths.registration
    problems: list[str] = []
    if reg.edition != edition.manifest.id:
        problems.append(
            f"{where}: registered for edition {reg.edition!r}, not {edition.paths.id!r}"
        )
    scheme = reg.hash_scheme
    if reg.edition_hash != edition_hash(edition.manifest, scheme):
        problems.append(f"{where}: edition.yaml changed since registration (edition hash)")
    if reg.pricing_hash != pricing_hash(edition.pricing, scheme):
        problems.append(f"{where}: pricing.yaml changed since registration (pricing hash)")
    for entry in edition.manifest.workloads:
        sealed = reg.workloads.get(entry.id)
        if sealed is None:
            problems.append(f"{where}: workload {entry.id} was not registered")
            continue
        try:
            workload = lookup(entry.id)
        except KeyError as exc:
            problems.append(f"{where}: workload {entry.id}: {exc.args[0] if exc.args else exc}")
            continue
        # A grader corrected since registration (a published erratum, same version) keeps its
        # registered revision's code verbatim: the seal is checked against that revision.
        workload = workload.registered_revision(sealed.workload_hash, scheme) or workload
        current = {
            "workload hash": (sealed.workload_hash, workload.workload_hash_for(scheme)),
            "prompt hash": (sealed.prompt_hash, workload.prompt_hash),
            "rubric hash": (sealed.rubric_hash, workload.rubric_hash),
            "grader hash": (sealed.grader_hash, workload.grader_hash),
            "generator hash": (sealed.generator_hash, workload.generator_hash),
        }
        for name, (then, now) in current.items():
            if then != now:
                problems.append(
                    f"{where}: workload {entry.id}: {name} changed since registration "
                    f"(registered {str(then)[:12]}, code now {str(now)[:12]}); "
                    "bump the workload version instead of editing it"
                )
        if sealed.n_items != entry.n:
            problems.append(
                f"{where}: workload {entry.id}: registered n = {sealed.n_items}, edition says "
                f"n = {entry.n}"
            )
    return problems


def require_current_registration(edition: Edition, lookup: WorkloadLookup) -> Registration:
    """The registration, or UsageProblem naming every mismatch with the code and inputs."""
    problems = registration_mismatches(edition, lookup)
    if problems:
        raise UsageProblem(*problems)
    assert edition.registration is not None  # registration_mismatches required it
    return edition.registration


def pricing_problems(edition: Edition) -> list[str]:
    """Models (and judges) without a price; a missing compute price when a baseline is listed.

    Checked before any call: a model that was run but cannot be priced would be shown at $0.
    """
    problems: list[str] = []
    priced = edition.pricing.models
    for spec in [*edition.manifest.models, *edition.manifest.judges]:
        if spec.is_reference:
            if edition.pricing.compute is None:
                problems.append(
                    f"{edition.paths.pricing}: model {spec.id!r} is a reference baseline, costed "
                    "by CPU time; add `compute:` with vcpu_hour_usd and its source"
                )
        elif spec.local is not None:
            if spec.id not in edition.pricing.self_hosted:
                problems.append(
                    f"{edition.paths.pricing}: model {spec.id!r} is served locally, costed by "
                    "server time; add it under `self_hosted:` with instance, hour_usd, "
                    "assumption, source_url and retrieved_at"
                )
        elif spec.id not in priced:
            problems.append(
                f"{edition.paths.pricing}: no price for model {spec.id!r}; add it under `models:`"
            )
        elif priced[spec.id].unconfirmed is not None:
            # A price database's figure is a discovery input, not a frozen price: someone must
            # read the vendor's page before it is sealed.
            problems.append(
                f"{edition.paths.pricing}: models.{spec.id}: unconfirmed price; read the "
                f"vendor's page and run `ledgerrate prices confirm {edition.paths.root} {spec.id} "
                "--source-url URL --retrieved-at TIME`"
            )
    return problems


def require_prices(edition: Edition) -> None:
    problems = pricing_problems(edition)
    if problems:
        raise UsageProblem(*problems)


def _stamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def price_times(pricing: PricingTable) -> list[tuple[str, dt.datetime]]:
    """Every time a price table states: when it was frozen and when each price was read."""
    stamps: list[tuple[str, dt.datetime]] = [("frozen_at", pricing.frozen_at)]
    stamps += [
        (f"models.{m}.retrieved_at", p.retrieved_at)
        for m, p in pricing.models.items()
        if p.retrieved_at is not None  # a draft, refused on its own by `pricing_problems`
    ]
    if pricing.compute is not None:
        stamps.append(("compute.retrieved_at", pricing.compute.retrieved_at))
    stamps += [
        (f"self_hosted.{m}.retrieved_at", p.retrieved_at) for m, p in pricing.self_hosted.items()
    ]
    return stamps


def price_time_problems(
    pricing: PricingTable,
    opens: dt.datetime,
    registered_at: dt.datetime | None,
    where: Path | str,
) -> list[str]:
    """Every time in a price table later than the window's opening or than the registration
    (None before there is one), and every price read after the table was frozen.

    Standard §3 freezes prices at window open, and the registration seals the table's hash: a
    table frozen, or a price read, after either moment is not the table those moments fixed.
    """
    problems = []
    for field, moment in price_times(pricing):
        # One line per time, the first rule it breaks (a price read after the freeze is
        # usually after the window opens as well; re-reading it before freezing fixes both).
        if field != "frozen_at" and moment > pricing.frozen_at:
            problems.append(
                f"{where}: {field}: {_stamp(moment)} is after frozen_at "
                f"({_stamp(pricing.frozen_at)}); a frozen table cannot hold a price read "
                "later, so read the price page again before freezing"
            )
        elif moment > opens:
            problems.append(
                f"{where}: {field}: {_stamp(moment)} is after the window opens "
                f"({_stamp(opens)}); prices are frozen at window open, so freeze the table and "
                "read its prices by then"
            )
        elif registered_at is not None and moment > registered_at:
            problems.append(
                f"{where}: {field}: {_stamp(moment)} is after the registration "
                f"({_stamp(registered_at)}) that seals the table; register only once the table "
                "is frozen, with the true times"
            )
    return problems
