"""Prices frozen in time: no time in `pricing.yaml` after the window opened or after the
registration that sealed the table (standard §3).

An edition published with such a table cannot be repaired (the table's hash is sealed), only
disclosed: an erratum that lists `price-times` in `discloses` turns each problem into a disclosed
exception naming it. Without one, each is a mismatch.
"""

from __future__ import annotations

from ledgerrate.core.edition import Edition, price_time_problems
from ledgerrate.core.io import FileProblem, load_model
from ledgerrate.schema import ErrataFile
from ledgerrate.verify.report import Report

CHECK = "price-times"


def disclosing(edition: Edition, check: str) -> list[str]:
    """Ids of the edition's errata that disclose `check`'s defect (none when unreadable: the
    schema check reports an errata file that does not parse)."""
    path = edition.paths.errata
    if not path.exists():
        return []
    try:
        errata = load_model(ErrataFile, path)
    except FileProblem:
        return []
    return [entry.id for entry in errata.entries if check in entry.discloses]


def check_price_times(edition: Edition, report: Report) -> None:
    assert edition.registration is not None
    problems = price_time_problems(
        edition.pricing,
        edition.manifest.window.opens,
        edition.registration.registered_at,
        "pricing.yaml",
    )
    if not problems:
        report.checked["price times"] += 1
        return
    errata = disclosing(edition, CHECK)
    for problem in problems:
        field, found = problem.removeprefix("pricing.yaml: ").split(": ", 1)
        if errata:
            report.exceptions.append(f"{problem.split('; ')[0]} (erratum {', '.join(errata)})")
            continue
        report.fail(
            "price times",
            file="pricing.yaml",
            field=field,
            expected="no later than the window's opening and the registration",
            found=found.split("; ")[0],
        )
