"""Seed custody: the escrow is the one sealed at registration, and a lost-seed statement is a
disclosed limitation bound to this registration, never a passed release check."""

from __future__ import annotations

from ledgerrate.core.hashing import sha256_file
from ledgerrate.core.io import FileProblem, load_model
from ledgerrate.core.layout import SEEDS_LOST, EditionPaths
from ledgerrate.schema import Registration, SeedLoss, loss_sentence
from ledgerrate.verify.report import Report


def check_seed_custody(paths: EditionPaths, registration: Registration, report: Report) -> None:
    escrow = registration.seed_escrow
    if escrow is not None:
        ciphertext = paths.root / escrow.file
        found = sha256_file(ciphertext) if ciphertext.is_file() else "missing"
        report.expect(
            "seed escrow as sealed",
            found == escrow.sha256,
            file=escrow.file,
            field="sha256 (registration.json seed_escrow)",
            expected=escrow.sha256,
            found=found,
        )
    elif registration.seeds_kept_elsewhere:
        report.notes.append(
            "no seed escrow: at registration the operator said the seeds are kept elsewhere "
            f"({registration.seeds_kept_elsewhere})"
        )
    if not paths.seeds_lost.exists():
        return
    try:
        loss = load_model(SeedLoss, paths.seeds_lost)
    except FileProblem:
        return  # reported by the schema check
    category = "lost-seed statement bound to the registration"
    report.expect(
        category,
        loss.edition == paths.id,
        file=SEEDS_LOST,
        field="edition",
        expected=paths.id,
        found=loss.edition,
    )
    registered = sha256_file(paths.registration)
    report.expect(
        category,
        loss.registration_sha256 == registered,
        file=SEEDS_LOST,
        field="registration_sha256",
        expected=registered,
        found=loss.registration_sha256,
    )
    commitments = {w: sealed.seed_commitment for w, sealed in registration.workloads.items()}
    report.expect(
        category,
        loss.commitments == commitments,
        file=SEEDS_LOST,
        field="commitments",
        expected="the registered seed commitments",
        found="different commitments",
    )
    worded = loss_sentence(loss.declared_at.date(), loss.reason)
    report.expect(
        category,
        loss.statement == worded,
        file=SEEDS_LOST,
        field="statement",
        expected=worded,
        found=loss.statement,
    )
    if paths.seeds.exists():
        report.notes.append(
            f"the seeds were declared lost on {loss.declared_at.date().isoformat()} "
            f"({loss.reason}) and later recovered; the released seeds are checked above"
        )
        return
    report.limitations.append(
        f"edition {paths.id}: {loss.statement}; dataset regeneration, prompt provenance and "
        "re-grading from the seeds cannot be checked"
    )
