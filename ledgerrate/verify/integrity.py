"""Every file parses against its schema, and every hash the edition publishes matches."""

from __future__ import annotations

import warnings
from pathlib import Path

from ledgerrate.core import layout, seal
from ledgerrate.core.hashing import sha256_file
from ledgerrate.core.io import FileProblem, TornLineWarning, load_model, read_jsonl
from ledgerrate.core.seal import errata_files, published_digest
from ledgerrate.schema import (
    DatasetCard,
    EditionManifest,
    EditionResults,
    ErrataFile,
    GradeRecord,
    PricingTable,
    PublishedEdition,
    Registration,
    RunRecord,
    SeedFile,
    SeedLoss,
)
from ledgerrate.verify.report import Report

TOP_LEVEL = {
    layout.MANIFEST: EditionManifest,
    layout.PRICING: PricingTable,
    layout.REGISTRATION: Registration,
    layout.SEEDS: SeedFile,
    layout.SEEDS_LOST: SeedLoss,
    layout.ERRATA: ErrataFile,
    layout.PUBLISHED: PublishedEdition,
    layout.RESULTS: EditionResults,
    layout.RESULTS_CURRENT: EditionResults,
}


def run_logs(edition_dir: Path) -> list[Path]:
    """Registered runs and reproductions (reproductions/grades holds grades, not runs)."""
    paths = layout.EditionPaths(edition_dir)
    grades = paths.reproduction_grades_dir
    return sorted(
        [*paths.runs_dir.rglob("*.jsonl")]
        + [p for p in paths.reproductions_dir.rglob("*.jsonl") if grades not in p.parents]
    )


def grade_logs(edition_dir: Path) -> list[Path]:
    paths = layout.EditionPaths(edition_dir)
    return sorted(
        [*paths.grades_dir.rglob("*.jsonl"), *paths.reproduction_grades_dir.rglob("*.jsonl")]
    )


def check_schemas(edition_dir: Path, report: Report, logs=None) -> None:
    """Every file parses against its schema; `logs` (verify/parsed.py's `EditionLogs`) are the
    run and grade logs already read, or None to read them here."""
    for name, model in TOP_LEVEL.items():
        path = edition_dir / name
        if not path.exists():
            continue
        _parse(report, path, edition_dir, lambda p, m=model: load_model(m, p))
    for card in sorted(layout.EditionPaths(edition_dir).datasets_dir.glob("*/card.json")):
        _parse(report, card, edition_dir, lambda p: load_model(DatasetCard, p))
    if logs is None:
        for model, found in (
            (RunRecord, run_logs(edition_dir)),
            (GradeRecord, grade_logs(edition_dir)),
        ):
            for log in found:
                _parse(report, log, edition_dir, lambda p, m=model: _strict_jsonl(p, m))
        return
    for parsed in [*logs.runs, *logs.grades]:
        _parse(report, parsed.path, edition_dir, lambda _p, parsed=parsed: _strict_parsed(parsed))


def _strict_jsonl(path: Path, model: type) -> list:
    # A published log is finished: a torn last line there is damage, not a crash to recover.
    with warnings.catch_warnings():
        warnings.simplefilter("error", TornLineWarning)
        try:
            return read_jsonl(path, model)
        except TornLineWarning as warning:
            raise FileProblem(path, [str(warning)]) from None


def _strict_parsed(parsed) -> None:
    # As _strict_jsonl, on a log read once: its bad line, or a torn last line, is damage.
    if parsed.problem is not None:
        raise parsed.problem
    if parsed.torn is not None:
        raise FileProblem(parsed.path, [parsed.torn])


def _parse(report: Report, path: Path, edition_dir: Path, parse) -> None:
    rel = path.relative_to(edition_dir).as_posix()
    try:
        parse(path)
        report.expect("files parsed against their schema", True, file=rel)
    except FileProblem as problem:
        for line in problem.lines:
            report.fail(
                "files parsed against their schema",
                file=rel,
                field="schema",
                expected="a valid file",
                found=line.removeprefix(f"{path}: "),
            )


def check_sums(
    edition_dir: Path, sums_text: str, report: Report, label: str = "SHA256SUMS"
) -> None:
    """`sha256  path` lines (sha256sum format): each listed file exists and matches."""
    listed = set()
    for number, line in enumerate(sums_text.splitlines(), start=1):
        if not line.strip():
            continue
        digest, _, name = line.partition("  ")
        name = name.strip()
        listed.add(name)
        path = (edition_dir / name).resolve()
        if edition_dir.resolve() not in path.parents or not path.is_file():
            report.fail(
                "checksums",
                file=label,
                record=f"line {number}",
                field=name,
                expected="a file of the edition",
                found="missing",
            )
            continue
        report.expect(
            "checksums",
            sha256_file(path) == digest,
            file=name,
            field="sha256",
            expected=digest,
            found=sha256_file(path),
        )


def check_published(edition_dir: Path, report: Report, index: Path | None = None) -> None:
    """Files recorded at publication still have their hashes, and every file an erratum names
    has the bytes the index of publications sealed with it (a log: its sealed bytes, followed by
    anything appended since). `index`: the index of publications (default: beside the edition).
    """
    paths = layout.EditionPaths(edition_dir)
    published_path = paths.published
    if not published_path.exists():
        return  # whether it must exist is verify/publication.py's question
    published = load_model(PublishedEdition, published_path)
    latest = _latest_line(edition_dir, index if index is not None else paths.index)
    held = (latest.entry.files if latest else None) or {}
    where = f"{layout.INDEX_NAME} line {latest.number}" if latest else layout.INDEX_NAME
    # Named by errata while no index line seals their bytes (no index beside the edition, or a
    # line recorded before lines sealed bytes): an erratum vouches for them, as it did before;
    # the next build seals them, and with no index the publication is anchored nowhere anyway.
    legacy = errata_files(edition_dir) if latest is None or latest.entry.files is None else set()
    category = "published files unchanged or corrected by an erratum"
    for name in sorted(set(published.files) | set(held)):
        if name in held:
            sealed = held[name]
            found = seal.held_digest(edition_dir / name, sealed, name)
            report.expect(
                category,
                found == sealed.sha256,
                file=name,
                field=f"sha256 (as sealed by the errata naming it, {where})",
                expected=sealed.sha256,
                found=found,
            )
            continue
        digest = published.files[name]
        found = published_digest(edition_dir / name, published.sizes.get(name), name)
        if found != digest and name in legacy:
            report.expect(category, True, file=name)
            report.notes.append(
                f"{name}: changed by an erratum, but no line of {layout.INDEX_NAME} seals its "
                "bytes yet (the next build seals them)"
            )
            continue
        report.expect(
            category,
            found == digest,
            file=name,
            field="sha256 (published.json)",
            expected=digest,
            found=found,
        )
    current = paths.results_current
    if current.exists() and layout.RESULTS_CURRENT not in held and not legacy:
        report.fail(
            category,
            file=layout.RESULTS_CURRENT,
            field=f"sealed by an erratum ({where})",
            expected="corrected figures whose bytes an erratum naming results.json sealed",
            found="no sealed erratum names results.json",
        )


def _latest_line(edition_dir: Path, index: Path) -> seal.IndexLine | None:
    try:
        mine = seal.for_edition(seal.read_index(index), edition_dir.name)
    except FileProblem:
        return None  # reported by verify/publication.py
    return mine[-1] if mine else None
