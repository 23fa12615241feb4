"""One cell's runs as an Inspect AI eval log, built from Inspect's own types (`EvalLog`).

The other direction of `ingest/inspect_log.py`, and shaped so that `ledgerrate ingest` reads it
back into the same records: per attempt a sample whose metadata carries the `ledgerrate` block
the tasks write (edition, workload, item, prompt hash, mode, model), whose messages are the
conversation (the registered prompt, then each agent step's assistant turn and tool results),
whose events are one `ModelEvent` per provider call (its usage, timing and, for the first call,
the request body as sent and the raw response) and whose output is the final answer. The score
is LedgerRate's own grade of the attempt, never Inspect's: `C` for a pass, `I` for a fail,
with the named checks (and the judge's verdict, for a judged workload) as its explanation and
metadata; an attempt without a grade (an infrastructure exclusion, a run not yet graded) has
no score.

What Inspect's format has no place for is said where Inspect shows it: an infrastructure
exclusion is a sample error (`ingest` reads it back as one), the 25-step cap is the store key the
agentic solver sets, a cut answer is the stop reason `max_tokens`; LedgerRate's own status and
failure text are in the sample metadata (`ledgerrate_run`), and `ingest` keeps that text when
the status the log shows is the same. A call after the first has no
request body in LedgerRate's record (only the first request is kept), so its event carries the
conversation and the settings, not a provider body. Costs are LedgerRate's at the frozen prices
(metadata, exact decimals); Inspect's own `total_cost` is left out, since `ingest` never reads a
cost from a log and recomputes it from the usage.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from inspect_ai import __version__ as inspect_version
from inspect_ai.event import ModelEvent
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
)
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    ModelCall,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.scorer import Score
from inspect_ai.tool import ToolCall, ToolCallError

from ledgerrate.core.errors import UsageProblem
from ledgerrate.harness.metadata import (
    METADATA_KEY,
    RUN_KEY,
    STEP_CAP_KEY,
    TOOL_STATE_KEY,
    task_name,
)
from ledgerrate.providers import families
from ledgerrate.schema import (
    AgentStep,
    CallRecord,
    GradeRecord,
    ModelSpec,
    Outcome,
    ProviderFamily,
    RunRecord,
    RunStatus,
    Usage,
    UsageBasis,
)
from ledgerrate.workloads.base import Prompt

SCORER = "ledgerrate"
# The run-record failures `run` writes for an answer cut at the output cap.
CUT_PREFIX = "truncated"
# Keys of Inspect's generate config that carry an edition's sampling settings as they are.
CONFIG_KEYS = frozenset(GenerateConfig.model_fields)


@dataclass(frozen=True)
class ExportCell:
    """One cell's published sitting: every attempt in it (requests whole) and their grades."""

    edition: str
    workload: str
    title: str
    spec: ModelSpec
    mode: str
    sitting: int
    n: int
    records: Sequence[RunRecord]
    grades: dict[str, GradeRecord]  # run id → its latest grade revision
    ledgerrate_version: str


def inspect_model_name(spec: ModelSpec) -> str:
    """The name Inspect gives the model, as `inspect eval --model` would run it: an OpenAI-
    compatible entry through Inspect's `openai-api` provider (as the tasks bind it), another
    family through Inspect's provider for that API."""
    api_model = spec.api_model or spec.id
    if spec.provider == ProviderFamily.openai:
        return f"openai-api/ledgerrate/{api_model}"
    return f"{families.get(str(spec.provider)).inspect_name}/{api_model}"


def _id(*parts: str) -> str:
    """A stable id (the same export gives the same ids), 22 characters as Inspect's are."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:22]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def sent_prompt(record: RunRecord) -> Prompt:
    """The registered prompt, found in the request as sent: the (system, user) pair of its
    strings whose hash is the record's `prompt_hash`, whichever API family's body it is."""
    texts = list(dict.fromkeys(_strings(record.request)))
    # The item's prompt is nearly always the request's longest string: tried first, the pair is
    # found in about as many hashes as the request has strings, not their square.
    for user in sorted(texts, key=len, reverse=True):
        for system in ["", *texts]:
            if system != user and Prompt(system=system, user=user).hash == record.prompt_hash:
                return Prompt(system=system, user=user)
    raise UsageProblem(
        f"{record.run_id} ({record.item_id}): its request holds no prompt whose hash is its "
        f"prompt_hash {record.prompt_hash[:12]}…; the log cannot show what the model was sent"
    )


def _usage(usage: Usage) -> ModelUsage:
    return ModelUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
        input_tokens_cache_read=usage.cached_input_tokens or None,
        input_tokens_cache_write=usage.cache_write_tokens or None,
        reasoning_tokens=usage.reasoning_tokens or None,
    )


def generate_config(spec: ModelSpec) -> GenerateConfig:
    """The edition's settings for the model in Inspect's vocabulary (what the tasks pass)."""
    settings = {k: v for k, v in spec.sampling.items() if k in CONFIG_KEYS}
    return GenerateConfig(max_tokens=spec.max_output_tokens, **settings)


def _prompt_messages(prompt: Prompt) -> list[ChatMessage]:
    messages: list[ChatMessage] = []
    if prompt.system:
        messages.append(ChatMessageSystem(content=prompt.system))
    messages.append(ChatMessageUser(content=prompt.user))
    return messages


def _turns(step: AgentStep) -> list[ChatMessage]:
    """A step's assistant turn and, after it, the result of each tool call it made."""
    calls = [
        ToolCall(id=r.call.id, function=r.call.name, arguments=dict(r.call.arguments))
        for r in step.tool_results
    ]
    turns: list[ChatMessage] = [
        ChatMessageAssistant(content=step.text, tool_calls=calls or None, model=None)
    ]
    for result in step.tool_results:
        error = None
        if not result.ok:
            error = ToolCallError("unknown", result.output.removeprefix("error: "))
        turns.append(
            ChatMessageTool(
                content=result.output if result.ok else "",
                tool_call_id=result.call.id,
                function=result.call.name,
                error=error,
            )
        )
    return turns


def _stop_reason(record: RunRecord) -> str:
    if record.failure and record.failure.startswith(CUT_PREFIX):
        return "max_tokens"
    return "stop"


def _output(
    model: str, message: ChatMessageAssistant, usage: Usage | None, stop: str
) -> ModelOutput:
    return ModelOutput(
        model=model,
        choices=[ChatCompletionChoice(message=message, stop_reason=stop)],
        usage=_usage(usage) if usage is not None else None,
    )


def _events(
    record: RunRecord,
    model: str,
    prompt: list[ChatMessage],
    config: GenerateConfig,
    steps: dict[int, list[ChatMessage]],
) -> list[ModelEvent]:
    """One event per provider call: the conversation it was sent, what came back, its usage."""
    history = list(prompt)
    events = []
    for number, call in enumerate(record.calls):
        # A call that failed (an error, no reply) left no step: nothing joins the conversation.
        turns = steps.get(call.step, [])
        reply = turns[0] if turns else ChatMessageAssistant(content="")
        assert isinstance(reply, ChatMessageAssistant)
        last = number == len(record.calls) - 1
        stop = _stop_reason(record) if last else "tool_calls" if reply.tool_calls else "stop"
        events.append(_event(record, call, number, model, list(history), reply, config, stop))
        history.extend(turns)
    return events


def _event(
    record: RunRecord,
    call: CallRecord,
    number: int,
    model: str,
    sent: list[ChatMessage],
    reply: ChatMessageAssistant,
    config: GenerateConfig,
    stop: str,
) -> ModelEvent:
    finished = call.started_at + dt.timedelta(seconds=call.latency_s)
    reported = call.usage_basis == UsageBasis.provider_reported and call.error is None
    provider_call = None
    if number == 0 and record.request is not None:
        # Only the first request is kept whole in a run record: it is the body as sent.
        provider_call = ModelCall(request=dict(record.request), response=_raw(call.response))
    return ModelEvent(
        uuid=_id(record.run_id, str(number)),
        timestamp=call.started_at,
        # Seconds into the attempt (Inspect's default is this process's clock).
        working_start=max((call.started_at - record.started_at).total_seconds(), 0.0),
        completed=finished,
        working_time=call.latency_s,
        model=model,
        input=sent,
        tools=[],
        tool_choice="auto" if reply.tool_calls else "none",
        config=config,
        output=_output(model, reply, call.usage if reported else None, stop),
        error=call.error,
        call=provider_call,
    )


def _raw(response: Any) -> dict[str, Any] | None:
    if response is None:
        return None
    return response if isinstance(response, dict) else {"text": str(response)}


def _messages(prompt: list[ChatMessage], steps: dict[int, list[ChatMessage]]) -> list[ChatMessage]:
    messages = list(prompt)
    for turns in steps.values():
        messages.extend(turns)
    return messages


def _score(grade: GradeRecord, answer: str | None) -> Score:
    failed = [c for c in grade.checks if not c.passed]
    lines = [f"{'✓' if c.passed else '✗'} {c.name}: {c.detail}".rstrip(": ") for c in grade.checks]
    if grade.judge is not None:
        verdict = {True: "pass", False: "fail", None: "no verdict"}[grade.judge.passed]
        lines.append(f"judge {grade.judge.judge_model}: {verdict}; {grade.judge.rationale}")
    outcome = Outcome(grade.outcome)
    value = "C" if outcome == Outcome.passed else "I"
    summary = {
        Outcome.passed: "pass: every check passed",
        Outcome.failed: f"fail: {len(failed)} of {len(grade.checks)} checks failed"
        if failed
        else "fail",
        Outcome.pending_judge: "pending judge: not a pass until the judge's verdict",
    }[outcome]
    return Score(
        value=value,
        answer=answer,
        explanation="\n".join([summary, *lines]),
        metadata={
            "outcome": outcome.value,
            "revision": grade.revision,
            "graded_at": grade.graded_at.isoformat(),
            "grader_hash": grade.grader_hash,
            "checks": [c.model_dump(mode="json") for c in grade.checks],
            "diagnostics": dict(grade.diagnostics),
            "judge": grade.judge.model_dump(mode="json") if grade.judge else None,
            "spotcheck": grade.spotcheck.model_dump(mode="json") if grade.spotcheck else None,
        },
    )


def _sample(cell: ExportCell, record: RunRecord, model: str, config: GenerateConfig) -> EvalSample:
    prompt = _prompt_messages(sent_prompt(record))
    # Each step's messages are made once and shared by the conversation and the events.
    steps = {step.step: _turns(step) for step in record.steps}
    messages = _messages(prompt, steps)
    events = _events(record, model, prompt, config, steps)
    answer = record.answer
    output = ModelOutput(model=model)
    if answer is not None:
        message = ChatMessageAssistant(content=answer, model=model)
        message.id = _id(record.run_id, "answer")
        last_usage = record.calls[-1].usage if record.calls else None
        output = _output(model, message, last_usage, _stop_reason(record))
    grade = cell.grades.get(record.run_id)
    status = RunStatus(record.status)
    error = None
    if status == RunStatus.infra_excluded:
        error = EvalError(message=record.failure or "infra", traceback="", traceback_ansi="")
    store: dict[str, Any] = {}
    if cell.mode == "agentic":
        store[STEP_CAP_KEY] = record.failure == "step_cap"
        if record.tool_state is not None:
            store[TOOL_STATE_KEY] = record.tool_state
    sample_id = record.item_id if record.attempt == 1 else f"{record.item_id}@{record.attempt}"
    _name_messages(record.run_id, [*messages, *(m for e in events for m in e.output.choices)])
    return EvalSample(
        id=sample_id,
        epoch=1,
        input=prompt,
        target="",
        messages=messages,
        output=output,
        scores={SCORER: _score(grade, answer)} if grade is not None else None,
        metadata={
            METADATA_KEY: {
                "edition": cell.edition,
                "workload": cell.workload,
                "item_id": record.item_id,
                "prompt_hash": record.prompt_hash,
                "mode": cell.mode,
                "model": cell.spec.id,
            },
            RUN_KEY: {
                "run_id": record.run_id,
                "sitting": record.sitting,
                "attempt": record.attempt,
                "status": status.value,
                "failure": record.failure,
                "dataset_hash": record.dataset_hash,
                "usage_basis": UsageBasis(record.usage_basis).value,
                "cost_basis": str(record.cost_basis),
                "model_usd": str(record.cost.model_usd),
                "compute_usd": str(record.cost.compute_usd),
                "source": record.source.model_dump(mode="json") if record.source else None,
            },
        },
        store=store,
        events=list(events),
        model_usage={model: _usage(record.usage)},
        started_at=record.started_at.isoformat(),
        completed_at=record.finished_at.isoformat(),
        total_time=record.latency_s,
        working_time=record.latency_s,
        uuid=_id(record.run_id),
        error=error,
    )


def _name_messages(run_id: str, found: Sequence[Any]) -> None:
    """Give each message a stable id (Inspect draws random ones), so an export is the same
    whenever it is made."""
    seen: set[int] = set()
    for number, item in enumerate(found):
        message = item.message if isinstance(item, ChatCompletionChoice) else item
        if id(message) not in seen:
            seen.add(id(message))
            message.id = _id(run_id, "message", str(number))


def counted(records: Sequence[RunRecord]) -> dict[str, RunRecord]:
    """Per item, the attempt that counts: the last that was not an infrastructure exclusion
    (the rule of `metrics.sittings.counted_attempts`, restated for one sitting's records)."""
    found: dict[str, RunRecord] = {}
    for record in sorted(records, key=lambda r: (r.attempt, r.finished_at, r.run_id)):
        if RunStatus(record.status) != RunStatus.infra_excluded:
            found[record.item_id] = record
    return found


def cell_log(cell: ExportCell) -> EvalLog:
    """The cell's published sitting as one eval log, samples in the order they started."""
    model = inspect_model_name(cell.spec)
    config = generate_config(cell.spec)
    records = sorted(cell.records, key=lambda r: (r.started_at, r.run_id))
    samples = [_sample(cell, r, model, config) for r in records]
    kept = counted(records)
    graded = [cell.grades[r.run_id] for r in kept.values() if r.run_id in cell.grades]
    passes = sum(Outcome(g.outcome) == Outcome.passed for g in graded)
    total = _usage(sum((r.usage for r in records), Usage()))
    started = records[0].started_at if records else dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    finished = max((r.finished_at for r in records), default=started)
    key = (cell.edition, cell.workload, cell.spec.id, cell.mode, str(cell.sitting))
    spend = sum((r.cost.total_usd for r in records), Decimal(0))
    return EvalLog(
        version=2,
        status="success",
        eval=EvalSpec(
            eval_id=_id(*key),
            run_id=_id(*key, "run"),
            created=started.isoformat(),
            task=f"ledgerrate/{task_name(cell.workload)}",
            task_id=_id(*key, "task"),
            task_display_name=f"{cell.title} ({cell.workload})",
            task_args={"edition": cell.edition, "mode": cell.mode, "model": cell.spec.id},
            dataset=EvalDataset(
                name=f"{cell.edition}/{cell.workload}",
                samples=len(samples),
                sample_ids=[s.id for s in samples],
            ),
            model=model,
            model_generate_config=config,
            model_base_url=cell.spec.base_url,
            config=EvalConfig(epochs=1),
            packages={"inspect_ai": inspect_version, "ledgerrate": cell.ledgerrate_version},
            metadata={
                METADATA_KEY: {"edition": cell.edition, "workload": cell.workload},
                "exported_by": "ledgerrate export --format inspect",
            },
        ),
        results=EvalResults(
            total_samples=len(samples),
            completed_samples=len(samples),
            scores=[
                EvalScore(
                    name=SCORER,
                    scorer=SCORER,
                    scored_samples=len(graded),
                    unscored_samples=len(samples) - len(graded),
                    metrics={
                        "passes": EvalMetric(name="passes", value=passes),
                        "accuracy": EvalMetric(
                            name="accuracy", value=passes / len(kept) if kept else 0.0
                        ),
                    },
                )
            ],
            metadata={
                METADATA_KEY: {
                    "sitting": cell.sitting,
                    "n": cell.n,
                    "counted_items": len(kept),
                    "passes": passes,
                    "spend_usd": str(spend),
                    "note": "LedgerRate's grade of each counted attempt, as recorded; the "
                    "published figures, with errata applied, are the edition's results files",
                }
            },
        ),
        stats=EvalStats(
            started_at=started.isoformat(),
            completed_at=finished.isoformat(),
            model_usage={model: total},
        ),
        samples=samples,
    )
