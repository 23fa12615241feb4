"""`editions/site.yaml`: what the operator of a site says about it that no edition can know.

Who operates the site, how to reach them, and when the next edition is due are facts of the
operator's, not of any edition: the toolchain has no way to find them, so it shows what this
file states and, for each fact left out, says plainly that it is not stated. The file is
optional (without it every fact reads as not stated); its text is bounded like an edition's.
"""

from __future__ import annotations

import datetime as dt
import re

from pydantic import Field, field_validator

from ledgerrate.schema.base import Line, Note, Strict, Url

__all__ = ["SITE_FILE", "SiteFacts"]

SITE_FILE = "site.yaml"
_EMAIL = re.compile(r"^[^@\s<>\"']+@[^@\s<>\"']+\.[A-Za-z]{2,}$")
_HTTPS = re.compile(r"^https://[^\s<>\"']+$")


def _https(value: str | None, field: str) -> str | None:
    if value is not None and not _HTTPS.match(value):
        raise ValueError(f"{field} must be an https:// address, not {value[:80]!r}")
    return value


class SiteFacts(Strict):
    """`editions/site.yaml`, beside the edition folders: the operator's facts about the site."""

    operator: Line | None = Field(
        default=None,
        description="Who operates the site and answers for its figures (a person, team or "
        "organisation). Unset: the pages say the operator is not stated.",
    )
    operator_url: Url | None = Field(
        default=None, description="The operator's own page, an https:// address."
    )
    contact: Line | None = Field(
        default=None,
        description="How a reader reaches the operator: an e-mail address or an https:// "
        "address (an issue tracker, a contact form). Unset: the pages say no contact is stated.",
    )
    next_edition: dt.date | None = Field(
        default=None,
        description="The date the operator has set for the next edition. Unset: the pages say "
        "no date is stated.",
    )
    schedule: Note | None = Field(
        default=None,
        description="How often editions are published, in the operator's words (e.g. `each "
        "quarter`); shown beside the next edition's date or its absence.",
    )

    @field_validator("operator_url")
    @classmethod
    def _operator_url(cls, value: str | None) -> str | None:
        return _https(value, "operator_url")

    @field_validator("contact")
    @classmethod
    def _contact(cls, value: str | None) -> str | None:
        if value is not None and not (_EMAIL.match(value) or _HTTPS.match(value)):
            raise ValueError(
                f"contact must be an e-mail address or an https:// address, not {value[:80]!r}"
            )
        return value
