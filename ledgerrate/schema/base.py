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


class Mode(StrEnum):
    single_shot = "single-shot"
    agentic = "agentic"


class ProviderFamily(StrEnum):
    openai = "openai"
    anthropic = "anthropic"
    gemini = "gemini"
    baseline = "baseline"


class RunStatus(StrEnum):
    completed = "completed"
    model_failure = "model_failure"
    infra_excluded = "infra_excluded"


class UsageBasis(StrEnum):
    provider_reported = "provider_reported"
    estimated = "estimated"
    none = "none"


class CostBasis(StrEnum):
    measured = "measured"
    estimate = "estimate"
    compute = "compute"


class Outcome(StrEnum):
    passed = "pass"
    failed = "fail"
    pending_judge = "pending_judge"
