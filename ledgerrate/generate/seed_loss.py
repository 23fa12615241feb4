"""`ledgerrate seeds lost`: say plainly, once, that an edition's seeds can no longer be opened.

A lost seed is never faked or quietly skipped: the statement is sealed (written once, bound to
the registration by its sha256, listing the commitments that stay unopened), and every page
that lists the edition's seeds, its evidence bundle and `verify` carry it from then on.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path

from ledgerrate.core.edition import load_edition, require_registration
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_file
from ledgerrate.core.io import load_model, write_json
from ledgerrate.generate.seeds import open_private_seeds
from ledgerrate.schema import SeedLoss, loss_sentence


def declare_seeds_lost(
    edition_dir: Path,
    reason: str,
    *,
    now: dt.datetime | None = None,
    environ: Mapping[str, str] | None = None,
) -> SeedLoss:
    """Seal `seeds-lost.json`, after checking that no source can open the seeds any more."""
    edition = load_edition(edition_dir)
    registration = require_registration(edition)
    paths = edition.paths
    reason = " ".join(reason.split())
    if not reason:
        raise UsageProblem("--reason: say why the seeds are lost (it is published as given)")
    if paths.seeds_lost.exists():
        earlier = load_model(SeedLoss, paths.seeds_lost)
        raise UsageProblem(
            f"{paths.seeds_lost}: the loss was already recorded on "
            f"{earlier.declared_at.date().isoformat()}; a statement is sealed once and never "
            "rewritten"
        )
    if paths.seeds.exists():
        raise UsageProblem(
            f"{paths.seeds}: the seeds of edition {edition.manifest.id!r} are released; "
            "nothing is lost"
        )
    opened = open_private_seeds(edition, environ)
    if opened.seeds is not None:
        raise UsageProblem(
            f"edition {edition.manifest.id!r}: its seeds can still be opened from "
            f"{opened.source}; they are not lost (release them with `ledgerrate seeds release` "
            "once the window has closed)"
        )
    moment = now or dt.datetime.now(dt.UTC).replace(microsecond=0)
    statement = SeedLoss(
        edition=edition.manifest.id,
        declared_at=moment,
        reason=reason,
        tried=[public for public, _detail in opened.tried],
        registration_sha256=sha256_file(paths.registration),
        commitments={w: sealed.seed_commitment for w, sealed in registration.workloads.items()},
        statement=loss_sentence(moment.date(), reason),
    )
    write_json(paths.seeds_lost, statement)
    return statement
