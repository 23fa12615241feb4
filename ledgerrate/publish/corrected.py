"""`results-corrected.json`: the sealed figures with every erratum applied and marked.

`results.json` is sealed at first publication and never rewritten, so a reader who downloads
it gets the figures as first published, withdrawn ones included. This file is its corrected
companion: the figures as the site shows them (withdrawn figures null, their cells flagged),
and a list naming each withdrawn or changed figure with its erratum and its sealed value.
"""

from __future__ import annotations

import json
from typing import Any

from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.publish.load import Edition
from ledgerrate.schema import (
    AffectedFigure,
    CorrectedResults,
    EditionResults,
    FigureCorrection,
)

FILENAME = "results-corrected.json"


def _sealed_value(sealed: EditionResults | None, fig: AffectedFigure) -> Any:
    """The figure in the sealed file, when the erratum names one cell's figure."""
    if sealed is None or fig.workload is None or fig.model is None:
        return None
    for workload in sealed.workloads:
        if workload.workload != fig.workload:
            continue
        cells = [
            c
            for c in workload.cells
            if c.model == fig.model and (fig.mode is None or c.mode == fig.mode)
        ]
        if len(cells) == 1 and fig.field in type(cells[0]).model_fields:
            # A field the serialiser leaves out when empty (grading cost by revision) was
            # absent from a file sealed before it existed: nothing was published for it.
            return cells[0].model_dump(mode="json").get(fig.field)
    return None


def corrected_results(edition: Edition, sealed_bytes: bytes | None) -> CorrectedResults:
    sealed = EditionResults.model_validate_json(sealed_bytes) if sealed_bytes is not None else None
    entries = edition.errata.entries if edition.errata else []
    corrections = [
        FigureCorrection(
            workload=fig.workload,
            model=fig.model,
            mode=fig.mode,
            field=fig.field,
            status="withdrawn" if fig.new is None else "corrected",
            erratum=entry.id,
            erratum_date=entry.date,
            as_published=_sealed_value(sealed, fig),
            published_text=fig.old,
            corrected_text=fig.new,
        )
        for entry in entries
        for fig in entry.figures
    ]
    return CorrectedResults(
        edition=edition.id,
        sealed_sha256=sha256_bytes(sealed_bytes) if sealed_bytes is not None else None,
        errata=[e.id for e in entries],
        corrections=corrections,
        results=edition.results,
    )


def corrected_json(edition: Edition, sealed_bytes: bytes | None) -> bytes:
    doc = corrected_results(edition, sealed_bytes).model_dump(mode="json")
    return (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
