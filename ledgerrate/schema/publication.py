"""What publishing writes and reads back: errata, published.json, results.json, trend points."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, Literal

from pydantic import Field, field_validator

from ledgerrate.schema.base import (
    SCHEMA_VERSION,
    Account,
    CellCostBasis,
    Line,
    Mode,
    Sha256,
    Slug,
    Strict,
    Usd,
    Verdict,
    WorkloadId,
)
from ledgerrate.schema.manual import ManualArm

# --------------------------------------------------------------------------- errata


class AffectedFigure(Strict):
    workload: WorkloadId | None = None
    """Workload of the affected figure (null for edition-wide)."""
    model: Slug | None = None
    """Model of the affected figure."""
    mode: Mode | None = None
    """Mode of the affected figure."""
    field: Line = Field(description="Figure name, e.g. `cpo_usd`.")
    old: Line = Field(description="The superseded value as published.")
    new: Line | None = Field(description="The corrected value; null when withdrawn.")


class Erratum(Strict):
    id: Line = Field(
        pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(-[0-9]+)?$",
        description="Permanent id, also the URL segment: date plus a counter.",
    )
    date: dt.date
    """Date of the correction."""
    title: Line
    """One-line title."""
    what_changed: Account
    """What was corrected."""
    why: Account
    """Why it was wrong."""
    figures: list[AffectedFigure] = Field(default_factory=list)
    """Every figure the correction changes, old and new."""
    files: list[Line] = Field(
        default_factory=list, description="Edition files the correction changed."
    )
    withdrawn: bool = Field(default=False, description="True when a figure is withdrawn.")
    discloses: list[Literal["price-times"]] = Field(
        default_factory=list,
        description="Defects of the edition's sealed files that this erratum discloses rather "
        "than repairs, by the `verify` check that finds them (`price-times`: a price table "
        "frozen, or a price read, after the window opened or after the registration). `verify` "
        "reports such a defect as a disclosed exception naming this erratum, never as passed.",
        # Left out when empty, so errata written before it existed keep their hash.
        exclude_if=lambda v: not v,
    )

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


# --------------------------------------------------------------------------- publications.jsonl


class SealedErratum(Strict):
    """An erratum as it was when a build sealed it: its id and the digest of its content."""

    id: str = Field(description="The erratum's permanent id.")
    sha256: Sha256 = Field(description="sha256 of the erratum's canonical JSON.")


class SealedFile(Strict):
    """The bytes of a file an erratum names, as the build that sealed the erratum found them."""

    sha256: Sha256 = Field(description="sha256 of the file's bytes.")
    size: int = Field(
        ge=0,
        description="Its size in bytes. A log (`.jsonl`) is append-only: it may grow, but its "
        "first `size` bytes must still hash to `sha256`; any other file must match whole.",
    )


class PublicationEntry(Strict):
    """A line of `editions/publications.jsonl`, the append-only index of publications.

    `build` appends one line when it first publishes an edition and one more each time it seals
    newly appended errata. The edition's publication digest is a chain: it starts at
    sha256 of `published.json` and each erratum, in order, extends it, so a digest a reader
    noted at any time stays checkable after later corrections (`verify --expect`).
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug
    recorded_at: dt.datetime
    """When this build sealed the state (UTC)."""
    published_json: Sha256 = Field(description="sha256 of the edition's published.json.")
    errata: list[SealedErratum] = Field(
        default_factory=list, description="Every erratum sealed so far, oldest first."
    )
    digest: Sha256 = Field(description="Publication digest: the chain head over those errata.")
    files: dict[str, SealedFile] | None = Field(
        default=None,
        description="Every edition file named by an erratum sealed so far (`results.json` "
        "stands for the figures, `results-current.json`), with the sha256 and size of its "
        "bytes when this line was recorded: each named file is held to its latest sealed "
        "bytes. Absent on lines recorded before errata sealed bytes.",
    )
    previous: Sha256 | None = Field(
        description="sha256 of the index's previous line (null on the first): the index is a "
        "chain too, so a line cannot be removed or edited without breaking every later one."
    )


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


class TimePriced(Strict):
    """What a cell priced by time, not tokens, was costed from: seconds × an hourly rate.

    A self-hosted model's call costs its measured server time × the instance's hourly price; a
    reference baseline's run costs its CPU time × the vCPU-hour price. Each call (or run) is
    rounded to 1e-12 USD when it is recorded, so `rounding_usd` carries what those roundings
    added: re-priced at a rate R, the counted spend is `seconds × R ÷ 3600` rounded half-even
    to 1e-12 USD, plus `rounding_usd` (exactly `spend_usd` at `hour_usd`).
    """

    basis: Literal["self-hosted", "compute", "manual"] = Field(
        description="`self-hosted`: server time × the instance price (`pricing.yaml` "
        "`self_hosted`); `compute`: a reference baseline's CPU time × `compute.vcpu_hour_usd`; "
        "`manual`: the analyst's stopwatch seconds × the recorded hourly rate (ARCHITECTURE.md "
        "§12), rounded once over the counted items, so `rounding_usd` is 0."
    )
    hour_usd: Usd = Field(description="The frozen hourly rate the spend was computed with.")
    seconds: Decimal = Field(
        description="Seconds behind the counted spend: each priced call's (or run's) seconds "
        "rounded to 6 decimals, as costed, summed exactly."
    )
    rounding_usd: Decimal = Field(
        description="`spend_usd` − (`seconds` × `hour_usd` ÷ 3600, rounded half-even to 1e-12 "
        "USD): what rounding each call's cost to 1e-12 USD added, at most half of 1e-12 a call."
    )
    infra_excluded_seconds: Decimal = Field(
        description="The same seconds over the infra-excluded attempts (`infra_excluded_usd`)."
    )
    infra_excluded_rounding_usd: Decimal = Field(
        description="`infra_excluded_usd` − (`infra_excluded_seconds` × `hour_usd` ÷ 3600, "
        "rounded half-even to 1e-12 USD)."
    )
    # A manual cell only; left out of the dump when unset so cells priced by server or CPU
    # time, and the sealed results.json files holding them, keep their bytes.
    fixed_usd: Decimal | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="A manual cell only: its known tool lines summed, which do not scale with "
        "the hourly rate; the counted spend is the time line + `rounding_usd` + this.",
    )
    unknown_lines: list[str] = Field(
        default_factory=list,
        exclude_if=lambda v: not v,
        description="A manual cell only: its cost lines whose amount is unknown (e.g. `tool: "
        "SQL client`). While any is listed the cell's cost, and so its CPO, is unknown at any "
        "hourly rate; `spend_usd` then counts the known lines only.",
    )


class JudgeProtocol(Strict):
    """How far a judged cell meets the judged-task protocol (standard §5), from its grades.

    Present on every cell of a judged workload in an edition that names a judge (with 0 judged
    runs when none has a verdict yet), and otherwise on a cell at least one of whose runs has a
    judge's verdict.
    """

    judged_runs: int = Field(ge=0, description="Counted runs that carry a judge's verdict.")
    spotchecked: int = Field(
        ge=0, description="Judged runs with a human spot-check verdict from the seeded sample."
    )
    spotcheck_required: int = Field(
        ge=0, description="Spot-checks the standard asks for: 20% of judged runs, rounded up."
    )
    disagreements: int = Field(ge=0, description="Spot-checked runs where human and judge differ.")
    agreement: float | None = Field(
        default=None, description="Share of spot-checked runs where human and judge agree."
    )
    agreement_ci: Interval | None = Field(
        default=None, description="95% Wilson interval of `agreement`."
    )
    manual_regrade: Literal["not_required", "required", "done"] = Field(
        default="not_required",
        description="`required` when disagreement exceeds 10% (§5.3); `done` once every judged "
        "run has a human verdict, which then replaces the judge's in the outcome.",
    )
    human_graded: int = Field(
        default=0, ge=0, description="Judged runs with any human verdict (sample or regrade)."
    )
    second_judge_required: bool = Field(
        default=False,
        description="The judge shares a vendor family with this model (§5.4): a second judge "
        "must grade a sample of its runs.",
    )
    second_judge_checked: int = Field(
        default=0, ge=0, description="Judged runs the second judge also graded."
    )
    second_judge_agreement: float | None = Field(
        default=None, description="Share of those where both judges agree on pass/fail."
    )
    second_judge_agreement_ci: Interval | None = Field(
        default=None, description="95% Wilson interval of `second_judge_agreement`."
    )
    missing: list[str] = Field(
        default_factory=list,
        description="Each §5 condition the cell does not meet yet; empty when it meets them all. "
        "A cell qualifies only with none missing.",
    )


class RevisionGradingCost(Strict):
    """Judge spend paid while grading one cell under one grade revision."""

    revision: int = Field(ge=1, description="The grade revision (`grade --regrade` adds one).")
    judge_calls: int = Field(
        ge=1, description="Judge calls paid in it (a second opinion is a call of its own)."
    )
    usd: Usd = Field(description="What those calls cost; a verdict carried forward is not paid.")


class BilledCheck(Strict):
    """A cell's computed spend reconciled with what the provider billed, where it reported it
    per call (`CallRecord.billed_usd`: a gateway's `x-litellm-response-cost`, OpenRouter's
    `usage.cost`). The cell's spend is always computed from usage × the frozen prices; this says
    how that computation compares with the bill, never replaces it."""

    calls: int = Field(ge=0, description="Calls of the cell's counted runs.")
    calls_billed: int = Field(ge=0, description="Of those, calls whose reply stated its cost.")
    billed_usd: Usd = Field(description="Sum of the stated costs, as reported.")
    computed_usd: Usd = Field(
        description="Model spend LedgerRate computed (usage × frozen prices) for those same calls."
    )
    difference_usd: Usd = Field(description="billed_usd − computed_usd (signed).")
    basis: Literal["reconciled", "partly-reconciled"] = Field(
        description="`reconciled` when every counted call stated its cost, so the whole "
        "computed model spend was checked against the bill; `partly-reconciled` when only some "
        "did (calls without a reply, or a provider that stated no cost on some)."
    )
    agrees: bool = Field(
        description="|difference_usd| ≤ $0.000000001 per billed call: the bill and the "
        "computation agree but for the rounding of the double the provider sent."
    )


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
    truncated: int = Field(
        default=0, ge=0, description="Model failures cut off at the output cap (`truncated`)."
    )
    context_exceeded: int = Field(
        default=0,
        ge=0,
        description="Model failures whose request did not fit the model's context.",
    )
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
    """Token totals over counted runs: the usage each run's spend was priced from (a
    token-priced model's `spend_usd` is these × its frozen per-million prices, exactly)."""
    latency_median_s: float | None
    """Median wall-clock seconds per run."""
    latency_p90_s: float | None
    """90th-percentile wall-clock seconds per run."""
    infra_excluded_attempts: int = Field(ge=0)
    """Attempts excluded for infrastructure errors (re-run)."""
    infra_excluded_usd: Usd
    infra_excluded_tokens: TokenTotals | None = Field(
        default=None,
        description="Token totals over the infra-excluded attempts, apart from `tokens` as "
        "their spend is apart from `spend_usd`: what `infra_excluded_usd` was priced from. "
        "Absent in results sealed before cells carried re-pricing totals.",
        # Left out when unset, so results sealed before it existed read back unchanged.
        exclude_if=lambda v: v is None,
    )
    time_priced: TimePriced | None = Field(
        default=None,
        description="For a cell priced by time (a self-hosted model, a reference baseline): "
        "the seconds and the hourly rate behind its spend, so a reader can re-price it; absent "
        "for a token-priced cell and in results sealed before cells carried it.",
        exclude_if=lambda v: v is None,
    )
    infra_excluded_unpriced_calls: int = Field(
        default=0,
        ge=0,
        description="Calls of the infra-excluded attempts whose server time was never recorded "
        "nor bounded (unfinished calls written before their bound was recorded): a self-hosted "
        "model's spend on them is unknown, so `infra_excluded_usd` is not their spend and is "
        "shown as unknown, never as $0.",
        # Left out when none, so results without such calls read back unchanged.
        exclude_if=lambda v: not v,
    )
    grading_cost_usd: Usd = Field(
        description="Judge spend of the grades the figures rest on (each counted run's latest "
        "revision); never in CPO."
    )
    grading_cost_by_revision: list[RevisionGradingCost] = Field(
        default_factory=list,
        description="Every judge call paid for the cell's grades, by grade revision, earlier "
        "revisions and runs that do not count included: all grading spend, never in CPO. A "
        "judge block a later revision carries forward unchanged is counted once, where paid.",
        # Left out when empty (no judge was ever called), so results without a judge read back
        # unchanged.
        exclude_if=lambda v: not v,
    )
    cost_basis: CellCostBasis
    """How the cost was obtained: `measured` only if every run was provider-reported,
    `estimated` if any usage was estimated, `compute` for a reference baseline, else `mixed`;
    `none` without runs. Sealed files may say `estimate` (the old spelling of `estimated`)."""
    billed: BilledCheck | None = Field(
        default=None,
        description="The spend reconciled with what the provider billed (calls whose reply "
        "stated its cost); null when no counted call stated one.",
        # Left out when unset, so results of providers that state no cost read back unchanged.
        exclude_if=lambda v: v is None,
    )
    qualifying: bool = Field(
        description="pass_rate ≥ 0.80 with every item graded and, for a judged cell, every "
        "condition of the judged-task protocol met (`judge_protocol.missing` empty)."
    )
    void: bool = False
    """A void cell never enters a rate card, index or trendline."""
    void_reasons: list[str] = Field(default_factory=list)
    """Why the cell is void."""
    diagnostics: dict[str, float] = Field(default_factory=dict, description="Means over runs.")
    flags: list[str] = Field(default_factory=list, description="e.g. full manual regrade.")
    judge_protocol: JudgeProtocol | None = Field(
        default=None,
        description="The judged-task protocol's state (§5): spot-checks, judge–human and "
        "second-judge agreement, what is missing; null when no run has a judge's verdict.",
    )
    # ----- the manual arm (ARCHITECTURE.md §12); its own block, left out of model cells' dump
    manual: ManualArm | None = Field(
        default=None,
        description="A manual (by-hand) cell only: the analyst's role, timing statement, hours, "
        "hourly rate and basis and the itemised cost. Such a cell is never ranked.",
        # Left out when unset, so results.json files sealed before it validate and hash unchanged.
        exclude_if=lambda v: v is None,
    )


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
    cost_basis: CellCostBasis
    """Cost basis of the priced cell."""


class FlagshipPremium(Strict):
    """The frontier premium of one vendor's flagship on one workload (standard §2.2)."""

    model: Slug
    """The flagship model."""
    vendor: str
    """Its vendor family (the edition's `family`)."""
    line: RateLine | None = None
    """Its own priced cell: the lowest-CPO qualifying one, else its lowest-CPO one; null when
    it has no CPO (no usable cell or no successful outcome)."""
    qualifying: bool
    """Whether that cell qualifies (pass rate ≥ the bar with every item graded)."""
    premium: float | None = None
    """Its CPO ÷ the cheapest-qualifying CPO; null when either is undefined."""
    note: str | None = None
    """Why there is no premium, or what qualifies it (not qualifying, itself the cheapest)."""


class RoutingVerdict(Strict):
    verdict: Verdict
    """`pass`, `fail`, `inconclusive` (always with a remedy) or `not-applicable` (sealed files
    may say `not_applicable`, its old spelling)."""
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
    flagship: RateLine | None = Field(
        description="The headline flagship: the lowest-CPO qualifying flagship, else the "
        "lowest-CPO flagship (then labelled by `flagship_note`)."
    )
    flagship_note: str | None = None
    """Note when the flagship does not qualify."""
    frontier_premium: float | None
    """The headline: the headline flagship's CPO ÷ cheapest-qualifying CPO."""
    flagship_premiums: list[FlagshipPremium] = Field(default_factory=list)
    """One premium per flagship model, headline flagship first (absent in results published
    before per-flagship premiums, which had at most an empty list to show)."""
    agentic_multiplier: dict[Slug, float | None] = Field(default_factory=dict)
    """Agentic CPO ÷ single-shot CPO per model."""
    reference: RateLine | None = Field(description="Reference baseline line, never ranked.")
    routing: RoutingVerdict
    """The routing verdict: cheapest qualifying vs flagship."""


class ProbeSpend(Strict):
    """What one model's tools probes cost: infrastructure spend, in no cell's figures."""

    model: Slug
    probes: int = Field(ge=0, description="Probes run (`probes/<model>.jsonl`, one a line).")
    calls: int = Field(ge=0, description="Calls those probes made, each paid.")
    usd: Usd = Field(
        description="Every call's cost re-derived at the frozen prices (usage × token prices, "
        "or server time × the instance price for a self-hosted model), summed exactly; never "
        "in CPO."
    )


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
    probe_spend: list[ProbeSpend] = Field(
        default_factory=list,
        description="Per model, the spend on checking that its endpoint hands tools to the "
        "model (the runner's tools probe, before its first agentic cell): paid calls outside "
        "every cell, never part of a CPO.",
        # Left out when empty (no probe was run), so results of editions without probes read
        # back, and are sealed, unchanged.
        exclude_if=lambda v: not v,
    )


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


# --------------------------------------------------------------------------- corrected results


class FigureCorrection(Strict):
    """One figure an erratum withdrew or changed, as the corrected results file marks it."""

    workload: WorkloadId | None = None
    """Workload of the figure (null: every workload)."""
    model: Slug | None = None
    """Model of the figure (null: every model)."""
    mode: Mode | None = None
    """Mode of the figure (null: both modes)."""
    field: str = Field(description="Figure name, e.g. `pass_rate`, `cpo_usd`.")
    status: Literal["withdrawn", "corrected"] = Field(
        description="`withdrawn`: the figure is gone (null in `results`); `corrected`: replaced."
    )
    erratum: str = Field(description="Id of the erratum, also its page: /errata/<id>/.")
    erratum_date: dt.date = Field(description="Date of the erratum.")
    as_published: Any = Field(
        default=None,
        description="The figure in the sealed results.json (null when that file has no such "
        "single cell figure, e.g. the erratum names a whole workload).",
    )
    published_text: str = Field(description="The superseded figure as the erratum quotes it.")
    corrected_text: str | None = Field(description="The new figure as quoted; null if withdrawn.")


class CorrectedResults(Strict):
    """`results-corrected.json`: the figures with every erratum applied, each change marked.

    `results.json` stays the sealed file as first published; this file is what a reader should
    use today. The CSV download holds the same figures, one row per cell.
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Slug
    """Edition id."""
    sealed_sha256: Sha256 | None = Field(
        description="sha256 of the results.json beside it: the sealed file once published."
    )
    errata: list[str] = Field(default_factory=list, description="Ids of the errata applied.")
    corrections: list[FigureCorrection] = Field(
        default_factory=list, description="Every withdrawn or changed figure with its erratum."
    )
    results: EditionResults = Field(
        description="The corrected figures: withdrawn ones null, their cells flagged with the "
        "erratum id."
    )
