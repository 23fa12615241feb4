"""Seeds that outlive one machine: the escrow sealed at registration and the lost-seed statement.

The escrow is the edition's private seeds encrypted (age format) to the operators' public keys;
only its recipients and the ciphertext's sha256 are sealed in `registration.json`, so nothing
published lets anyone open a seed before release. When no copy can be opened any more, the
operator records `seeds-lost.json` instead of pretending: the commitments stand, unopened.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Final, Literal

from pydantic import Field

from ledgerrate.schema.base import SCHEMA_VERSION, Sha256, Slug, Strict, WorkloadId

ESCROW_FILE: Final = "seeds.escrow.age"

AgeRecipient = Annotated[
    str,
    Field(
        pattern=r"^age1[02-9ac-hj-np-z]{58}$",
        description="An age X25519 public key (`age1…`): whoever holds its identity can open "
        "the escrow.",
    ),
]


class SeedEscrow(Strict):
    """The edition's private seeds, encrypted at registration; sealed in `registration.json`."""

    file: Literal["seeds.escrow.age"] = Field(
        default=ESCROW_FILE, description="The ciphertext, committed in the edition folder."
    )
    format: Literal["age-v1-armored"] = Field(
        default="age-v1-armored",
        description="age v1 (age-encryption.org), ASCII-armored; opens with `age -d -i …` too.",
    )
    recipients: list[AgeRecipient] = Field(
        min_length=1, description="Public keys the seeds were encrypted to, in the order given."
    )
    sha256: Sha256 = Field(description="sha256 of the ciphertext file's bytes.")


class SeedLoss(Strict):
    """`seeds-lost.json`: a sealed, dated statement that an edition's seeds can no longer be
    opened. Written once and never rewritten; a later recovery releases `seeds.json` beside it."""

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug
    declared_at: dt.datetime = Field(description="When the loss was recorded (UTC).")
    reason: str = Field(
        min_length=1,
        max_length=2000,
        description="Why the seeds are lost, in the operator's words.",
    )
    tried: list[str] = Field(
        description="Every source of the seeds that was tried, and what it gave (no local paths)."
    )
    registration_sha256: Sha256 = Field(
        description="sha256 of the registration.json whose commitments stand unopened."
    )
    commitments: dict[WorkloadId, Sha256] = Field(
        description="The registered seed commitments that can no longer be opened."
    )
    statement: str = Field(description="The sentence every page and the bundle show.")


def loss_sentence(declared_on: dt.date, reason: str) -> str:
    """The one wording of a lost seed, shared by the file, the pages and `verify`."""
    return (
        f"seeds not released: lost on {declared_on.isoformat()} ({reason}); "
        "the commitments stand but can no longer be opened"
    )
