"""What the runner and the grader write: run records, grade records, spot-check files."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, Literal

from pydantic import Field, model_validator

from ledgerrate.schema.base import (
    SCHEMA_VERSION,
    CostBasis,
    Mode,
    Outcome,
    RunStatus,
    Sha256,
    Slug,
    Strict,
    UsageBasis,
    Usd,
    WorkloadId,
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
    """Wall-clock seconds until the response (or error); see `latency_estimate`."""
    latency_estimate: str | None = Field(
        default=None,
        description="Set only when `latency_s` was not measured (a call whose answer was never "
        "recorded because its run was killed): how `latency_s` was bounded from the recorded "
        "clocks. `latency_s` is then that upper bound, never a zero, and a self-hosted model's "
        "call is priced from it like any other.",
        # Left out when unset, so records of measured calls read and write as before.
        exclude_if=lambda v: v is None,
    )
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
    billed_usd: Usd | None = Field(
        default=None,
        description="What the provider or gateway said this call cost, in USD, exactly as it "
        "reported it (LiteLLM's `x-litellm-response-cost` header, OpenRouter's `usage.cost`); "
        "null when it reported nothing. Never the call's cost, which is always usage × the "
        "frozen prices (`cost`): it is kept to reconcile each cell's computed spend with what "
        "was billed (`CellResult.billed`).",
        # Left out when unset, so records of providers that report no cost keep their bytes.
        exclude_if=lambda v: v is None,
    )
    redacted: bool = Field(
        default=False,
        description="The provider sent back an API key (an echoing proxy or gateway), and every "
        "occurrence of it in this call was replaced by `[redacted]` before it was written.",
        # Left out when false, so records with nothing to redact keep their bytes.
        exclude_if=lambda v: not v,
    )


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


class StoredRequest(Strict):
    """A request body whose long strings are kept once per edition, in `bodies/<sha256>.txt`.

    The item's prompt is the same for every model that ran it, and was ~95% of every record.
    `body` is the body sent with each moved string set to null; `moved` says where each went.
    `ledgerrate.run.bodies.restore` puts them back; the result is the exact body that was sent.
    """

    body: dict[str, Any] = Field(description="The body sent, each moved string set to null.")
    moved: dict[str, Sha256] = Field(
        description="JSON pointer (RFC 6901) in `body` → sha256 of the UTF-8 string stored at "
        "`bodies/<sha256>.txt` in the edition folder."
    )


class ServedModel(Strict):
    """The weights a self-hosted server ran (`ModelSpec.local`), so a reader can tell which file
    produced the answers: its sha256 is taken from the file the server was started with."""

    distribution: str = Field(description="Installed package that shipped the weights.")
    version: str = Field(description="Version of that package.")
    file: str = Field(description="The GGUF file inside the package.")
    sha256: Sha256 = Field(description="sha256 of the GGUF file's bytes.")
    runtime: str = Field(description="The server and its version, e.g. `llama-cpp-python 0.3.36`.")
    n_ctx: int = Field(ge=1, description="Context size the server was started with.")
    chat_format: str = Field(description="Chat format the server was started with.")


class RunSource(Strict):
    """Where an ingested record came from: a run by another harness, brought in by
    `ledgerrate ingest` under the same rules as `run` (window, registered model and price, item id
    and prompt hash, one record per item per sitting; cost recomputed from the frozen prices).

    Absent on records written by `ledgerrate run` itself.
    """

    harness: Literal["inspect_ai", "jsonl"] = Field(
        description="The harness whose log this record was read from: `inspect_ai` (an Inspect AI "
        "eval log) or `jsonl` (the run-record interchange format)."
    )
    harness_version: str | None = Field(
        default=None, description="The harness's version as its log states it (Inspect's)."
    )
    log_name: str = Field(description="File name of the ingested log (no folder).")
    log_sha256: Sha256 = Field(description="sha256 of the ingested log file's bytes.")
    eval_id: str | None = Field(default=None, description="The harness's id of the eval run.")
    task: str | None = Field(default=None, description="The harness's task name.")
    sample: str = Field(
        description="The sample within the log (Inspect: `<id>#<epoch>`; jsonl: `line <n>`); with "
        "`log_sha256` it makes ingesting the same log twice add nothing."
    )
    sample_uuid: str | None = Field(
        default=None,
        description="The harness's unique id of the sample (Inspect's `uuid`): an `eval-retry` "
        "log repeats the samples that had finished with the same uuid, which are then skipped as "
        "the attempts already ingested.",
        # Left out when unset, so records ingested before it keep their bytes.
        exclude_if=lambda v: v is None,
    )
    ingested_at: dt.datetime = Field(description="When `ledgerrate ingest` wrote it (UTC).")


class RunRecord(Strict):
    """One attempt of one item in one cell: a line of `runs/<workload>/<model>/<mode>.jsonl`.

    The request is held in one of two forms: whole in `request` (the form of the bundled
    editions and of every downloaded log), or as `request_stored` (logs written since), whose
    long strings live once in the edition's `bodies/` folder.
    """

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
    """`completed`, `model-failure` (a fail) or `infra-excluded` (re-run, never counted); sealed
    files may hold the old spellings `model_failure` and `infra_excluded`."""
    failure: str | None = Field(default=None, description="Why it was not completed.")
    outside_window: bool = Field(default=False, description="Run with --allow-outside-window.")
    simulated: bool = Field(default=False, description="Never true for a published result.")
    dataset_hash: Sha256
    prompt_hash: Sha256 = Field(description="sha256 of the rendered prompt sent for this item.")
    request: dict[str, Any] | None = Field(
        default=None, description="First request body sent, whole (null when `request_stored`)."
    )
    request_stored: StoredRequest | None = Field(
        default=None, description="First request body sent, its long strings kept in `bodies/`."
    )
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
    """`provider-reported`, `estimated` (chars ÷ 4) or `none` (baselines); old spelling
    `provider_reported`."""
    cost: Cost = Field(default_factory=Cost, description="Sum over calls (+ compute).")
    cost_basis: CostBasis
    """`measured` only when every call's usage was provider-reported, `estimated` when some was
    estimated (old spelling `estimate`), `compute` for baselines and self-hosted models."""
    cpu_seconds: float | None = Field(
        default=None, description="Process CPU time (reference baselines)."
    )
    served_model: ServedModel | None = Field(
        default=None,
        description="Self-hosted models only: the weights file the local server ran, with its "
        "sha256.",
        exclude_if=lambda v: v is None,
    )

    source: RunSource | None = Field(
        default=None,
        description="Ingested records only: the harness and log it was read from "
        "(`ledgerrate ingest`).",
        exclude_if=lambda v: v is None,
    )
    redacted: bool = Field(
        default=False,
        description="A provider sent back an API key (an echoing proxy or gateway), and every "
        "occurrence of it in this record (answer, steps, raw responses, tool state) was "
        "replaced by `[redacted]` before it was written; the answer graded is the redacted one.",
        # Left out when false, so records with nothing to redact keep their bytes.
        exclude_if=lambda v: not v,
    )

    @model_validator(mode="after")
    def _one_request_form(self) -> RunRecord:
        if (self.request is None) == (self.request_stored is None):
            raise ValueError("a run record holds exactly one of `request` and `request_stored`")
        return self


class ProbeRecord(Strict):
    """A line of `probes/<model>.jsonl`: the check, before a model's first agentic cell, that
    its endpoint really hands the tools to the model (a server may drop `tools` silently).

    Its spend is infrastructure: it is no item's attempt and never enters a cell's CPO.
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug
    model: Slug
    """The model probed."""
    kind: Literal["tools"] = Field(default="tools", description="What was probed.")
    started_at: dt.datetime
    """When the probe started (UTC)."""
    tools_received: bool = Field(description="Whether the tools were shown to reach the model.")
    evidence: str = Field(description="Why, in one line (token counts, a tool call).")
    calls: list[CallRecord] = Field(description="The probe's calls: without, then with a tool.")
    usage: Usage = Field(default_factory=Usage, description="Sum over calls.")
    cost: Cost = Field(default_factory=Cost, description="Infrastructure spend of the probe.")
    spend: Literal["infrastructure"] = Field(
        default="infrastructure", description="Whose spend this is: never a cell's."
    )


class AttemptStart(Strict):
    """A line of `runs/<workload>/<model>/<mode>.started`: one request about to leave.

    Written and fsynced before the request is sent, so a provider can never bill a request the
    edition does not know of: on resume, a start with no record is accounted as an
    infrastructure exclusion whose spend is estimated (the request's size and the output cap).
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    run_id: str = Field(pattern=r"^r-[0-9a-f]{16,64}$", description="The attempt's run id.")
    sitting: int = Field(ge=1, description="Sitting of the attempt.")
    item_id: Slug
    """Item of the attempt."""
    attempt: int = Field(ge=1, description="Attempt number.")
    call: int = Field(ge=0, description="Call number within the attempt (agent step).")
    started_at: dt.datetime
    """When the request was handed to the HTTP client (UTC)."""
    input_chars: int = Field(ge=0, description="Characters of prompt, messages and tool calls.")
    max_output_tokens: int = Field(ge=1, description="The model's output cap for the call.")


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
    latency_s: float | None = Field(
        default=None,
        ge=0,
        description="Measured wall time of the judge call, s: a self-hosted judge's cost is this "
        "× the instance price. Null in grades written before it was recorded.",
        # Left out when unset, so grade records written before it existed read back unchanged.
        exclude_if=lambda v: v is None,
    )
    cost: Cost = Field(default_factory=Cost)
    """Judge spend: grading cost, never in CPO."""
    request_sha256: Sha256 | None = Field(
        default=None,
        description="sha256 of what the judge was sent (system prompt with the rubric, the task "
        "material and the anonymised answer): `grade --regrade` carries this verdict forward "
        "only while it is unchanged. Null in grades written before it was recorded.",
        exclude_if=lambda v: v is None,
    )
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
    scope: Literal["sample", "regrade"] = Field(
        default="sample",
        description="`sample`: one of the seeded ≥ 20% spot-checks, which measure the judge's "
        "agreement; `regrade`: part of a full manual regrade of a cell whose disagreement "
        "exceeded 10%, whose verdicts replace the judge's once every judged run has one.",
    )


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
    """`pass`, `fail`, or `pending-judge` (never counted as a pass); old spelling
    `pending_judge`."""
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
