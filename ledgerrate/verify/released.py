"""The released datasets' stored files (`released/`) are what the seeds make, byte for byte.

`build` publishes the files stored at release after checking them against their manifest; the
manifest itself is not sealed, so only this check proves them: every file is made again from
the released seed (`generate/dataset_files.py`, the recipe `seeds release` stored them with)
and compared with the stored bytes, and every digest the manifest lists with those bytes. A file
stored but not made, made but not stored, or listed but absent is a mismatch too, each named.

A board pack's PDFs are rendered from the item's text, which the registered dataset hash
covers, by a PDF renderer whose bytes depend on its version and on the fonts the system's
fontconfig finds. So a mismatch there on a machine whose renderer differs from the one the
manifest records says "not proved here" as much as "altered": the note names each library that
differs, and the check passes only on a machine that renders the same bytes.
"""

from __future__ import annotations

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.io import FileProblem
from ledgerrate.core.layout import EditionPaths
from ledgerrate.core.released import files_on_disk, load_released
from ledgerrate.generate.dataset_files import (
    content_of,
    item_files,
    on_demand_renderer,
    published_files,
    render_stack,
)
from ledgerrate.schema import Registration, ReleasedDataset
from ledgerrate.verify.report import Report
from ledgerrate.workloads.base import Dataset

CATEGORY = "released dataset files regenerated"


def check_released_files(
    paths: EditionPaths,
    registration: Registration,
    datasets: dict[str, Dataset],
    lookup,
    report: Report,
) -> None:
    """Each stored file of each released dataset against the file its seed makes again.
    `datasets` are those `check_seeds_and_datasets` regenerated and proved registered."""
    manifest_name = paths.released_manifest.relative_to(paths.root).as_posix()
    try:
        manifest = load_released(paths)
    except (FileProblem, UsageProblem) as problem:
        report.fail(
            "files parsed against their schema",
            file=manifest_name,
            field="schema",
            expected="a valid file",
            found="; ".join(problem.lines),
        )
        return
    if manifest is None:
        return
    report.expect("files parsed against their schema", True, file=manifest_name)
    if not paths.seeds.exists():
        # Nothing makes them again without the seeds (withheld, or lost: seed custody says
        # which), and `build` publishes no dataset of seeds it does not have.
        report.notes.append(
            f"{manifest_name} lists stored dataset files, but the seeds are not released: "
            "they are not checked, and not published"
        )
        return
    for workload_id, entry in sorted(manifest.datasets.items()):
        sealed = registration.workloads.get(workload_id)
        dataset = datasets.get(workload_id)
        if sealed is None or dataset is None:
            report.fail(
                CATEGORY,
                file=manifest_name,
                record=workload_id,
                field="workload",
                expected="a registered dataset regenerated from its released seed",
                found="not registered" if sealed is None else "not regenerated (see above)",
            )
            continue
        report.expect(
            CATEGORY,
            entry.dataset_hash == sealed.dataset_hash,
            file=manifest_name,
            record=workload_id,
            field="dataset_hash",
            expected=sealed.dataset_hash,
            found=entry.dataset_hash,
        )
        made = published_files(
            content_of(dataset),
            item_files(dataset, on_demand_renderer(workload_id, lookup)),
            registration.hash_scheme,
        )
        before = len(report.mismatches)
        _compare(paths, workload_id, entry, made, manifest_name, report)
        if len(report.mismatches) > before:
            drift = _drift(entry)
            report.notes.append(
                f"{workload_id}: stored dataset files differ from those its seed makes here; "
                + (
                    f"they were rendered with {drift}, so a PDF may differ for that reason "
                    "alone: verify again with the recorded versions (and the same fonts)"
                    if drift
                    else "they were rendered with the same libraries as here, so the stored "
                    "bytes are not those of the released dataset"
                )
            )


def _compare(
    paths: EditionPaths,
    workload_id: str,
    entry: ReleasedDataset,
    made: dict[str, bytes],
    manifest_name: str,
    report: Report,
) -> None:
    folder = paths.released(workload_id)
    on_disk = files_on_disk(paths, workload_id)
    for rel in sorted(set(made) | set(entry.files) | on_disk):
        name = f"{paths.released_dir.name}/{workload_id}/{rel}"
        listed = entry.files.get(rel)
        if rel not in made:
            report.fail(
                CATEGORY,
                file=name,
                field="file",
                expected="a file the released seed makes",
                found="stored, but not made from the seed",
            )
            continue
        want = made[rel]
        if rel not in on_disk or (folder / rel).is_symlink():
            report.fail(
                CATEGORY,
                file=name,
                field="file",
                expected=f"stored, sha256 {sha256_bytes(want)}",
                found="missing" if rel not in on_disk else "a symbolic link",
            )
            continue
        stored = (folder / rel).read_bytes()
        if listed is None:
            report.fail(
                CATEGORY,
                file=manifest_name,
                record=workload_id,
                field=rel,
                expected="listed with its sha256 and size",
                found="not listed",
            )
        elif listed.sha256 != sha256_bytes(stored) or listed.size != len(stored):
            report.fail(
                CATEGORY,
                file=manifest_name,
                record=workload_id,
                field=rel,
                expected=f"sha256 {sha256_bytes(stored)}, {len(stored)} bytes (as stored)",
                found=f"sha256 {listed.sha256}, {listed.size} bytes",
            )
        report.expect(
            CATEGORY,
            stored == want,
            file=name,
            field="bytes",
            expected=f"sha256 {sha256_bytes(want)} (made from the seed)",
            found=f"sha256 {sha256_bytes(stored)}{_first_difference(stored, want)}",
        )


def _first_difference(stored: bytes, made: bytes) -> str:
    if stored == made:
        return ""
    at = next((i for i, (a, b) in enumerate(zip(stored, made, strict=False)) if a != b), None)
    if at is None:
        at = min(len(stored), len(made))
    return f", first differing at byte {at} of {len(stored)}"


def _drift(entry: ReleasedDataset) -> str:
    """The libraries whose versions here differ from those that rendered the stored files."""
    here, then = render_stack(), entry.rendered_by.stack
    changed = [
        f"{name} {then.get(name, 'absent')} (here {here.get(name, 'absent')})"
        for name in sorted(set(here) | set(then))
        if here.get(name) != then.get(name)
    ]
    return "; ".join(changed)
