"""`released/manifest.json`: the files of an edition's released datasets, stored once.

Written by `ledgerrate seeds release` beside the files it lists (`released/<workload>/…`); `build`
publishes those bytes after checking them against it, and `verify` regenerates every one of them
from the released seed and compares them byte for byte (ARCHITECTURE.md §4, §9).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from ledgerrate.schema.base import SCHEMA_VERSION, Sha256, Slug, Strict, WorkloadId


def _no_dot_segment(path: str) -> str:
    if any(part in {".", ".."} for part in path.split("/")):
        raise ValueError("a stored path has no `.` or `..` segment")
    return path


# A path inside `released/<workload>/`: plain names joined by `/`, never `..` nor absolute, so a
# hostile manifest can name no file outside its workload's folder.
StoredPath = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$",
        max_length=300,
        description="Path of the file inside `released/<workload>/`, `/`-separated, no `..`.",
    ),
    AfterValidator(_no_dot_segment),
]


class StoredFile(Strict):
    """One stored file: what its bytes must hash to."""

    sha256: Sha256
    size: int = Field(ge=0, description="Size in bytes.")


class RenderedBy(Strict):
    """What rendered a dataset's stored files."""

    toolchain_version: str = Field(
        max_length=80, description="Version of the ledgerrate package that rendered the files."
    )
    python: str = Field(max_length=80, description="Python version that rendered the files.")
    # A byte mismatch at `verify` names the entries that differ on the verifying machine.
    stack: dict[Annotated[str, Field(max_length=80)], Annotated[str, Field(max_length=80)]] = Field(
        description="Versions of the PDF renderer, of every distribution it requires and of "
        "the system's text layout library (pango, which picks the fonts through "
        "fontconfig): what shapes a PDF's bytes."
    )


class ReleasedDataset(Strict):
    """The files of one released dataset, as published in `data/<edition>/datasets/<workload>/`."""

    dataset_hash: Sha256 = Field(
        description="The registered dataset hash; `dataset.json` among the files hashes to it."
    )
    rendered_by: RenderedBy = Field(description="What rendered the files.")
    files: dict[StoredPath, StoredFile] = Field(
        description="Every file of the dataset: `dataset.json` (its hashed content in canonical "
        "JSON) and each item's files (`item-01/invoice.pdf`), including those rendered on "
        "demand from the item's text (the board packs' PDFs), which no registered hash covers."
    )


class ReleasedFiles(Strict):
    """The manifest of an edition's stored released datasets (`released/manifest.json`)."""

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug
    datasets: dict[WorkloadId, ReleasedDataset] = Field(
        description="Each released dataset stored, by workload."
    )
