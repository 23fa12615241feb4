"""Shared parts of the schema: the strict base model, enums and constrained types."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Final, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

SCHEMA_VERSION: Final = 1

WorkloadId = Annotated[
    str,
    Field(
        pattern=r"^[a-z]+\.[a-z0-9-]+\.v[0-9]+$",
        max_length=100,
        description="Workload version id, e.g. `extract.invoice.v1`.",
    ),
]
Slug = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$",
        max_length=80,
        description="Identifier safe in a file name and a URL: letters, digits, `.`, `_`, `-`.",
    ),
]
Sha256 = Annotated[
    str, Field(pattern=r"^[0-9a-f]{64}$", max_length=64, description="Lower-case hex sha256.")
]
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


def is_loopback(base_url: str | None) -> bool:
    """Whether `base_url` points at this machine (a self-hosted server: a key protects nothing).
    Here, with the models that validate a `base_url`, so the schema imports nothing above it."""
    if not base_url:
        return False
    host = urlsplit(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# The longest legitimate text is a model's answer or a tool's output inside a run record.
MAX_TEXT_CHARS = 2_000_000


# What an operator writes by hand in an edition file (edition.yaml, pricing.yaml, errata.yaml)
# is repeated on pages, cards, PDFs and every bundle, so each kind of text has its own bound,
# well above any real use and far below `MAX_TEXT_CHARS` (docs/operator-guide.md lists them).
MAX_LINE_CHARS = 300
"""A name or a one-line title: a model's name, an edition's or an erratum's title, a brand."""
MAX_URL_CHARS = 2_000
"""A URL (`base_url`, `source_url`): the length browsers and servers reliably accept."""
MAX_NOTE_CHARS = 4_000
"""A note of a paragraph or two: `notes`, `n_reason`, `sampling_notes`, an assumption."""
MAX_ACCOUNT_CHARS = 20_000
"""A full account: an erratum's `what_changed` and `why` (the longest bundled one is 3,271)."""

Line = Annotated[str, Field(max_length=MAX_LINE_CHARS)]
Url = Annotated[str, Field(max_length=MAX_URL_CHARS)]
Note = Annotated[str, Field(max_length=MAX_NOTE_CHARS)]
Account = Annotated[str, Field(max_length=MAX_ACCOUNT_CHARS)]


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
# they always meant (its `old=` spellings, all listed in `OLD_SPELLINGS`) and every new record is
# written in the one spelling. Kebab case was chosen because it changes the fewest sealed values:
# `single-shot` is in 393 places in the bundled editions, in every log's file name, in every run
# id (derived from the mode's text) and in page anchors, while the snake-case values are in 89
# (`pending_judge` 74, `not_applicable` 14, `model_failure` 1) and in no name, id, hash or URL.
_ONE_SPELLING = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class Spelled(StrEnum):
    """The one base of the schema's enums: string values in the one spelling (checked when the
    class is made), and the old spellings a class declares (`old=`) read as their members.

    Code compares members (`status == RunStatus.model_failure`), never literal strings, so a
    value read in either spelling meets the same comparison."""

    _old_spellings: ClassVar[dict[str, str]]  # an annotation only: not a member

    def __init_subclass__(cls, *, old: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for member in cls:
            if not _ONE_SPELLING.match(str(member.value)):
                raise TypeError(f"{cls.__name__}.{member.name}: {member.value!r} is not kebab case")
        renamed = dict(old or {})
        for was, now in renamed.items():
            if now not in cls._value2member_map_:
                raise TypeError(f"{cls.__name__}: old spelling {was!r} names no value {now!r}")
        cls._old_spellings = renamed

    @classmethod
    def _missing_(cls, value: object) -> Spelled | None:
        renamed = cls._old_spellings.get(value) if isinstance(value, str) else None
        return None if renamed is None else cls(renamed)


class Mode(Spelled):
    single_shot = "single-shot"
    agentic = "agentic"
    # The manual arm (ARCHITECTURE.md §12): an analyst's answers, recorded by `manual import`.
    # Never a mode a model runs in; no workload lists it among its `modes`.
    by_hand = "by-hand"


class ProviderFamily(Spelled):
    """The families spelled in sealed editions, as names code compares with. An edition may
    name any registered family (`ProviderName`); a new one adds no member here."""

    openai = "openai"
    anthropic = "anthropic"
    gemini = "gemini"


OLD_REFERENCE_PROVIDER: Final = "baseline"
"""How editions sealed before 2026-12-06 spell the reference solver: `provider: baseline`, as if
it were an API family. It is read as `solver: reference` (`ModelSpec`) and is never a family
(ARCHITECTURE.md §3)."""


# Family names registered by `ledgerrate.providers.families` (each family's module declares its
# own, ARCHITECTURE.md §10). The core cannot import the providers, so they register their names
# here; the sealed spellings above are always known, so a sealed edition parses without them.
_REGISTERED_FAMILIES: dict[str, None] = {}


def register_provider_family(name: str) -> None:
    """Make `name` a valid `provider:` (called by the providers' registry)."""
    if not _ONE_SPELLING.match(name):
        raise ValueError(f"provider family {name!r} is not kebab case")
    if name == OLD_REFERENCE_PROVIDER:
        raise ValueError(f"{name!r} is the reference solver's old spelling, not an API family")
    _REGISTERED_FAMILIES[name] = None


def unregister_provider_family(name: str) -> None:
    _REGISTERED_FAMILIES.pop(name, None)


def provider_families() -> tuple[str, ...]:
    """Every `provider:` an edition may spell: the sealed spellings, then registered ones."""
    return tuple(dict.fromkeys([*(f.value for f in ProviderFamily), *_REGISTERED_FAMILIES]))


def _known_family(value: str) -> str:
    if value not in provider_families():
        known = ", ".join(provider_families())
        raise ValueError(f"unknown provider family {value!r}; known families: {known}")
    return str(value)


class _FamiliesJsonSchema:
    """The JSON Schema of `provider`: an enum of the families known when it is exported."""

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        # The old spelling of the reference solver stays valid, so sealed files validate too.
        return {"type": "string", "enum": [*provider_families(), OLD_REFERENCE_PROVIDER]}


ProviderName = Annotated[str, AfterValidator(_known_family), _FamiliesJsonSchema()]


class RunStatus(
    Spelled, old={"model_failure": "model-failure", "infra_excluded": "infra-excluded"}
):
    completed = "completed"
    model_failure = "model-failure"
    infra_excluded = "infra-excluded"


class UsageBasis(Spelled, old={"provider_reported": "provider-reported"}):
    provider_reported = "provider-reported"
    estimated = "estimated"
    none = "none"


class CostBasis(Spelled, old={"estimate": "estimated"}):
    """How a run's cost was obtained."""

    measured = "measured"
    estimated = "estimated"
    compute = "compute"
    # A manual arm's record: no model spend; its cost is the analyst's time at the recorded
    # hourly rate plus the itemised tool lines of its sitting (`manual/<workload>/…`).
    manual = "manual"


class CellCostBasis(Spelled, old={"estimate": "estimated"}):
    """How a cell's cost was obtained: a run's basis, `mixed` or `none` (no runs)."""

    measured = "measured"
    estimated = "estimated"
    compute = "compute"
    mixed = "mixed"
    none = "none"
    manual = "manual"


class Outcome(Spelled, old={"pending_judge": "pending-judge"}):
    passed = "pass"
    failed = "fail"
    pending_judge = "pending-judge"


class Verdict(Spelled, old={"not_applicable": "not-applicable"}):
    """A routing verdict."""

    passed = "pass"
    failed = "fail"
    inconclusive = "inconclusive"
    not_applicable = "not-applicable"


# Every renamed value, by enum (the table on `methodology/1.0/versioning.md`).
OLD_SPELLINGS: Final[dict[str, dict[str, str]]] = {
    enum.__name__: dict(enum._old_spellings)
    for enum in (
        Mode,
        ProviderFamily,
        RunStatus,
        UsageBasis,
        CostBasis,
        CellCostBasis,
        Outcome,
        Verdict,
    )
    if enum._old_spellings
}
