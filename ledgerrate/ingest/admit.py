"""The rules a sample must pass to become a run record, the same ones `run` lives by.

A sample is refused, with one line saying why, unless: it names this edition and a workload
registered in it, in a mode the workload has; its model is one of the edition's models with a
frozen price (and the harness's model name is that model's `api_model`); its item is an item of
the registered dataset and the prompt it was sent hashes to the registered prompt of that item;
it was sent with the edition's sampling settings and output cap (`ledgerrate.core.sampling`); it
started inside the window; and its item has no final record yet in the cell's open sitting.
An admitted sample takes the next attempt number of its item, its run id is derived as `run`
derives it, and every call is priced at the frozen prices from its own usage: a cost the log
states is never read. A sample whose log and key were ingested before is skipped, so ingesting
a log twice adds nothing; so is a sample whose harness id (Inspect's uuid) was ingested before
from another log: `inspect eval-retry` repeats the samples that had finished under their uuid,
and only its re-runs are new, each the next attempt of an item whose attempt was excluded.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from ledgerrate.core.cost import call_cost
from ledgerrate.core.edition import Edition
from ledgerrate.core.sampling import differences
from ledgerrate.ingest.incoming import Incoming
from ledgerrate.run import rawlog
from ledgerrate.schema import (
    CallRecord,
    Cost,
    CostBasis,
    Mode,
    ModelSpec,
    RunRecord,
    RunSource,
    Usage,
)
from ledgerrate.workloads.base import Dataset, Workload

DatasetFor = Callable[[str], Dataset]


class Skipped(enum.Enum):
    already = "this log's sample was ingested before"
    same_attempt = "the same attempt (sample uuid) was ingested before from another log"


@dataclass
class CellState:
    """A cell's log as ingest found it, and what this ingest has added to it so far."""

    path: Path
    records: list[RunRecord]
    plan: rawlog.SittingPlan
    ingested: set[tuple[str, str]] = field(default_factory=set)
    # (sample uuid, start) of every ingested attempt: a retry log's repeat of a finished sample
    # has both; its re-run of an errored one may keep the uuid but starts later.
    attempts: set[tuple[str, dt.datetime]] = field(default_factory=set)

    @classmethod
    def load(cls, path: Path, item_ids: Sequence[str], new_sitting: bool) -> CellState:
        records = rawlog.read_cell(path)
        plan = rawlog.plan_sitting(records, item_ids, new_sitting=new_sitting)
        ingested = {(r.source.log_sha256, r.source.sample) for r in records if r.source}
        attempts = {
            (r.source.sample_uuid, r.started_at)
            for r in records
            if r.source and r.source.sample_uuid
        }
        return cls(path, records, plan, ingested, attempts)


@dataclass
class Admitted:
    path: Path
    record: RunRecord


@dataclass
class Verdicts:
    admitted: list[Admitted] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    already: int = 0
    # Samples of another log that are attempts already ingested (an eval-retry's repeats).
    same_attempt: int = 0


def api_names(spec: ModelSpec) -> set[str]:
    """What a harness may call the model: its edition id or its `api_model`, with or without a
    provider prefix (`openai/gpt-x`, `openai-api/together/meta/llama`)."""
    return {spec.id, *([spec.api_model] if spec.api_model else [])}


def _matches(spec: ModelSpec, harness_name: str) -> bool:
    parts = harness_name.split("/")
    candidates = {"/".join(parts[i:]) for i in range(len(parts))}
    return bool(api_names(spec) & candidates)


class Admission:
    """Checks samples against one registered edition; keeps each cell's state across logs."""

    def __init__(
        self,
        edition: Edition,
        lookup: Callable[[str], Workload],
        dataset_for: DatasetFor,
        *,
        new_sitting: bool,
        now: Callable[[], dt.datetime],
    ) -> None:
        self.edition = edition
        self.lookup = lookup
        self.dataset_for = dataset_for
        self.new_sitting = new_sitting
        self.now = now
        self.datasets: dict[str, Dataset] = {}
        self.cells: dict[tuple[str, str, str], CellState] = {}
        registration = edition.registration
        assert registration is not None  # the stage checked it before any sample
        self.registration = registration
        self.compact: dict[Path, bool] = {}

    def _dataset(self, workload_id: str) -> Dataset:
        if workload_id not in self.datasets:
            self.datasets[workload_id] = self.dataset_for(workload_id)
        return self.datasets[workload_id]

    def _model(self, sample: Incoming) -> ModelSpec | str:
        specs = [s for s in self.edition.manifest.models if not s.is_reference]
        found = [s for s in specs if _matches(s, sample.model_name)]
        if sample.model_id is not None:
            found = [s for s in found if s.id == sample.model_id]
        if len(found) != 1:
            known = ", ".join(f"{s.id} (api_model {s.api_model})" for s in specs)
            claimed = [s for s in specs if s.id == sample.model_id]
            if claimed:
                # The task was told one model (-T model=) and Inspect ran another.
                spec = claimed[0]
                return (
                    f"the log ran Inspect model {sample.model_name!r} for edition model "
                    f"{spec.id!r}, whose api_model is {spec.api_model!r}: run it again with "
                    f"--model openai/{spec.api_model} (and no -T model=, which eval-set does not "
                    "need: each --model finds its own entry)"
                )
            return (
                f"model {sample.model_name!r} is not a model of the edition; run it again with "
                f"--model <provider>/<api_model> of one of its models: {known}"
            )
        spec = found[0]
        if (
            spec.id not in self.edition.pricing.models
            and spec.id not in self.edition.pricing.self_hosted
        ):
            return f"model {spec.id!r} has no frozen price in pricing.yaml"
        return spec

    def check(self, sample: Incoming) -> Admitted | str | Skipped:
        """The record to write, the reason for refusing it, or why it is skipped."""
        manifest = self.edition.manifest
        if sample.workload is None or sample.item_id is None:
            return (
                "not a LedgerRate sample: its metadata has no `ledgerrate` block naming workload "
                "and item (run it with `inspect eval ledgerrate/<task>`)"
            )
        if sample.edition is not None and sample.edition != manifest.id:
            return f"edition {sample.edition!r} is not this edition ({manifest.id!r})"
        if sample.workload not in self.registration.workloads:
            return f"workload {sample.workload} is not registered in edition {manifest.id}"
        workload = self.lookup(sample.workload)
        if sample.mode is None or sample.mode not in workload.modes:
            return (
                f"mode {sample.mode!r} is not a mode of {workload.id} ({', '.join(workload.modes)})"
            )
        mode = Mode(sample.mode)
        spec = self._model(sample)
        if isinstance(spec, str):
            return spec
        key = (workload.id, spec.id, mode.value)
        dataset = self._dataset(workload.id)
        item_ids = [i.id for i in dataset.items]
        if sample.item_id not in item_ids:
            return (
                f"item {sample.item_id!r} is not an item of the registered {workload.id} dataset "
                "(a foreign item)"
            )
        item = dataset.item(sample.item_id)
        prompt = workload.prompt(item)
        reason = _prompt_problem(sample, prompt.hash, prompt.system, prompt.user)
        if reason:
            return reason
        reason = _sampling_problem(sample, spec)
        if reason:
            return reason
        sealed = self.registration.workloads[workload.id].dataset_hash
        if sample.dataset_hash is not None and sample.dataset_hash != sealed:
            return f"dataset_hash {sample.dataset_hash[:12]}… is not the registered {sealed[:12]}…"
        window = manifest.window
        if sample.started_at is None:
            return "the log records no start time, so the window cannot be checked"
        if not window.opens <= sample.started_at <= window.closes:
            return (
                f"started {sample.started_at.isoformat()}, outside the edition window "
                f"{window.opens.isoformat()} – {window.closes.isoformat()}"
            )
        path = self.edition.paths.runs(*key)
        if key not in self.cells:
            self.cells[key] = CellState.load(path, item_ids, self.new_sitting)
        cell = self.cells[key]
        if (sample.log.sha256, sample.sample) in cell.ingested:
            return Skipped.already
        if sample.uuid is not None and (sample.uuid, sample.started_at) in cell.attempts:
            return Skipped.same_attempt
        plan = cell.plan
        if sample.item_id not in plan.todo:
            return (
                f"item {sample.item_id} already has a final record in sitting {plan.sitting} of "
                f"{'/'.join(key)}; one record per item per sitting (--new-sitting opens another "
                "once the sitting is complete)"
            )
        attempt = plan.todo[sample.item_id]
        record = self._record(sample, spec, workload, mode, plan.sitting, attempt, prompt.hash)
        cell.ingested.add((sample.log.sha256, sample.sample))
        if sample.uuid is not None:
            cell.attempts.add((sample.uuid, sample.started_at))
        if record.status in rawlog.FINISHED:
            del plan.todo[sample.item_id]
        else:
            plan.todo[sample.item_id] = attempt + 1
        return Admitted(path, record)

    def _record(
        self,
        sample: Incoming,
        spec: ModelSpec,
        workload: Workload,
        mode: Mode,
        sitting: int,
        attempt: int,
        prompt_hash: str,
    ) -> RunRecord:
        edition = self.edition.manifest.id
        pricing = self.edition.pricing
        calls = [_priced(c, pricing, spec.id) for c in sample.calls]
        usage_basis, cost_basis = rawlog.call_bases(calls)
        if spec.id in pricing.self_hosted:
            cost_basis = CostBasis.compute
        started = sample.started_at
        assert started is not None  # checked above
        finished = sample.finished_at or started
        source = RunSource(
            harness=sample.log.harness,
            harness_version=sample.log.harness_version,
            log_name=sample.log.path_name,
            log_sha256=sample.log.sha256,
            eval_id=sample.log.eval_id,
            task=sample.log.task,
            sample=sample.sample,
            sample_uuid=sample.uuid,
            ingested_at=self.now(),
        )
        return RunRecord(
            run_id=rawlog.run_id(
                edition, sitting, workload.id, spec.id, mode.value, sample.item_id or "", attempt
            ),
            edition=edition,
            sitting=sitting,
            workload=workload.id,
            model=spec.id,
            mode=mode,
            item_id=sample.item_id,
            attempt=attempt,
            started_at=started,
            finished_at=max(finished, started),
            latency_s=sample.latency_s,
            status=sample.status,
            failure=sample.failure,
            dataset_hash=self.registration.workloads[workload.id].dataset_hash,
            prompt_hash=prompt_hash,
            request=sample.request,
            calls=calls,
            steps=sample.steps,
            answer=sample.answer,
            tool_state=sample.tool_state,
            usage=sum((c.usage for c in calls), Usage()),
            usage_basis=usage_basis,
            cost=sum((c.cost for c in calls), Cost()),
            cost_basis=cost_basis,
            source=source,
        )

    def admit(self, samples: Sequence[Incoming]) -> Verdicts:
        verdicts = Verdicts()
        # A log refused for one reason (a whole eval run at another temperature) is one line.
        refused: dict[tuple[str, str], list[str]] = {}
        for sample in sorted(samples, key=_order):
            verdict = self.check(sample)
            if verdict is Skipped.already:
                verdicts.already += 1
            elif verdict is Skipped.same_attempt:
                verdicts.same_attempt += 1
            elif isinstance(verdict, str):
                refused.setdefault((sample.log.path_name, verdict), []).append(sample.sample)
            else:
                verdicts.admitted.append(verdict)
        for (log, reason), keys in refused.items():
            which = f"sample {keys[0]}" if len(keys) == 1 else f"samples {', '.join(keys)}"
            verdicts.refused.append(f"{log}: {which}: refused: {reason}")
        return verdicts


def _order(sample: Incoming) -> tuple[dt.datetime, str]:
    """Attempts are numbered in the order they started, as `run` numbers them."""
    return (sample.started_at or dt.datetime.max.replace(tzinfo=dt.UTC), sample.sample)


def _priced(call: CallRecord, pricing: Any, model_id: str) -> CallRecord:
    return call.model_copy(
        update={"cost": call_cost(call.usage, call.latency_s, pricing, model_id)}
    )


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _prompt_problem(sample: Incoming, registered: str, system: str, user: str) -> str | None:
    if sample.prompt_hash is not None and sample.prompt_hash != registered:
        return (
            f"prompt_hash {sample.prompt_hash[:12]}… is not the registered prompt of "
            f"{sample.item_id} ({registered[:12]}…)"
        )
    if sample.sent:
        for sent in sample.sent:
            if sent.hash != registered:
                return (
                    f"the prompt sent (sha256 {sent.hash[:12]}…) is not the registered prompt "
                    f"of {sample.item_id} ({registered[:12]}…): the prompt was changed"
                )
        return None
    texts = set(_strings(sample.request))
    if user not in texts or (system and not any(system in t for t in texts)):
        return (
            f"the request does not hold the registered prompt of {sample.item_id} verbatim "
            "(the prompt was changed, or the request is not the first one sent)"
        )
    if sample.prompt_hash is None:
        return "no prompt_hash: the sample must name the prompt it was sent"
    return None


def _sampling_problem(sample: Incoming, spec: ModelSpec) -> str | None:
    """The first setting a call was sent with that is not the edition's, in one line."""
    for where, body in sample.settings or [("the request", sample.request)]:
        found = differences(spec, body)
        if found:
            first = found[0]
            sent = "not set" if first.sent is None else repr(first.sent)
            edition = "leaves it unset" if first.edition is None else f"gives {first.edition!r}"
            return (
                f"sampling differs from the edition's: {first.setting} is {sent} in the log "
                f"({where}) and edition.yaml {edition} for model {spec.id}; run it again "
                "without the option that changed it (--temperature, --max-tokens, …)"
            )
    return None


def spend(records: Sequence[RunRecord]) -> Decimal:
    return sum((r.cost.total_usd for r in records), Decimal(0))
