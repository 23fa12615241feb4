"""Is this the edition that was published? Anchors outside the folder: the index and --expect.

A folder on its own can always be made self-consistent (delete `published.json`, regenerate
`results.json`), so the checks here lean on what lives elsewhere: the append-only index of
publications beside the edition folders (or its lines carried inside a bundle), and a
publication digest the reader obtained from the site or an announcement (`--expect`).
"""

from __future__ import annotations

import datetime as dt

from ledgerrate.core import layout, seal
from ledgerrate.core.io import FileProblem, load_model
from ledgerrate.core.layout import EditionPaths
from ledgerrate.schema import EditionManifest, ErrataFile, Erratum, PublishedEdition
from ledgerrate.verify.report import Report

CATEGORY = "publication anchored outside the edition"


def check_publication(
    paths: EditionPaths,
    manifest: EditionManifest,
    report: Report,
    *,
    in_bundle: bool,
    expect: str | None,
    now: dt.datetime | None = None,
) -> None:
    index = paths.bundled_index if in_bundle else paths.index
    index_label = layout.INDEX_NAME if in_bundle else f"../{layout.INDEX_NAME}"
    try:
        lines = seal.read_index(index)
    except FileProblem as problem:
        for line in problem.lines:
            report.fail(CATEGORY, file=index_label, field="index", expected="valid", found=line)
        lines = []
    if not in_bundle:
        for number, text in seal.chain_problems(lines):
            report.fail(
                CATEGORY,
                file=index_label,
                record=f"line {number}",
                field="previous",
                expected="sha256 of the line before",
                found=text,
            )
    mine = seal.for_edition(lines, paths.id)
    published = seal.published_sha(paths.root)
    closed = (now or dt.datetime.now(dt.UTC)) >= manifest.window.closes
    has_results = paths.results.is_file()

    if published is None:
        _missing_published(report, mine, index_label, in_bundle, closed and has_results)
        if in_bundle and not has_results:
            report.fail(
                CATEGORY,
                file="results.json",
                field="file",
                expected="present: a bundle is made at publication",
                found="missing",
            )
        if expect is not None:
            report.fail(
                CATEGORY,
                file="published.json",
                field="publication digest (--expect)",
                expected=expect,
                found="no published.json to derive a digest from",
            )
        return
    errata = _errata(paths, report)
    heads = seal.chain(published, errata)
    _check_errata_seen(paths, errata, report)
    if mine:
        _check_sealed(mine[-1], index_label, published, errata, report)
        sealed = len(mine[-1].entry.errata)
        for entry in errata[sealed:]:
            report.notes.append(
                f"erratum {entry.id} is not sealed in {layout.INDEX_NAME} yet; the next build "
                "seals it"
            )
    elif lines or in_bundle:
        report.fail(
            CATEGORY,
            file=index_label,
            record=paths.id,
            field="edition",
            expected="a line for this published edition (build appends one at publication)",
            found="none",
        )
    else:
        report.notes.append(
            f"no {layout.INDEX_NAME} beside the edition: its publication is anchored nowhere "
            "here; check it against the digest on the site with --expect"
        )
    report.notes.append(
        f"publication digest: {heads[-1]} (published.json and {len(errata)} erratum/errata)"
    )
    if expect is not None:
        _check_expected(expect.strip().lower(), heads, errata, report)


def _missing_published(
    report: Report, mine: list[seal.IndexLine], index_label: str, in_bundle: bool, due: bool
) -> None:
    if mine:
        expected = f"present: {index_label} line {mine[0].number} records it as published"
    elif in_bundle:
        expected = "present: a bundle is made at publication"
    elif due:
        expected = "present: the window has closed and results.json was published"
    else:
        report.notes.append("no published.json: edition not yet published, immutability unchecked")
        return
    report.fail(CATEGORY, file="published.json", field="file", expected=expected, found="missing")


def _errata(paths: EditionPaths, report: Report) -> list[Erratum]:
    if not paths.errata.exists():
        return []
    try:
        return list(load_model(ErrataFile, paths.errata).entries)
    except FileProblem:
        return []  # reported by the schema check


def _check_errata_seen(paths: EditionPaths, errata: list[Erratum], report: Report) -> None:
    try:
        record = load_model(PublishedEdition, paths.published)
    except FileProblem:
        return  # reported by the schema check
    present = {e.id for e in errata}
    for erratum_id in record.errata_seen:
        report.expect(
            CATEGORY,
            erratum_id in present,
            file="errata.yaml",
            record=erratum_id,
            field="erratum",
            expected="present (published.json lists it in errata_seen)",
            found="removed",
        )


def _check_sealed(
    latest: seal.IndexLine,
    index_label: str,
    published: str,
    errata: list[Erratum],
    report: Report,
) -> None:
    entry = latest.entry
    where = f"{index_label} line {latest.number}"
    report.expect(
        CATEGORY,
        published == entry.published_json,
        file="published.json",
        field=f"sha256 ({where})",
        expected=entry.published_json,
        found=published,
    )
    problems = seal.sealed_problems(entry, errata)
    for erratum_id, text in problems:
        report.fail(
            CATEGORY,
            file="errata.yaml",
            record=erratum_id,
            field=f"sealed erratum ({where})",
            expected="unchanged: errata are append-only",
            found=text,
        )
    report.checked[CATEGORY] += len(entry.errata) - len(problems)
    if not problems and published == entry.published_json:
        digest = seal.chain(published, errata[: len(entry.errata)])[-1]
        report.expect(
            CATEGORY,
            digest == entry.digest,
            file=index_label,
            record=f"line {latest.number}",
            field="digest",
            expected=digest,
            found=entry.digest,
        )


def _check_expected(expect: str, heads: list[str], errata: list[Erratum], report: Report) -> None:
    if expect == heads[-1]:
        report.expect(CATEGORY, True, file="published.json", field="publication digest")
        return
    if expect in heads:
        later = [e.id for e in errata[heads.index(expect) :]]
        report.expect(CATEGORY, True, file="published.json", field="publication digest")
        report.notes.append(
            f"--expect {expect[:12]}… is this edition as published before erratum/errata "
            f"{', '.join(later)}, which were appended since"
        )
        return
    report.fail(
        CATEGORY,
        file="published.json",
        field="publication digest (--expect)",
        expected=expect,
        found=f"{heads[-1]} (no state of this edition has the expected digest)",
    )
