"""The private folder an edition's unpublished material lives in, checked before it is used.

Spot-check forms and imports rest on the anonymisation secret (opaque ids are HMACs under it),
kept beside the private seeds in `<private root>/<edition id>/`. A command run with the wrong
root (LEDGERRATE_PRIVATE_DIR unset, or pointing at another machine's copy) would otherwise
make a fresh secret and then find none of the ids the judge and the graders saw. So these
commands refuse, naming the folder they looked in and how to point them at the right one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import seed_commitment
from ledgerrate.core.io import FileProblem, iter_jsonl, load_model
from ledgerrate.core.layout import PRIVATE_ROOT_ENV, EditionPaths, cell_log_files
from ledgerrate.grade.anonymise import SECRET_FILE, anon_id, edition_secret
from ledgerrate.schema import GradeRecord, Registration, SeedFile


def _where(paths: EditionPaths) -> str:
    folder = paths.private_seeds.parent
    return (
        f"{folder} (the private folder of edition {paths.id!r}: "
        + (
            f"{PRIVATE_ROOT_ENV}={folder.parent}"
            if os.environ.get(PRIVATE_ROOT_ENV)
            else f"{PRIVATE_ROOT_ENV} is not set, so <repository>/private/{paths.id}"
        )
        + ")"
    )


def _fix(paths: EditionPaths) -> str:
    return (
        f"set {PRIVATE_ROOT_ENV} to the folder that holds {paths.id}/{SECRET_FILE} "
        "(the one `register` and `grade` used)"
    )


def private_secret(paths: EditionPaths, judged: Iterable[GradeRecord] = ()) -> bytes:
    """The edition's anonymisation secret from its private folder, never created here.

    Refuses when the folder holds no secret, when its seeds do not open the registered
    commitments, or when its secret does not give the anonymised ids the judge recorded.
    """
    folder = paths.private_seeds.parent
    secret_path = folder / SECRET_FILE
    if not secret_path.exists():
        raise UsageProblem(
            f"{secret_path}: no anonymisation secret; looked in {_where(paths)}; {_fix(paths)}"
        )
    if paths.private_seeds.exists() and paths.registration.exists():
        try:
            seeds = load_model(SeedFile, paths.private_seeds)
            registration = load_model(Registration, paths.registration)
        except FileProblem:
            seeds = None
        if seeds is not None and not _opens(seeds, registration, paths.id):
            raise UsageProblem(
                f"{paths.private_seeds}: these seeds do not open the commitments in "
                f"{paths.registration}, so this is a different edition's private folder; "
                f"looked in {_where(paths)}; {_fix(paths)}"
            )
    secret = bytes.fromhex(secret_path.read_text(encoding="utf-8").strip())
    for record in judged:
        if record.judge is None:
            continue
        if anon_id(secret, record.run_id) != record.judge.anon_id:
            raise UsageProblem(
                f"{secret_path}: this secret does not give the anonymised ids the judge "
                f"recorded (run {record.run_id}), so it is not this edition's secret; looked in "
                f"{_where(paths)}; {_fix(paths)}"
            )
        break  # one run proves it: the id is an HMAC of the run id under the secret
    return secret


def _opens(seeds: SeedFile, registration: Registration, edition: str) -> bool:
    if seeds.edition != edition:
        return False
    for workload_id, sealed in registration.workloads.items():
        entry = seeds.seeds.get(workload_id)
        if entry is None or seed_commitment(entry.seed, entry.salt) != sealed.seed_commitment:
            return False
    return True


def judged_records(paths: EditionPaths) -> Iterable[GradeRecord]:
    """Grade records that carry a judge's anonymised id, lazily (the first one is enough)."""
    for log in cell_log_files(paths.grades_dir):
        for record in iter_jsonl(log, GradeRecord):
            if record.judge is not None:
                yield record


def grading_secret(paths: EditionPaths) -> bytes:
    """The secret `grade` anonymises with: checked like `private_secret` when it exists; made
    on first use only while no judge has recorded an id, since a new secret would then hide
    every earlier id from the spot-checks."""
    if (paths.private_seeds.parent / SECRET_FILE).exists():
        return private_secret(paths, judged_records(paths))
    if next(iter(judged_records(paths)), None) is not None:
        return private_secret(paths)  # refuses: names the folder it looked in
    return edition_secret(paths)
