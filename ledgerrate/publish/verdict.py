"""What an edition found, in one or two plain sentences above its rate card and on its PDF.

A reader opening the card meets lines that read *none qualifies* or *withdrawn* long before
they can tell what the edition as a whole says. The verdict says it first, and it is built from
the same figures as the card (the figures as shown, withdrawn ones already gone), so it is true
of any edition: a card where every job has a rate, one where none has, and one with a
withdrawal.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ledgerrate.schema import CellResult, EditionManifest, EditionResults

_WITHDRAWN_BY = re.compile(r"^withdrawn: \S+ by erratum (\S+)$")


@dataclass(frozen=True)
class Verdict:
    """The finding, and what a reader can do with it; both plain text (escaped by each
    renderer its own way)."""

    finding: str
    next_step: str

    @property
    def text(self) -> str:
        return f"{self.finding} {self.next_step}"


def withdrawn_by(cell: CellResult) -> list[str]:
    """The errata that withdrew a figure of this cell, in the order first named."""
    found: list[str] = []
    for flag in cell.flags:
        match = _WITHDRAWN_BY.match(flag)
        if match and match.group(1) not in found:
            found.append(match.group(1))
    return found


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _names(names: list[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _graded(cell: CellResult) -> bool:
    return not cell.is_reference and not cell.void and cell.pass_rate is not None


def _none_rated(results: EditionResults, manifest: EditionManifest, bar: float) -> str:
    names = {m.id: m.name for m in manifest.models}
    language = [
        m
        for m in manifest.models
        if not m.is_reference
        and any(c.model == m.id and not c.is_reference for w in results.workloads for c in w.cells)
    ]
    if not language:
        return (
            "No model earned a rate in this edition: no language model was evaluated, only the "
            "deterministic reference baselines, which are shown for scale and never rated."
        )
    hosted = any(m.local is None for m in manifest.models if not m.is_reference)
    graded = [c for w in results.workloads for c in w.cells if _graded(c)]
    passes, runs = sum(c.passes for c in graded), sum(c.n for c in graded)
    if len(language) == 1:
        who = f"the only language model tested, {language[0].name},"
    else:
        who = f"the {len(language)} language models tested"
    text = f"No model earned a rate in this edition: {who} passed {passes:,} of {runs:,}"
    text += " graded runs"
    best = max(graded, key=lambda c: (c.pass_rate or 0.0, c.n), default=None)
    if best is not None and best.passes:
        title = next(w.unit for w in results.workloads if w.workload == best.workload)
        where = "below" if (best.pass_rate or 0.0) < bar else "at"
        text += (
            f"; the best cell, {names.get(best.model, best.model)} ({best.mode}) on "
            f"“{title}”, passed {best.passes} of {best.n}, {where} the quality bar of {bar:.2f}"
        )
        if where == "at":
            text += " but not yet qualifying"
    if not hosted:
        text += "; no hosted model was evaluated"
    return text + "."


def _reasons(reasons: list[str]) -> str:
    counted = Counter(r.split(":")[0] for r in reasons)
    return ", ".join(f"{n} {reason}" for reason, n in counted.items())


def _some_rated(
    results: EditionResults, cheapest: list[str], total: int, reasons: list[str]
) -> str:
    names = {w.cheapest_qualifying.model: w.cheapest_qualifying.model_name
             for w in results.workloads if w.cheapest_qualifying}  # fmt: skip
    rated = len(cheapest)
    if rated == total == 1:
        text = "The one job on this card has a rate: at least one model passed the quality bar."
    elif rated == total:
        text = f"Every job on this card has a rate: on each of the {total} jobs at least one model "
        text += "passed the quality bar."
    else:
        verb = "has" if rated == 1 else "have"
        rest = "has" if total - rated == 1 else "have"
        text = f"{rated} of the {total} jobs on this card {verb} a rate; the other "
        text += f"{total - rated} {rest} none ({_reasons(reasons)})."
    top, count = Counter(cheapest).most_common(1)[0]
    if count == rated and rated > 1:
        text += f" {names[top]} is the cheapest qualifying model on all {rated}."
    elif count > 1:
        text += f" {names[top]} is the cheapest qualifying model on {count} of the {rated}."
    elif rated > 1:
        text += " Each of them has a different cheapest qualifying model."
    else:
        text += f" Its cheapest qualifying model is {names[top]}."
    return text


def _withdrawals(results: EditionResults) -> str:
    by: dict[str, int] = {}
    for workload in results.workloads:
        for cell in workload.cells:
            for erratum in withdrawn_by(cell):
                by[erratum] = by.get(erratum, 0) + 1
    if not by:
        return ""
    named = _names(
        [f"erratum {e} withdrew the figures of {_plural(n, 'cell')}" for e, n in by.items()]
    )
    return f" {named[0].upper()}{named[1:]}; a withdrawn figure counts toward no line."


def edition_verdict(
    results: EditionResults,
    manifest: EditionManifest,
    reasons: list[str],
    *,
    provisional: bool = False,
) -> Verdict:
    """The verdict of one edition, from its figures as shown (withdrawn figures already gone);
    `reasons` are the card's words for its lines without a rate."""
    total = len(results.workloads)
    cheapest = [w.cheapest_qualifying.model for w in results.workloads if w.cheapest_qualifying]
    if cheapest:
        finding = _some_rated(results, cheapest, total, reasons)
        next_step = (
            "To price your own work, multiply a line's cost per item by your monthly volume "
            "(the calculator on the site does it); each job's page gives the detail and the "
            "sample behind each figure."
        )
    else:
        finding = _none_rated(results, manifest, results.quality_bar)
        next_step = (
            "Read this card as a record of what was tested, not as a price: each job's page says "
            "why no model qualified, and every figure can be checked from the published raw data."
        )
    finding += _withdrawals(results)
    if provisional:
        finding = f"So far (the edition's window is still open): {finding[0].lower()}{finding[1:]}"
    return Verdict(finding=finding, next_step=next_step)
