"""Results sealed before cells carried their re-pricing totals, compared with fresh figures.

`infra_excluded_tokens` and `time_priced` (ARCHITECTURE.md §5) were added to every cell after
the first editions were sealed. Their sealed `results.json` (and an erratum's
`results-current.json`) stay the bytes first published, so a comparison of today's figures with
such a file leaves the two totals out: they restate what the logs hold, decide no published
figure, and a file sealed before them cannot be asked to carry them. A file with any cell that
carries them is held to them in full.
"""

from __future__ import annotations

from ledgerrate.schema import EditionResults

REPRICING_TOTALS = ("infra_excluded_tokens", "time_priced")


def predates_repricing_totals(results: EditionResults) -> bool:
    """True for results whose cells carry none of the re-pricing totals (sealed before them)."""
    cells = [cell for workload in results.workloads for cell in workload.cells]
    return bool(cells) and all(
        getattr(cell, name) is None for cell in cells for name in REPRICING_TOTALS
    )


def without_repricing_totals(results: EditionResults) -> EditionResults:
    """The same figures with the re-pricing totals left out of every cell."""
    shown = results.model_copy(deep=True)
    for workload in shown.workloads:
        for cell in workload.cells:
            for name in REPRICING_TOTALS:
                setattr(cell, name, None)
    return shown


def in_format_of(fresh: EditionResults, published: EditionResults | None) -> EditionResults:
    """`fresh` as a file of `published`'s format holds it: without the re-pricing totals when
    `published` was sealed before them, else unchanged."""
    if published is not None and predates_repricing_totals(published):
        return without_repricing_totals(fresh)
    return fresh
