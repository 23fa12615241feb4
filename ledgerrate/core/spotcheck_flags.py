"""The spot-check flags an edition holds, read for the stages that show them (standard §5.3).

`grade/spotcheck.py` writes `spotchecks/<workload>.flags.json`; metrics marks the flagged cells
and the site prints the methodology notes. They read the files here, through `EditionPaths`,
so neither imports the grading stage to find them."""

from __future__ import annotations

from pathlib import Path

from ledgerrate.core.io import load_model
from ledgerrate.core.layout import EditionPaths
from ledgerrate.schema import SpotcheckFlags

Cell = tuple[str, str, str]  # workload, model, mode


def flags_for(edition_dir: Path) -> dict[Cell, list[str]]:
    """Flags per cell (e.g. "full manual regrade required") from every workload's flags file."""
    found: dict[Cell, list[str]] = {}
    for workload, path in EditionPaths(Path(edition_dir)).spotcheck_flag_files().items():
        for key, cell in load_model(SpotcheckFlags, path).cells.items():
            if cell.flags:
                model, mode = key.split("/", 1)
                found[(workload, model, mode)] = list(cell.flags)
    return found


def methodology_notes(edition_dir: Path) -> list[str]:
    """Notes the site shows with the edition's methodology (one per flagged cell)."""
    notes: list[str] = []
    for path in EditionPaths(Path(edition_dir)).spotcheck_flag_files().values():
        notes += load_model(SpotcheckFlags, path).notes
    return notes
