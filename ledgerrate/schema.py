"""The one schema for every file of an edition (DESIGN.md §4).

Every model forbids unknown fields, carries `schema_version`, and documents each field: these
docstrings become the published JSON Schemas that readers validate our files against.
Money is `Decimal` everywhere and serialises as a string so no cent is lost to floats.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SCHEMA_VERSION = 1

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
Usd = Annotated[Decimal, Field(description="US dollars, exact decimal (serialised as a string).")]


class Strict(BaseModel):
    """Base for every on-disk model: unknown fields are an error, never silently dropped."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


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


class ModelSpec(Strict):
    """One model under evaluation (or the reference baseline)."""

    id: Slug = Field(description="Our id for the model, used in paths and URLs.")
    name: str = Field(description="Human-readable name shown on pages.")
    provider: ProviderFamily = Field(description="API family of the adapter that calls it.")
    family: str = Field(
        description="Vendor family (e.g. `openai`, `anthropic`), used to disclose a judge of the "
        "same family."
    )
    api_model: str | None = Field(
        default=None, description="The model name sent to the provider's API."
    )
    base_url: str | None = Field(default=None, description="API base URL of the provider.")
    api_key_env: str | None = Field(
        default=None,
        pattern=r"^[A-Z][A-Z0-9_]*$",
        description="Name of the environment variable holding the API key (never the key).",
    )
    sampling: dict[str, Any] = Field(
        default_factory=dict,
        description="Sampling settings sent with every request (temperature 0 where supported).",
    )
    sampling_notes: str = Field(
        default="",
        description="Why the sampling settings are what they are (e.g. provider default).",
    )
    flagship: bool = Field(default=False, description="Marks the vendor's flagship model.")
    max_output_tokens: int = Field(default=4096, ge=1, description="Output token cap per call.")
    timeout_s: float = Field(default=120.0, gt=0, description="Per-request timeout in seconds.")
    concurrency: int = Field(default=4, ge=1, description="Per-model concurrent requests.")

    @model_validator(mode="after")
    def _api_fields(self) -> ModelSpec:
        if self.provider != ProviderFamily.baseline:
            missing = [k for k in ("api_model", "base_url", "api_key_env") if not getattr(self, k)]
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


class WorkloadEntry(Strict):
    """A workload version run in this edition."""

    id: WorkloadId
    n: int = Field(default=15, ge=1, description="Items per cell (standard §3: 15).")


class EditionManifest(Strict):
    """`edition.yaml`: what an edition runs, when, against which models."""

    schema_version: Literal[1] = SCHEMA_VERSION
    id: Slug = Field(description="Edition id, e.g. `2026-07`; its permanent URL segment.")
    date: dt.date = Field(description="Edition date printed on every card and chart footer.")
    title: str = Field(default="", description="Optional human title of the edition.")
    methodology_version: str = Field(
        pattern=r"^[0-9]+\.[0-9]+$", description="Methodology version used, e.g. `1.0`."
    )
    brand: str = Field(default="LedgerRate", description="Brand in the standard footer.")
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
    notes: list[str] = Field(default_factory=list, description="Methodology notes shown on pages.")

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


class ModelPrice(Strict):
    """Per-1M-token list prices for one model, frozen at window open."""

    input_per_mtok: Usd = Field(ge=0, description="$ per 1M uncached input tokens.")
    output_per_mtok: Usd = Field(ge=0, description="$ per 1M output tokens.")
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
    source_url: str = Field(description="Official price page the figures were read from.")
    retrieved_at: dt.datetime = Field(description="When the price page was read (UTC).")


class ComputePrice(Strict):
    """Price of compute for reference baselines, whose cost is CPU time, not tokens."""

    vcpu_hour_usd: Usd = Field(ge=0, description="$ per vCPU-hour.")
    source_url: str = Field(description="Where the compute price comes from.")
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


# --------------------------------------------------------------------------- run record


class Usage(Strict):
    """Provider-reported token usage, normalised across families.

    `input_tokens` excludes cached reads and cache writes, so the four input-side counts add
    up to everything sent; `reasoning_tokens` is a part of `output_tokens` (billed as output
    unless priced separately).
    """

    input_tokens: int = Field(default=0, ge=0, description="Uncached input tokens.")
    cached_input_tokens: int = Field(default=0, ge=0, description="Input tokens read from cache.")
    cache_write_tokens: int = Field(default=0, ge=0, description="Input tokens written to cache.")
    output_tokens: int = Field(default=0, ge=0, description="Output tokens, reasoning included.")
    reasoning_tokens: int = Field(default=0, ge=0, description="Reasoning part of output.")

    def __add__(self, other: Usage) -> Usage:
        return Usage(**{k: getattr(self, k) + getattr(other, k) for k in Usage.model_fields})

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.cached_input_tokens
            + self.cache_write_tokens
            + self.output_tokens
        )


class Cost(Strict):
    """Itemised cost of one call or one run: model spend and compute never mixed."""

    model_usd: Usd = Field(default=Decimal("0"), description="Token spend at frozen prices.")
    compute_usd: Usd = Field(default=Decimal("0"), description="CPU time × compute price.")

    @property
    def total_usd(self) -> Decimal:
        return self.model_usd + self.compute_usd

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            model_usd=self.model_usd + other.model_usd,
            compute_usd=self.compute_usd + other.compute_usd,
        )


class ToolCall(Strict):
    id: str = Field(description="Provider's tool-call id (or ours when it gives none).")
    name: str
    """Tool name."""
    arguments: dict[str, Any] = Field(description="Arguments as parsed JSON.")


class CallRecord(Strict):
    """One request to a provider and what came back."""

    step: int = Field(ge=0, description="Agent step (0 for single-shot).")
    started_at: dt.datetime
    """When the request was sent (UTC)."""
    latency_s: float = Field(ge=0)
    """Wall-clock seconds until the response (or error)."""
    http_status: int | None = None
    """HTTP status, null when no response arrived."""
    response: Any = Field(default=None, description="Raw provider JSON (or text if malformed).")
    error: str | None = Field(default=None, description="Error text, secrets removed.")
    usage: Usage = Field(default_factory=Usage)
    """Usage of this call, normalised."""
    usage_basis: UsageBasis = UsageBasis.provider_reported
    """Whether usage was reported by the provider or estimated."""
    cost: Cost = Field(default_factory=Cost)
    """Cost of this call at the frozen prices."""


class ToolResult(Strict):
    call: ToolCall
    """The tool call the model made."""
    ok: bool = Field(description="False when the tool refused or failed (the model saw why).")
    output: str = Field(description="Exactly what the model was shown.")


class AgentStep(Strict):
    step: int = Field(ge=0)
    """Step number, from 0."""
    text: str = Field(default="", description="Assistant text at this step.")
    tool_results: list[ToolResult] = Field(default_factory=list)
    """Tool calls made at this step and what they returned."""


class RunRecord(Strict):
    """One attempt of one item in one cell: a line of `runs/<workload>/<model>/<mode>.jsonl`."""

    schema_version: Literal[1] = SCHEMA_VERSION
    run_id: str = Field(pattern=r"^r-[0-9a-f]{16,64}$")
    """Deterministic id from edition, sitting, cell, item and attempt."""
    edition: Slug
    sitting: int = Field(ge=1, description="Sitting number; re-runs open a new one.")
    kind: Literal["registered", "reproduction"] = "registered"
    """`registered` for the edition's runs; `reproduction` is shown apart."""
    workload: WorkloadId
    model: Slug
    mode: Mode
    """`single-shot` or `agentic`."""
    item_id: Slug
    attempt: int = Field(ge=1, description="Attempt number; >1 only after infra exclusions.")
    started_at: dt.datetime
    """Attempt start (UTC)."""
    finished_at: dt.datetime
    """Attempt end (UTC)."""
    latency_s: float = Field(ge=0, description="Wall-clock seconds for the whole attempt.")
    status: RunStatus
    """`completed`, `model_failure` (a fail) or `infra_excluded` (re-run, never counted)."""
    failure: str | None = Field(default=None, description="Why it was not completed.")
    outside_window: bool = Field(default=False, description="Run with --allow-outside-window.")
    simulated: bool = Field(default=False, description="Never true for a published result.")
    dataset_hash: Sha256
    prompt_hash: Sha256 = Field(description="sha256 of the rendered prompt sent for this item.")
    request: dict[str, Any] = Field(description="First request body sent, secrets removed.")
    calls: list[CallRecord] = Field(default_factory=list)
    """Every provider call of the attempt, raw responses included."""
    steps: list[AgentStep] = Field(default_factory=list)
    """Agent steps with tool calls and results (agentic mode)."""
    answer: str | None = Field(default=None, description="Final answer text.")
    tool_state: dict[str, Any] | None = Field(
        default=None, description="End state of the agentic tools (e.g. journal entries)."
    )
    usage: Usage = Field(default_factory=Usage, description="Sum over calls.")
    usage_basis: UsageBasis
    """`provider_reported`, `estimated` (chars ÷ 4) or `none` (baselines)."""
    cost: Cost = Field(default_factory=Cost, description="Sum over calls (+ compute).")
    cost_basis: CostBasis
    """`measured` only when every call's usage was provider-reported; `compute` for baselines."""
    cpu_seconds: float | None = Field(
        default=None, description="Process CPU time (reference baselines)."
    )


# --------------------------------------------------------------------------- grade record


class Check(Strict):
    name: str = Field(description="Named check, e.g. `total_matches`.")
    passed: bool
    """Whether the check passed."""
    detail: str = Field(default="", description="What was expected and found.")


class JudgeBlock(Strict):
    """What the blinded judge said about one run. Its cost never enters CPO."""

    judge_model: Slug
    rubric_hash: Sha256
    anon_id: str = Field(description="Stable, meaningless id the judge saw.")
    score: float | None = Field(default=None, description="Overall score (e.g. 1–5).")
    scores: dict[str, float] = Field(default_factory=dict, description="Per criterion.")
    passed: bool | None = None
    """Whether the judged part passed under the rubric's rule."""
    rationale: str = ""
    """The judge's stated reasons."""
    usage: Usage = Field(default_factory=Usage)
    """Judge token usage."""
    cost: Cost = Field(default_factory=Cost)
    """Judge spend: grading cost, never in CPO."""
    second_opinion: JudgeBlock | None = Field(
        default=None, description="Second judge's grade (sensitivity sample)."
    )


class SpotcheckBlock(Strict):
    grader: str = Field(description="Pseudonymous human grader.")
    passed: bool
    """The human grader's verdict."""
    notes: str = ""
    """The human grader's notes."""
    imported_at: dt.datetime
    """When the human grade was imported (UTC)."""


class GradeRecord(Strict):
    """A line of `grades/<workload>/<model>/<mode>.jsonl`: one per completed run (revisioned)."""

    schema_version: Literal[1] = SCHEMA_VERSION
    run_id: str = Field(pattern=r"^r-[0-9a-f]{16,64}$")
    """The run this grades."""
    edition: Slug
    sitting: int = Field(ge=1)
    """Sitting of the graded run."""
    workload: WorkloadId
    model: Slug
    mode: Mode
    """Mode of the graded run."""
    item_id: Slug
    revision: int = Field(default=1, ge=1, description="Re-grades add a revision, never replace.")
    graded_at: dt.datetime
    """When this revision was graded (UTC)."""
    outcome: Outcome
    """`pass`, `fail`, or `pending_judge` (never counted as a pass)."""
    checks: list[Check]
    """Named deterministic checks; any failure fails the run."""
    diagnostics: dict[str, float | int | str | bool] = Field(default_factory=dict)
    """Diagnostic figures (e.g. field accuracy); never decide the outcome."""
    judge: JudgeBlock | None = None
    """The blinded judge's grade (judged workloads only)."""
    spotcheck: SpotcheckBlock | None = None
    """The human spot-check, when this run was sampled."""
    grader_hash: Sha256


# --------------------------------------------------------------------------- spot-checks


class SampleCell(Strict):
    population: int = Field(ge=0, description="Judged runs in the cell.")
    runs: list[str] = Field(description="Run ids drawn for human spot-checks.")


class SpotcheckSample(Strict):
    """`spotchecks/<workload>.sample.json`: the seeded ≥ 20% draw, recorded so it can be redrawn."""

    schema_version: Literal[1] = SCHEMA_VERSION
    workload: WorkloadId
    seed: int = Field(ge=0, description="Seed of the draw (one per workload per edition).")
    share: float = Field(gt=0, le=1, description="Share drawn per cell (at least 0.2).")
    drawn_at: dt.datetime = Field(description="When the sample was drawn (UTC).")
    cells: dict[str, SampleCell] = Field(description="`model/mode` → the cell's draw.")


class FlagCell(Strict):
    checked: int = Field(ge=0, description="Sampled runs with a human grade.")
    disagreements: int = Field(ge=0, description="Runs where judge and human disagree.")
    rate: float = Field(ge=0, le=1, description="disagreements ÷ checked.")
    sample_size: int = Field(ge=0, description="Runs the sample asked for.")
    flags: list[str] = Field(description="e.g. `full manual regrade required`.")


class SpotcheckFlags(Strict):
    """`spotchecks/<workload>.flags.json`: judge–human agreement per cell and the notes it
    adds to the edition's methodology."""

    schema_version: Literal[1] = SCHEMA_VERSION
    cells: dict[str, FlagCell] = Field(default_factory=dict, description="`model/mode` → tally.")
    notes: list[str] = Field(default_factory=list, description="Methodology notes to publish.")


# --------------------------------------------------------------------------- errata


class AffectedFigure(Strict):
    workload: WorkloadId | None = None
    """Workload of the affected figure (null for edition-wide)."""
    model: Slug | None = None
    """Model of the affected figure."""
    mode: Mode | None = None
    """Mode of the affected figure."""
    field: str = Field(description="Figure name, e.g. `cpo_usd`.")
    old: str = Field(description="The superseded value as published.")
    new: str | None = Field(description="The corrected value; null when withdrawn.")


class Erratum(Strict):
    id: str = Field(
        pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(-[0-9]+)?$",
        description="Permanent id, also the URL segment: date plus a counter.",
    )
    date: dt.date
    """Date of the correction."""
    title: str
    """One-line title."""
    what_changed: str
    """What was corrected."""
    why: str
    """Why it was wrong."""
    figures: list[AffectedFigure] = Field(default_factory=list)
    """Every figure the correction changes, old and new."""
    files: list[str] = Field(
        default_factory=list, description="Edition files the correction changed."
    )
    withdrawn: bool = Field(default=False, description="True when a figure is withdrawn.")

    @field_validator("id", mode="before")
    @classmethod
    def _date_like_id(cls, value: Any) -> Any:
        # YAML reads an unquoted `2026-07-01` as a date; the id is its text.
        return value.isoformat() if isinstance(value, dt.date) else value


class ErrataFile(Strict):
    """`errata.yaml`: dated, loud corrections."""

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug
    entries: list[Erratum] = Field(default_factory=list)
    """Corrections, oldest first."""

    @field_validator("entries")
    @classmethod
    def _unique(cls, entries: list[Erratum]) -> list[Erratum]:
        ids = [e.id for e in entries]
        if len(ids) != len(set(ids)):
            raise ValueError("erratum ids must be unique")
        return entries


# --------------------------------------------------------------------------- published.json


class PublishedEdition(Strict):
    """`published.json`: the content hash of an edition as first published."""

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug
    published_at: dt.datetime
    """When the edition was first published (UTC)."""
    files: dict[str, Sha256] = Field(description="Path (relative to the edition) → sha256.")
    sizes: dict[str, int] = Field(
        default_factory=dict,
        description="Path → size in bytes. Append-only logs may grow (new sittings, "
        "reproductions) but their first `size` bytes must still hash to the published sha256.",
    )
    errata_seen: list[str] = Field(default_factory=list, description="Errata ids accounted for.")


FILE_MODELS: dict[str, type[Strict]] = {
    "edition.yaml": EditionManifest,
    "pricing.yaml": PricingTable,
    "registration.json": Registration,
    "seeds.json": SeedFile,
    "card.json": DatasetCard,
    "run-record": RunRecord,
    "grade-record": GradeRecord,
    "errata.yaml": ErrataFile,
    "published.json": PublishedEdition,
    "spotcheck-sample": SpotcheckSample,
    "spotcheck-flags": SpotcheckFlags,
}


# --------------------------------------------------------------------------- results.json
# Written by `ledgerrate.metrics`, read by `ledgerrate.publish` and re-derived by `verify`.


class Interval(Strict):
    lo: Decimal | float | None = Field(description="Lower bound (null when undefined).")
    hi: Decimal | float | None = Field(description="Upper bound (null when undefined).")
    method: str = Field(description="e.g. `wilson-95`, `bootstrap-percentile-95`.")


class TokenTotals(Strict):
    input: int = 0
    """Uncached input tokens."""
    cached_input: int = 0
    """Cache-read input tokens."""
    cache_write: int = 0
    """Cache-write input tokens."""
    output: int = 0
    """Output tokens, reasoning included."""
    reasoning: int = 0
    """Reasoning tokens (part of output)."""


class CellResult(Strict):
    """Every figure of one cell (workload × model × mode) in its published sitting."""

    workload: WorkloadId
    model: Slug
    mode: Mode
    """Mode of the cell."""
    sitting: int = Field(ge=1, description="The published sitting.")
    other_sittings: int = Field(default=0, ge=0, description="Sittings kept but not published.")
    is_reference: bool = Field(description="A deterministic reference baseline, never ranked.")
    n: int = Field(ge=0, description="Items that count (completed + model failures).")
    completed: int = Field(ge=0)
    """Runs that completed."""
    model_failures: int = Field(ge=0)
    """Runs that failed through the model's output (count as fails)."""
    missing: int = Field(ge=0, description="Items with no counted attempt yet.")
    passes: int = Field(ge=0)
    """Runs graded pass (k)."""
    pending_judge: int = Field(ge=0, description="Runs whose judged part is still owed.")
    pass_rate: float | None = Field(description="passes ÷ n; null when nothing is graded.")
    pass_rate_ci: Interval | None
    """95% Wilson interval of the pass rate."""
    spend_usd: Usd = Field(description="Model + compute spend of every counted run.")
    cpo_usd: Usd | None = Field(description="spend ÷ passes; null = no successful outcome.")
    cpo_ci: Interval | None = Field(description="Bootstrap interval over items (seeded).")
    cpo_ci_dropped_share: float | None = None
    """Share of bootstrap resamples left out of `cpo_ci` because they held no pass (no CPO)."""
    cost_per_attempt_usd: Usd | None
    """Spend ÷ counted attempts."""
    tokens: TokenTotals
    """Token totals over counted runs."""
    latency_median_s: float | None
    """Median wall-clock seconds per run."""
    latency_p90_s: float | None
    """90th-percentile wall-clock seconds per run."""
    infra_excluded_attempts: int = Field(ge=0)
    """Attempts excluded for infrastructure errors (re-run)."""
    infra_excluded_usd: Usd
    grading_cost_usd: Usd = Field(description="Judge spend; never in CPO.")
    cost_basis: Literal["measured", "estimate", "compute", "mixed", "none"]
    """How the cost was obtained: `measured` only if every run was provider-reported."""
    qualifying: bool = Field(description="pass_rate ≥ 0.80 with every item graded.")
    void: bool = False
    """A void cell never enters a rate card, index or trendline."""
    void_reasons: list[str] = Field(default_factory=list)
    """Why the cell is void."""
    diagnostics: dict[str, float] = Field(default_factory=dict, description="Means over runs.")
    flags: list[str] = Field(default_factory=list, description="e.g. full manual regrade.")


class RateLine(Strict):
    """A priced line of the rate card: CPO × volume."""

    model: Slug
    model_name: str
    """Human-readable model name."""
    mode: Mode
    """Mode of the priced cell."""
    cpo_usd: Usd
    rate_usd: Usd = Field(description="CPO × the workload's volume, to the cent.")
    pass_rate: float
    """Pass rate of the priced cell."""
    pass_rate_ci: Interval
    """95% Wilson interval of that pass rate."""
    cost_basis: str
    """Cost basis of the priced cell."""


class RoutingVerdict(Strict):
    verdict: Literal["pass", "fail", "inconclusive", "not_applicable"]
    """`pass`, `fail`, `inconclusive` (always with a remedy) or `not_applicable`."""
    challenger: Slug | None = None
    """Cheapest qualifying model."""
    challenger_mode: Mode | None = None
    """Its mode."""
    incumbent: Slug | None = None
    """Flagship model it is compared with."""
    incumbent_mode: Mode | None = None
    """Its mode."""
    quality_diff_ci: Interval | None = Field(
        default=None, description="Paired bootstrap: challenger − incumbent pass rate."
    )
    saving_ci: Interval | None = Field(
        default=None, description="Paired bootstrap: relative cost saving per item."
    )
    margin: float = Field(default=0.10, description="Non-inferiority margin (rate units).")
    reason: str
    """Why the verdict is what it is."""
    remedy: str | None = Field(default=None, description="Always set when inconclusive.")


class WorkloadResult(Strict):
    workload: WorkloadId
    title: str
    """Workload title."""
    unit: str
    """Rate-card unit, e.g. `Process 1,000 invoices`."""
    volume: int
    """Items in the rate-card unit; rate = CPO × volume."""
    judged: bool
    """Whether a judge grades part of the outcome."""
    cells: list[CellResult]
    """Every cell of the workload."""
    cheapest_qualifying: RateLine | None
    """Lowest-CPO qualifying model; null when none qualifies."""
    flagship: RateLine | None = Field(description="Best-CPO flagship line (even if unqualified).")
    flagship_note: str | None = None
    """Note when the flagship does not qualify."""
    frontier_premium: float | None
    """Flagship CPO ÷ cheapest-qualifying CPO."""
    agentic_multiplier: dict[Slug, float | None] = Field(default_factory=dict)
    """Agentic CPO ÷ single-shot CPO per model."""
    reference: RateLine | None = Field(description="Reference baseline line, never ranked.")
    routing: RoutingVerdict
    """The routing verdict: cheapest qualifying vs flagship."""


class EditionResults(Strict):
    """`results.json`: every published figure of an edition, recomputable by `verify`."""

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug
    date: dt.date
    """Edition date."""
    methodology_version: str
    """Methodology version used."""
    brand: str
    """Brand in the footer."""
    reference_only: bool
    """True when no language model was called."""
    quality_bar: float = 0.8
    """Pass rate needed to qualify (the standard's 0.80)."""
    bootstrap_seed: int
    """Seed of every bootstrap interval (derived from the edition id)."""
    bootstrap_reps: int
    """Bootstrap resamples per interval."""
    workloads: list[WorkloadResult]
    """Results per workload."""


class TrendPoint(Strict):
    edition: Slug
    date: dt.date
    """Edition date."""
    workload: WorkloadId
    model: Slug
    mode: Mode
    """Mode."""
    cpo_usd: Usd | None
    """CPO in that edition; null = no successful outcome."""
    cpo_ci: Interval | None
    """Bootstrap interval of that CPO."""
    pass_rate: float | None
    """Pass rate in that edition."""
    is_reference: bool = False
    """A reference baseline's point: shown for scale, never ranked."""


FILE_MODELS["results.json"] = EditionResults
