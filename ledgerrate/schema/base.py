"""Shared parts of the schema: the strict base model, enums and constrained types."""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION: Final = 1

WorkloadId = Annotated[
    str,
    Field(
        pattern=r"^[a-z]+\.[a-z0-9-]+\.v[0-9]+$",
        description="Workload version id, e.g. `extract.invoice.v1`.",
    ),
]
Slug = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$",
        description="Identifier safe in a file name and a URL: letters, digits, `.`, `_`, `-`.",
    ),
]
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$", description="Lower-case hex sha256.")]
HashSchemeField = Annotated[
    Literal[1, 2],
    Field(
        description=(
            "Canonical-JSON scheme of this file's JSON hashes: 1 = Python json.dumps with "
            "sorted keys (editions sealed before scheme 2), 2 = RFC 8785 (JCS). Absent means 1."
        )
    ),
]
Usd = Annotated[Decimal, Field(description="US dollars, exact decimal (serialised as a string).")]


# The longest legitimate text is a model's answer or a tool's output inside a run record.
MAX_TEXT_CHARS = 2_000_000


class Strict(BaseModel):
    """Base for every on-disk model: unknown fields are an error, never silently dropped, and no
    text field holds more than `MAX_TEXT_CHARS` (a hostile file must not cost unbounded memory
    in every page, PDF and log that repeats it)."""

    model_config = ConfigDict(
        extra="forbid", use_attribute_docstrings=True, str_max_length=MAX_TEXT_CHARS
    )


# Enum values are spelled in kebab case (`single-shot`, `model-failure`, `pending-judge`) and
# cost bases as adjectives (`measured`, `estimated`). Files sealed before 2026-12 hold the old
# snake-case spellings; a sealed file is never rewritten, so each enum reads them as the member
# they always meant (`OLD_SPELLINGS`) and every new record is written in the one spelling.
# Kebab case was chosen because it changes the fewest sealed values: `single-shot` is in 393
# places in the bundled editions, in every log's file name, in every run id (derived from the
# mode's text) and in page anchors, while the snake-case values are in 89 (`pending_judge` 74,
# `not_applicable` 14, `model_failure` 1) and in no name, id, hash or URL.
OLD_SPELLINGS: Final[dict[str, dict[str, str]]] = {
    "RunStatus": {"model_failure": "model-failure", "infra_excluded": "infra-excluded"},
    "UsageBasis": {"provider_reported": "provider-reported"},
    "CostBasis": {"estimate": "estimated"},
    "CellCostBasis": {"estimate": "estimated"},
    "Outcome": {"pending_judge": "pending-judge"},
    "Verdict": {"not_applicable": "not-applicable"},
}


class Spelled(StrEnum):
    """A string enum that also reads the old spellings of its values (see `OLD_SPELLINGS`).

    Code compares members (`status == RunStatus.model_failure`), never literal strings, so a
    value read in either spelling meets the same comparison."""

    @classmethod
    def _missing_(cls, value: object) -> Spelled | None:
        renamed = OLD_SPELLINGS.get(cls.__name__, {}).get(value) if isinstance(value, str) else None
        return None if renamed is None else cls(renamed)


class Mode(Spelled):
    single_shot = "single-shot"
    agentic = "agentic"


class ProviderFamily(StrEnum):
    openai = "openai"
    anthropic = "anthropic"
    gemini = "gemini"
    baseline = "baseline"


class RunStatus(Spelled):
    completed = "completed"
    model_failure = "model-failure"
    infra_excluded = "infra-excluded"


class UsageBasis(Spelled):
    provider_reported = "provider-reported"
    estimated = "estimated"
    none = "none"


class CostBasis(Spelled):
    """How a run's cost was obtained."""

    measured = "measured"
    estimated = "estimated"
    compute = "compute"


class CellCostBasis(Spelled):
    """How a cell's cost was obtained: a run's basis, `mixed` or `none` (no runs)."""

    measured = "measured"
    estimated = "estimated"
    compute = "compute"
    mixed = "mixed"
    none = "none"


class Outcome(Spelled):
    passed = "pass"
    failed = "fail"
    pending_judge = "pending-judge"


class Verdict(Spelled):
    """A routing verdict."""

    passed = "pass"
    failed = "fail"
    inconclusive = "inconclusive"
    not_applicable = "not-applicable"
